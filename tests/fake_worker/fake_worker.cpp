// A stand-in for `kernelevo worker` that needs no GPU, for tests of the tuner's side of
// the worker protocol (several workers, one per GPU). Run as the worker wrapper:
//   KERNELEVO_WORKER_WRAPPER=kernelevo_fake_worker kernelevo tune ... --gpus 0,1
// it receives `<kernelevo> worker --device N`, answers every device request as an H200-like
// GPU N and every run as passed, with a time that depends only on the parameters, after
// sleeping KERNELEVO_FAKE_RUN_MS (default 100) milliseconds. With KERNELEVO_FAKE_LOG set it
// appends "device kernel start_ns end_ns" per run to that file. With KERNELEVO_FAKE_WARNING
// set, every run reports that text as a warning (a throttled GPU). With KERNELEVO_FAKE_MARKER
// and KERNELEVO_FAKE_MARKER_LOG set, each run appends "found" or "absent" to that file:
// whether the candidate's compiled image holds the marker text (which source was compiled).
// With KERNELEVO_FAKE_PROBLEM_LOG set, each run appends "kernel problem problem ..." (the
// problems the run was asked to measure). With KERNELEVO_FAKE_RESOURCES set, each passed run
// reports kernel resources (registers, shared and local bytes) that also depend only on the
// parameters. With KERNELEVO_FAKE_LAUNCH_LOG set, each run appends "candidate_function block
// shared trailing reference_function block shared trailing" (what the images' compilers
// decided of their launch, - where the spec decides). With KERNELEVO_FAKE_BASELINE_US set, a
// run of the source defaults (its parameters are the reference's: the baseline) takes that time.
// With KERNELEVO_FAKE_SLOW_MARKER set, a run whose compiled image holds that text takes twice
// as long (a compile that costs, as a size constant that raises registers can).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <thread>

#include "cuda/worker_protocol.h"

namespace {

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Appends `line` to the file named by environment variable `variable`, if it is set.
void append_to(const char* variable, const std::string& line) {
  const char* path = std::getenv(variable);
  if (path == nullptr) return;
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!::write(fd, line.data(), line.size());
  ::close(fd);
}

void log_run(int device, const std::string& kernel, long long start, long long end) {
  append_to("KERNELEVO_FAKE_LOG", std::to_string(device) + " " + kernel + " " +
                                      std::to_string(start) + " " + std::to_string(end) + "\n");
}

void log_marker(const std::string& image) {
  const char* marker = std::getenv("KERNELEVO_FAKE_MARKER");
  if (marker == nullptr) return;
  append_to("KERNELEVO_FAKE_MARKER_LOG",
            image.find(marker) != std::string::npos ? "found\n" : "absent\n");
}

void log_launch(const kev::RunRequest& request) {
  const auto part = [](const kev::KernelImage& k) {
    return k.function + " " +
           (k.launch.block_threads ? std::to_string(*k.launch.block_threads) : "-") + " " +
           (k.launch.shared_bytes ? std::to_string(*k.launch.shared_bytes) : "-") + " " +
           std::to_string(k.launch.trailing_null_pointers);
  };
  append_to("KERNELEVO_FAKE_LAUNCH_LOG",
            part(request.candidate) + " " + part(request.reference) + "\n");
}

void log_timing(const kev::RunRequest& request) {
  append_to("KERNELEVO_FAKE_TIMING_LOG", std::string(kev::timing_method(request.timing)) + "\n");
}

void log_problems(const kev::RunRequest& request) {
  std::string line = request.spec.id;
  for (const auto& p : request.spec.problems) line += " " + p.to_string();
  append_to("KERNELEVO_FAKE_PROBLEM_LOG", line + "\n");
}

kev::RunReport fake_run(const kev::RunRequest& request) {
  std::string key;
  for (const auto& [name, value] : request.params) key += name + "=" + value.to_string() + ";";
  const std::size_t hash = std::hash<std::string>{}(key);
  double us = 10.0 + static_cast<double>(hash % 1000) / 10.0;
  if (const char* base = std::getenv("KERNELEVO_FAKE_BASELINE_US");
      base != nullptr && request.params == request.reference_params)
    us = std::atof(base);
  if (const char* slow = std::getenv("KERNELEVO_FAKE_SLOW_MARKER");
      slow != nullptr && request.candidate.image.find(slow) != std::string::npos)
    us *= 2.0;
  kev::RunReport report;
  if (const char* warning = std::getenv("KERNELEVO_FAKE_WARNING")) report.warnings = warning;
  report.outcome.disposition = kev::Disposition::passed;
  report.outcome.time_us = us;
  report.outcome.ci_low_us = us * 0.995;  // the median's 95% interval, as the real timer gives
  report.outcome.ci_high_us = us * 1.005;
  if (std::getenv("KERNELEVO_FAKE_RESOURCES") != nullptr)
    report.outcome.resources = kev::KernelResources{static_cast<int>(16 + (hash / 1000) % 97),
                                                    static_cast<int>((hash / 97000) % 3) * 1024, 0};
  for (const auto& p : request.spec.problems) {
    kev::ProblemResult r;
    r.problem = p.to_string();
    r.timed = true;
    r.time_us = us;
    r.samples_us = {us * 0.999, us, us * 1.001};
    report.problems.push_back(r);
  }
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  int device = 0;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--device") device = std::atoi(argv[i + 1]);
  const char* run_ms = std::getenv("KERNELEVO_FAKE_RUN_MS");
  const int sleep_ms = run_ms != nullptr ? std::atoi(run_ms) : 100;

  for (std::string line; std::getline(std::cin, line);) {
    auto request = kev::cuda::decode_request(line);
    kev::cuda::WorkerResponse response;
    response.device.index = device;
    response.device.name = "Fake H200";
    response.device.arch = "sm_90";
    response.device.sms = 132;
    response.device.copy_gbps = 4000.0;
    response.device.read_gbps = 4200.0;
    response.device.cuda_version = "13.0";
    response.device.clock_source = "fake";
    if (!request) {
      response.ok = false;
      response.error = request.error();
    } else if (request->op == kev::cuda::WorkerRequest::Op::quit) {
      return 0;
    } else if (request->op == kev::cuda::WorkerRequest::Op::run) {
      log_marker(request->run.candidate.image);
      log_problems(request->run);
      log_launch(request->run);
      log_timing(request->run);
      const long long start = now_ns();
      std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
      response.report = fake_run(request->run);
      log_run(device, request->run.spec.id, start, now_ns());
    }
    std::cout << kev::cuda::encode_response(response) << std::endl;
  }
  return 0;
}
