#include "cuda/memcheck.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cuda/files.h"
#include "cuda/toolkit.h"
#include "cuda/worker_client.h"

namespace kev::cuda {
namespace fs = std::filesystem;

std::string find_compute_sanitizer() {
  if (const char* env = std::getenv("KERNELEVO_COMPUTE_SANITIZER"); env != nullptr && *env != '\0')
    return env;
  std::error_code ec;
  const fs::path nvcc = nvcc_path();
  if (nvcc.has_parent_path()) {
    const fs::path beside = nvcc.parent_path() / "compute-sanitizer";
    if (fs::exists(beside, ec)) return beside.string();
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
      const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "compute-sanitizer";
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
  }
  return {};
}

namespace {

// The lines of the sanitizer's log that describe errors, at most `max_lines`.
std::string error_lines(const std::string& log, std::size_t max_lines) {
  std::istringstream in(log);
  std::string out;
  std::size_t kept = 0;
  for (std::string line; std::getline(in, line) && kept < max_lines;) {
    if (line.find("=========") == std::string::npos) continue;
    if (line.find("ERROR SUMMARY") != std::string::npos) continue;
    const auto text = line.substr(line.find("=========") + 9);
    if (text.find_first_not_of(' ') == std::string::npos) continue;
    out += text + "\n";
    ++kept;
  }
  return out;
}

}  // namespace

MemcheckResult memcheck_params(GpuEvaluator& evaluator, const ParamSet& params, int device,
                               const DeviceInfo& info) {
  MemcheckResult result;
  const std::string sanitizer = find_compute_sanitizer();
  if (sanitizer.empty()) {
    result.summary = "compute-sanitizer not found (beside nvcc or on PATH)";
    return result;
  }
  std::string log_path = (fs::temp_directory_path() / "kernelevo-memcheck-XXXXXX").string();
  const int fd = ::mkstemp(log_path.data());
  if (fd < 0) {
    result.summary = "cannot create a log file for compute-sanitizer";
    return result;
  }
  ::close(fd);

  std::vector<std::string> command = {sanitizer, "--tool",        "memcheck", "--log-file",
                                      log_path,  "--print-limit", "20"};
  for (auto& word : WorkerRunner::self_command(device)) command.push_back(std::move(word));
  TimingOptions timing;
  timing.verify_rounds = 1;
  timing.timeout_seconds = 600.0;  // memcheck slows kernels down by orders of magnitude
  {
    WorkerRunner worker(command, 600.0);
    worker.assume_device(info);
    result.report = evaluator.run_params_on(worker, params, timing, false);
    worker.quit(120.0);
  }
  const std::string log = read_whole_file(log_path, kMaxToolOutputBytes).value_or("");
  std::error_code ec;
  fs::remove(log_path, ec);

  const auto at = log.find("ERROR SUMMARY:");
  if (at == std::string::npos) {
    result.summary =
        std::string("compute-sanitizer wrote no summary (") +
        to_string(result.report.outcome.disposition) +
        (result.report.outcome.detail.empty() ? "" : ": " + result.report.outcome.detail) + ")";
    return result;
  }
  result.ran = true;
  std::istringstream summary(log.substr(at + 14));
  long errors = -1;
  summary >> errors;
  result.clean = errors == 0 && result.report.outcome.passed();
  if (errors != 0) {
    result.summary = std::to_string(errors) + " memcheck errors:\n" + error_lines(log, 12);
  } else if (!result.report.outcome.passed()) {
    result.summary = std::string("0 memcheck errors, but the run under the sanitizer was ") +
                     to_string(result.report.outcome.disposition) + ": " +
                     result.report.outcome.detail;
  } else {
    result.summary = "0 errors";
  }
  return result;
}

}  // namespace kev::cuda
