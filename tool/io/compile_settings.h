#pragma once
// A marked source's real compile settings, handed from the CMake build to the tuner
// (DESIGN.md section 8): CMake writes them as "key<TAB>value" lines at generate time
// (cmake/KernelEvo.cmake), and `kernelevo header` turns them into JSON:
//   {"schema_version": 1, "source": "/abs/src/softmax.cu", "target": "softmax_lib",
//    "compiler": "/usr/local/cuda/bin/nvcc", "compiler_launcher": "",
//    "cuda_architectures": "80;90", "cuda_standard": "17",
//    "include_dirs": [...], "defines": ["NAME=VALUE", ...], "options": [...]}
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace kev {

struct CompileSettings {
  std::string source;
  std::string target;
  std::string compiler;
  std::string compiler_launcher;
  std::string cuda_architectures;
  std::string cuda_standard;
  std::vector<std::string> include_dirs;
  std::vector<std::string> defines;
  std::vector<std::string> options;
};

// `file_name` names the input in errors. Unknown keys are errors (file:line).
[[nodiscard]] Result<CompileSettings> parse_compile_settings_lines(std::string_view text,
                                                                   const std::string& file_name);
[[nodiscard]] std::string compile_settings_json(const CompileSettings& settings);
[[nodiscard]] Result<CompileSettings> parse_compile_settings_json(std::string_view text,
                                                                  const std::string& file_name);

}  // namespace kev
