#pragma once
// Where `kernelevo init` finds the kernel templates: $KERNELEVO_TEMPLATES_DIR, else the
// installed data directory next to the executable (<prefix>/share/kernelevo/templates),
// else the source tree the binary was built from.
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.h"

namespace kev::cli {

struct TemplateInfo {
  std::string name;         // file name without ".cu"
  std::string description;  // the file's first comment line
  std::filesystem::path path;
};

[[nodiscard]] Result<std::filesystem::path> find_template_dir();
// The templates in `dir`, sorted by name.
[[nodiscard]] std::vector<TemplateInfo> list_templates(const std::filesystem::path& dir);

}  // namespace kev::cli
