#include "io/spec_loader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/python_source.h"
#include "core/spec_check.h"
#include "core/spec_source_check.h"
#include "io/file_read.h"
#include "io/foreign_tree.h"
#include "io/spec_yaml.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProjectFile = "kernelevo.yaml";

bool is_source(const fs::path& p) { return p.extension() == ".cu" || p.extension() == ".py"; }
bool is_python(const fs::path& p) { return p.extension() == ".py"; }
bool is_header(const fs::path& p) {
  const auto ext = p.extension();
  return ext == ".cuh" || ext == ".h" || ext == ".hpp" || ext == ".hh" || ext == ".hxx";
}
bool is_project_file(const fs::path& p) { return p.filename() == kProjectFile; }

std::string display(const fs::path& p) { return p.lexically_normal().generic_string(); }

Result<std::string> read_text(const std::string& path) {
  return read_regular_file(path, kMaxSourceBytes);
}

struct Inputs {
  std::vector<std::string> sources;
  std::vector<std::string> headers;
  std::vector<std::string> project_files;
};

void collect_directory(const fs::path& dir, Inputs& in, SpecLoad& out) {
  std::error_code ec;
  std::vector<fs::path> files;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    out.errors.push_back(
        make_error("cannot read directory '" + display(dir) + "': " + ec.message(), {}));
    return;
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::path& p = it->path();
    if (it->is_directory(ec)) {
      const TreeKind kind = classify_subdirectory(p);
      if (kind != TreeKind::own) {
        it.disable_recursion_pending();
        if (kind != TreeKind::hidden) out.skipped.push_back(display(p));
      }
      continue;
    }
    if (!is_source(p) && !is_header(p)) continue;
    // A link to a device or a FIFO named like a source is not one (reading it would never end).
    if (!it->is_regular_file(ec)) {
      out.warnings.push_back(
          make_error("not a regular file (a link to a device, a FIFO?); skipped", {display(p)}));
      continue;
    }
    files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) (is_source(f) ? in.sources : in.headers).push_back(display(f));
  if (fs::is_regular_file(dir / kProjectFile, ec))
    in.project_files.push_back(display(dir / kProjectFile));
}

void check_header(const std::string& path, SpecLoad& out) {
  const auto text = read_text(path);
  if (!text) {
    out.errors.push_back(text.error());
    return;
  }
  if (text->find("@kernelevo") == std::string::npos) return;
  for (const auto& block : find_marked_blocks(*text, path)) {
    out.errors.push_back(
        make_error("@kernelevo marks belong in .cu sources, not headers; move the mark "
                   "and its kernel into a .cu file",
                   block.mark));
  }
}

// Line of `kernel`'s __global__ definition in a source named by a project file, 0 if none.
int find_kernel_line(const std::string& text, const std::string& kernel) {
  const std::string base = kernel.substr(0, kernel.find('<'));
  std::istringstream lines(text);
  std::string line;
  int n = 0;
  int global_line = 0;
  while (std::getline(lines, line)) {
    ++n;
    if (line.find("__global__") != std::string::npos) global_line = n;
    const auto pos = line.find(base);
    if (global_line > 0 && n - global_line <= 2 && pos != std::string::npos &&
        line.find('(', pos + base.size()) != std::string::npos) {
      return global_line;
    }
  }
  return 0;
}

// A reference in another source (`reference: {source, kernel}`): a readable .cu or .py file
// that defines the kernel (a __global__ function, or a top-level @triton.jit function).
std::vector<Error> check_reference_source(const KernelSpec& spec) {
  const std::string& path = spec.reference_source;
  const std::string what = "reference source '" + path + "' of kernel '" + spec.id + "'";
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return {make_error(what + " does not exist (its path is relative to " + spec.source + ")",
                       spec.where)};
  if (!is_source(path)) return {make_error(what + " is not a .cu or .py file", spec.where)};
  const auto text = read_text(path);
  if (!text) return {text.error()};
  if (is_python(path)) {
    const PySource py = scan_python(*text);
    const PyFunction* f = find_function(py, spec.reference);
    if (f == nullptr || !f->triton_jit)
      return {make_error(what + " defines no @triton.jit function `" + spec.reference + "`",
                         spec.where)};
  } else if (find_kernel_line(*text, spec.reference) == 0) {
    return {
        make_error(what + " defines no __global__ function `" + spec.reference + "`", spec.where)};
  }
  return {};
}

void append(std::vector<Error>& to, std::vector<Error> from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

}  // namespace

