#include "cuda/toolkit.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

#include "io/subprocess.h"

namespace kev::cuda {
namespace fs = std::filesystem;

namespace {

// nvcc --dryrun prints its settings, "#$ TOP=/opt/cuda/bin/.." among them: the toolkit that
// nvcc really runs from, also when the nvcc on PATH is a wrapper script somewhere else.
std::string include_dir_nvcc_reports(const std::string& nvcc) {
  const auto r =
      io::run_process({nvcc, "--dryrun", "-x", "cu", "-c", "/dev/null", "-o", "/dev/null"},
                      io::scrubbed_environment(), 30.0);
  if (!r.started || r.timed_out || r.exit_code != 0) return {};
  std::istringstream lines(r.output);
  const std::string key = "#$ TOP=";
  for (std::string line; std::getline(lines, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::error_code ec;
    const fs::path dir = fs::weakly_canonical(fs::path(line.substr(key.size())) / "include", ec);
    if (!ec && fs::exists(dir / "cuda_runtime.h", ec)) return dir.string();
  }
  return {};
}

std::string include_dir_beside(const std::string& nvcc) {
  const fs::path path = nvcc;
  if (!path.has_parent_path()) return "/usr/local/cuda/include";
  return (path.parent_path().parent_path() / "include").string();
}

}  // namespace

std::string nvcc_path() {
  if (const char* env = std::getenv("KERNELEVO_NVCC"); env != nullptr && *env != '\0') return env;
#ifdef KERNELEVO_NVCC
  return KERNELEVO_NVCC;
#else
  return "nvcc";
#endif
}

std::string toolkit_include_dir() {
  static std::mutex mutex;
  static std::map<std::string, std::string> found;  // nvcc path -> its include directory
  const std::string nvcc = nvcc_path();
  const std::lock_guard lock(mutex);
  auto it = found.find(nvcc);
  if (it == found.end()) {
    std::string dir = include_dir_nvcc_reports(nvcc);
    if (dir.empty()) dir = include_dir_beside(nvcc);
    it = found.emplace(nvcc, std::move(dir)).first;
  }
  return it->second;
}

}  // namespace kev::cuda
