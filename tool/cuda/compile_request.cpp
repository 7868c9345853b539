#include "cuda/compile_request.h"

#include "cuda/source_kind.h"

namespace kev::cuda {

CompileRequest compile_request_for(const KernelSpec& spec, const std::string& source_text,
                                   const ParamSet& params, const std::string& arch,
                                   bool with_reference) {
  CompileRequest r;
  r.source_path = spec.source;
  r.source_text = source_text;
  r.kernel_names = {spec.kernel};
  if (with_reference && !spec.reference.empty() && spec.reference != "default")
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

}  // namespace kev::cuda
