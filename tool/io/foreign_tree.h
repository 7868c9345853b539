#pragma once
// Which directories a walk of a project's tree leaves out, because what they hold is not the
// project's own source: another project (a vendored copy, a submodule, a FetchContent
// checkout), a build tree, or a folder named as such trees usually are. The directory a walk
// starts from is never judged, so `.`, `./` and an absolute path of the same directory read
// the same files, and a file or directory named on the command line is always read.
#include <filesystem>
#include <string_view>

namespace kev {

enum class TreeKind { own, hidden, build, other_project, vendored };

// What `dir`, a subdirectory met while walking a project, holds; a walk enters `own` ones
// only. The first rule that applies:
//   - hidden: its name starts with '.' (.git, .cache, ...)
//   - a build tree: it holds CMakeCache.txt
//   - another project: it holds a `.git` (a clone, or a submodule's `.git` file), or a
//     CMakeLists.txt that calls project() (a subproject's own top-level file; one included
//     through add_subdirectory without a project() call is the project's own)
//   - vendored or built: its name is third_party, 3rdparty, external, extern, vendor,
//     _deps, or starts with build or cmake-build
// What .gitignore ignores is not consulted (git runs only in the cuda layer); the names above
// cover the common ignored trees.
[[nodiscard]] TreeKind classify_subdirectory(const std::filesystem::path& dir);

// Whether CMake text calls project(): a `project(` command outside `#` comments, any case.
[[nodiscard]] bool calls_cmake_project(std::string_view cmake_text);

}  // namespace kev
