#pragma once
// Finds the project headers a source reads, for the compile cache key of NVRTC compiles
// (NVRTC has no dependency output, unlike nvcc's -MD). Conservative: every #include line is
// followed whatever #if surrounds it, so a header in a disabled branch still counts.
// Headers that resolve to no file (the toolkit's, the C++ library's) are skipped: the
// compiler identity covers them, as do headers under `excluded_dir`.
#include <string>
#include <vector>

namespace kev::cuda {

// "..." includes are looked up beside the including file, then in `include_dirs`;
// <...> includes in `include_dirs` only. Returns absolute paths, sorted and unique.
[[nodiscard]] std::vector<std::string> scan_includes(const std::string& source_text,
                                                     const std::string& source_path,
                                                     const std::vector<std::string>& include_dirs,
                                                     const std::string& excluded_dir = {});

}  // namespace kev::cuda
