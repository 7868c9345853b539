#pragma once
// The JSON-lines protocol between the tuner and its worker processes: one request per line
// on the worker's stdin, one response per line on its stdout. Compiled images travel as
// base64. Versioned, so a stale worker binary is refused instead of misread.
#include <string>

#include "core/device.h"
#include "core/result.h"
#include "core/runner.h"

namespace kev::cuda {

inline constexpr int kWorkerProtocolVersion = 2;  // 2: images carry their launch (Triton)

struct WorkerRequest {
  enum class Op { device, run, quit } op = Op::device;
  RunRequest run;          // op == run
  double copy_gbps = 0.0;  // ceilings already measured by an earlier worker (0 = measure)
  double read_gbps = 0.0;
};

struct WorkerResponse {
  bool ok = true;
  Error error;        // !ok: why (no GPU...)
  DeviceInfo device;  // op == device (and with every run, for the ceilings)
  RunReport report;   // op == run
};

[[nodiscard]] std::string encode_request(const WorkerRequest& request);
[[nodiscard]] Result<WorkerRequest> decode_request(const std::string& line);
[[nodiscard]] std::string encode_response(const WorkerResponse& response);
[[nodiscard]] Result<WorkerResponse> decode_response(const std::string& line);

[[nodiscard]] std::string base64_encode(const std::string& bytes);
[[nodiscard]] std::optional<std::string> base64_decode(const std::string& text);

}  // namespace kev::cuda
