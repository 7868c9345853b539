#include "cli/kernel_selection.h"

#include "cli/command.h"

namespace kev::cli {

KernelSelection select_kernels(const std::vector<std::string>& paths, const std::string& kernel) {
  KernelSelection out;
  out.load = load_specs(paths);
  for (const auto& w : out.load.warnings) warn(w);
  if (!out.load.errors.empty()) {
    for (const auto& e : out.load.errors) out.exit_code = report(e);
    return out;
  }
  for (const auto& s : out.load.specs)
    if (kernel.empty() || s.id == kernel) out.selected.push_back(&s);
  if (out.selected.empty())
    out.exit_code = report(make_error(kernel.empty() ? "no marked kernels found"
                                                     : "no kernel with id '" + kernel + "'"));
  return out;
}

}  // namespace kev::cli
