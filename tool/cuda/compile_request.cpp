#include "cuda/compile_request.h"

#include <filesystem>

#include "core/python_source.h"
#include "cuda/files.h"
#include "cuda/source_kind.h"
#include "cuda/triton_compiler.h"

namespace kev::cuda {

namespace {

bool is_python(const std::string& path) { return std::filesystem::path(path).extension() == ".py"; }

// A Triton compile of `function` of `source_text`: the configuration as defines, the spec's
// argument types under the function's own parameter names (a reference may name them
// otherwise), in order.
CompileRequest triton_request(const KernelSpec& spec, const std::string& path,
                              const std::string& source_text, const std::string& function,
                              const ParamSet& params, const std::string& arch) {
  CompileRequest r;
  r.source_path = path;
  r.source_text = source_text;
  r.kernel_names = {function};
  r.arch = spec.arch.empty() ? arch : spec.arch;
  const PySource py =
      scan_python(source_text.empty() ? read_whole_file(path).value_or("") : source_text);
  const PyFunction* f = find_function(py, function);
  std::vector<std::string> names;
  if (f != nullptr)
    for (const auto& p : f->params)
      if (!p.is_constexpr) names.push_back(p.name);
  if (names.size() != spec.args.size()) names.clear();
  for (std::size_t i = 0; i < spec.args.size(); ++i)
    r.signature.emplace_back(names.empty() ? spec.args[i].name : names[i],
                             triton_type(spec.args[i]));
  for (const auto& [name, value] : params) {
    const bool takes =
        is_triton_option(name) ||
        (f != nullptr && std::any_of(f->params.begin(), f->params.end(), [&](const PyParam& p) {
           return p.is_constexpr && p.name == name;
         }));
    if (takes) r.defines.emplace_back(name, value.to_string());
  }
  return r;
}

}  // namespace

CompileRequest compile_request_for(const KernelSpec& spec, const std::string& source_text,
                                   const ParamSet& params, const std::string& arch,
                                   bool with_reference) {
  if (spec.language == SourceLanguage::triton)
    return triton_request(spec, spec.source, source_text, spec.kernel, params, arch);
  CompileRequest r;
  r.source_path = spec.source;
  r.source_text = source_text;
  r.kernel_names = {spec.kernel};
  if (with_reference && !separate_reference(spec) && !spec.reference.empty() &&
      spec.reference != "default")
    r.kernel_names.push_back(spec.reference);
  for (const auto& d : spec.defines) {
    const auto eq = d.find('=');
    const std::string name = d.substr(0, eq);
    if (params.count(name) != 0) continue;  // the parameter's value is what is compiled
    r.defines.emplace_back(name, eq == std::string::npos ? "" : d.substr(eq + 1));
  }
  for (const auto& [name, value] : params) r.defines.emplace_back(name, value.to_string());
  r.include_dirs = spec.include_dirs;
  r.flags = spec.flags;
  r.arch = spec.arch.empty() ? arch : spec.arch;
  r.host_code = holds_host_code(source_text);
  return r;
}

bool separate_reference(const KernelSpec& spec) {
  if (!spec.reference_source.empty()) return true;
  return spec.language == SourceLanguage::triton && !spec.reference.empty() &&
         spec.reference != "default" && spec.reference != spec.kernel;
}

CompileRequest reference_request_for(const KernelSpec& spec, const std::string& source_text,
                                     const ParamSet& defaults, const std::string& arch) {
  const std::string& path = spec.reference_source.empty() ? spec.source : spec.reference_source;
  const std::string text = spec.reference_source.empty() ? source_text : std::string();
  if (is_python(path)) return triton_request(spec, path, text, spec.reference, defaults, arch);
  // A .cu reference of its own source: compiled as that source's defaults give it, with the
  // spec's include directories and flags.
  CompileRequest r;
  r.source_path = path;
  r.source_text = text;
  r.kernel_names = {spec.reference};
  r.include_dirs = spec.include_dirs;
  r.flags = spec.flags;
  r.arch = spec.arch.empty() ? arch : spec.arch;
  r.host_code = holds_host_code(text.empty() ? read_whole_file(path).value_or("") : text);
  return r;
}

}  // namespace kev::cuda