SpecLoad load_specs(const std::vector<std::string>& paths) {
  SpecLoad out;
  Inputs in;
  for (const auto& path : paths) {
    std::error_code ec;
    const fs::path p(path);
    if (fs::is_directory(p, ec)) {
      collect_directory(p, in, out);
    } else if (!fs::exists(p, ec)) {
      out.errors.push_back(make_error("no such file or directory: '" + path + "'", {}));
    } else if (is_project_file(p) || p.extension() == ".yaml" || p.extension() == ".yml") {
      in.project_files.push_back(display(p));
    } else if (is_header(p)) {
      in.headers.push_back(display(p));
    } else {
      in.sources.push_back(display(p));
    }
  }
  const auto dedupe = [](std::vector<std::string>& v) {
    std::set<std::string> seen;
    v.erase(std::remove_if(v.begin(), v.end(),
                           [&](const std::string& s) { return !seen.insert(s).second; }),
            v.end());
  };
  dedupe(in.sources);
  dedupe(in.headers);
  dedupe(in.project_files);
  std::sort(out.skipped.begin(), out.skipped.end());
  dedupe(out.skipped);

  std::vector<KernelSpec> parsed;
  std::vector<bool> complete;                // false: a partial spec, already in error
  std::map<std::string, std::string> texts;  // marked sources and those project files name
  for (const auto& source : in.sources) {
    const auto text = read_text(source);
    if (!text) {
      out.errors.push_back(text.error());
      continue;
    }
    if (text->find("@kernelevo") == std::string::npos) continue;
    texts[source] = *text;
    const auto blocks = is_python(source) ? find_python_marked_blocks(*text, source)
                                          : find_marked_blocks(*text, source);
    for (const auto& block : blocks) {
      SpecParse p = parse_marked_block(block, source);
      append(out.errors, std::move(p.errors));
      append(out.warnings, std::move(p.warnings));
      for (auto& s : p.specs) {
        parsed.push_back(std::move(s));
        complete.push_back(true);
      }
      for (auto& s : p.partial) {
        parsed.push_back(std::move(s));
        complete.push_back(false);
      }
    }
  }
  for (const auto& header : in.headers) check_header(header, out);
  for (const auto& project : in.project_files) {
    const auto text = read_text(project);
    if (!text) {
      out.errors.push_back(text.error());
      continue;
    }
    SpecParse p = parse_project_yaml(*text, project);
    append(out.errors, std::move(p.errors));
    append(out.warnings, std::move(p.warnings));
    for (auto& s : p.partial) {
      parsed.push_back(std::move(s));
      complete.push_back(false);
    }
    for (auto& s : p.specs) {
      std::error_code ec;
      if (!fs::is_regular_file(s.source, ec)) {
        out.errors.push_back(make_error(
            "source '" + s.source + "' of kernel '" + s.id + "' does not exist", s.where));
        continue;
      }
      if (!is_source(s.source) || is_python(s.source)) {
        out.errors.push_back(make_error(
            "source '" + s.source + "' of kernel '" + s.id + "' is not a .cu file" +
                (is_python(s.source) ? " (a Triton kernel's spec is a `# @kernelevo` comment "
                                       "block above its function in the .py file)"
                                     : ""),
            s.where));
        continue;
      }
      if (!texts.count(s.source)) {
        auto source_text = read_text(s.source);
        if (!source_text) {
          out.errors.push_back(source_text.error());
          continue;
        }
        texts[s.source] = std::move(*source_text);
      }
      s.kernel_line = find_kernel_line(texts[s.source], s.kernel);
      parsed.push_back(std::move(s));
      complete.push_back(true);
    }
  }

  // Checks across specs: unique ids in the project, unique parameter names per source.
  std::map<std::string, const KernelSpec*> ids;
  std::map<std::string, std::map<std::string, std::pair<const KernelSpec*, const ParamSpec*>>>
      params_by_source;
  std::vector<bool> keep = complete;
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const KernelSpec& s = parsed[i];
    const auto [it, inserted] = ids.emplace(s.id, &s);
    if (!inserted) {
      out.errors.push_back(make_error("duplicate kernel id '" + s.id + "' (first defined at " +
                                          it->second->where.to_string() +
                                          "); ids must be unique in the project",
                                      s.where));
      keep[i] = false;
    }
    auto& used = params_by_source[s.source];
    for (const auto& p : s.params) {
      const auto [pit, fresh] = used.emplace(p.name, std::make_pair(&s, &p));
      if (!fresh && pit->second.first != &s) {
        out.errors.push_back(make_error(
            "parameter '" + p.name + "' is already used by kernel '" + pit->second.first->id +
                "' in this file (at " + pit->second.second->where.to_string() +
                "); parameter names must be unique within a source file",
            p.where));
        keep[i] = false;
      }
    }
  }
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    std::vector<Error> errors = check_spec(parsed[i], !complete[i]);
    if (complete[i]) {
      const bool triton = parsed[i].language == SourceLanguage::triton;
      SourceCheck against =
          triton ? check_triton_spec_against_source(parsed[i], texts[parsed[i].source])
                 : check_spec_against_source(parsed[i], texts[parsed[i].source]);
      append(errors, std::move(against.errors));
      append(out.warnings, std::move(against.warnings));
      if (!parsed[i].reference_source.empty()) append(errors, check_reference_source(parsed[i]));
    }
    if (!errors.empty()) keep[i] = false;
    append(out.errors, std::move(errors));
  }
  for (std::size_t i = 0; i < parsed.size(); ++i)
    if (keep[i]) out.specs.push_back(std::move(parsed[i]));
  const auto by_location = [](const Error& a, const Error& b) {
    return std::tie(a.where.file, a.where.line, a.where.column) <
           std::tie(b.where.file, b.where.line, b.where.column);
  };
  std::stable_sort(out.errors.begin(), out.errors.end(), by_location);
  std::stable_sort(out.warnings.begin(), out.warnings.end(), by_location);
  return out;
}

}  // namespace kev
