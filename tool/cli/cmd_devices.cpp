// `kernelevo devices`: the GPUs this machine has, with measured bandwidth ceilings.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cuda/gpu_backend.h"
#include "io/device_json.h"

namespace kev::cli {
namespace {

struct DevicesArgs {
  std::string format = "text";
  std::vector<int> devices;
};

int run_devices(const DevicesArgs& args) {
  std::vector<int> indices = args.devices.empty() ? std::vector<int>{0} : args.devices;
  std::vector<DeviceInfo> found;
  // Without explicit --device, list GPUs 0, 1, ... until one does not exist.
  for (std::size_t i = 0; i < indices.size(); ++i) {
    auto info = cuda::probe_device(indices[i]);
    if (!info) {
      if (found.empty() || !args.devices.empty())
        return report(make_error("no GPU: " + info.error().message, {}, ExitCode::environment));
      break;
    }
    found.push_back(*info);
    if (args.devices.empty()) indices.push_back(indices[i] + 1);
  }
  if (args.format == "json") {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& d : found) arr.push_back(kev::io::device_to_json<nlohmann::ordered_json>(d));
    std::cout << arr.dump(2) << '\n';
    return 0;
  }
  std::printf("%-3s %-22s %-7s %5s %8s %10s %10s %10s %9s  %s\n", "gpu", "name", "arch", "SMs",
              "L2", "memory", "copy GB/s", "read GB/s", "SM clock", "driver");
  for (const auto& d : found) {
    std::printf("%-3d %-22s %-7s %5d %6.0fMB %8.1fGB %10.0f %10.0f %9s  %s (CUDA %s)\n", d.index,
                d.name.c_str(), d.arch.c_str(), d.sms, static_cast<double>(d.l2_bytes) / 1e6,
                static_cast<double>(d.memory_bytes) / 1e9, d.copy_gbps, d.read_gbps,
                d.sm_clock_mhz > 0 ? (std::to_string(d.sm_clock_mhz) + "MHz").c_str() : "-",
                d.driver_version.c_str(), d.cuda_version.c_str());
    if (d.clock_source != "nvml") std::printf("    %s\n", d.clock_source.c_str());
  }
  return 0;
}

const CommandRegistrar registrar{
    "devices", [](CLI::App& app, int& exit_code) {
      if (!cuda::have_gpu()) return;  // a build without CUDA has no such command
      static DevicesArgs args;
      auto* sub = app.add_subcommand("devices", "List GPUs with their measured bandwidth ceilings");
      sub->add_option("--device", args.devices, "Only these GPU indices");
      sub->add_option("--format", args.format, "Output format")
          ->check(CLI::IsMember({"text", "json"}));
      sub->callback([&exit_code] { exit_code = run_devices(args); });
    }};

}  // namespace
}  // namespace kev::cli
