#pragma once
// The tuner's side of a worker process (DESIGN.md section 7): a Runner that forwards each
// request to a child process over pipes, with a watchdog. A child that crashes or hangs is
// killed and restarted on the next request; the evaluation it was running is recorded as
// `crashed` or `timeout`, and the tuner carries on.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "core/runner.h"
#include "cuda/worker_protocol.h"

namespace kev::cuda {

class WorkerRunner final : public Runner {
 public:
  // `command`: the worker's argv (normally {this binary, "worker", "--device", "N"}).
  // `grace_seconds`: how long past a request's own timeout the watchdog waits (module
  // loading, first-run bandwidth measurement).
  explicit WorkerRunner(std::vector<std::string> command, double grace_seconds = 60.0);
  ~WorkerRunner() override;
  WorkerRunner(const WorkerRunner&) = delete;
  WorkerRunner& operator=(const WorkerRunner&) = delete;

  Result<DeviceInfo> device_info() override;
  RunReport run(const RunRequest& request) override;

  [[nodiscard]] int restarts() const { return restarts_; }
  [[nodiscard]] bool running() const { return pid_ > 0; }

  // Ends the worker: asks it to quit and waits up to `wait_seconds` before killing it (a
  // worker under a sanitizer writes its report on the way out).
  void quit(double wait_seconds);

  // Tells a new worker the device (and its ceilings) another worker already measured, so it
  // does not measure them again.
  void assume_device(const DeviceInfo& device) { device_ = device; }

  // The argv that runs this executable's own worker subcommand on `device`, after the
  // words of $KERNELEVO_WORKER_WRAPPER when set (a program that runs the worker for us,
  // such as a debugger or a sanitizer).
  [[nodiscard]] static std::vector<std::string> self_command(int device);

 private:
  enum class Exchange { ok, timeout, died, start_failed };
  Exchange exchange(const std::string& request, double timeout_seconds, std::string& response,
                    std::string& why);
  bool start(std::string& why);
  void stop(bool kill_now, double wait_seconds = 2.0);
  void reap(std::string& why);

  std::vector<std::string> command_;
  double grace_seconds_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string pending_;  // bytes read past the last newline
  int restarts_ = 0;
  bool started_once_ = false;
  std::optional<DeviceInfo> device_;
};

}  // namespace kev::cuda
