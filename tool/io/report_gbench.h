#pragma once
// Google Benchmark's JSON output format (context + benchmarks, real_time in microseconds),
// so github-action-benchmark (tool: googlecpp) and Bencher (json adapter: cpp_google) can
// ingest kernelevo results into existing dashboards.
#include <string>

#include "core/report.h"

namespace kev::io {

// One benchmark per kernel with a time: "<id>/<arch>/<device>", real_time = cpu_time =
// the kernel's time (compare: the head's); kernels without a time are left out.
[[nodiscard]] std::string report_gbench(const Report& report, const std::string& host_name);

}  // namespace kev::io
