// `kernelevo worker --device N`: the measuring process the tuner starts, one per GPU. It
// speaks JSON lines on stdin/stdout (cuda/worker_protocol.h) and is not meant for people.
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cuda/gpu_backend.h"

namespace {

struct WorkerArgs {
  int device = 0;
};

kev::cli::CommandRegistrar reg{
    "worker", [](CLI::App& app, int& exit_code) {
      if (!kev::cuda::have_gpu()) return;
      static WorkerArgs args;
      auto* sub = app.add_subcommand("worker", "GPU worker process (internal)");
      sub->group("");  // hidden from --help
      sub->add_option("--device", args.device, "GPU index");
      sub->callback([&exit_code] { exit_code = kev::cuda::serve_gpu_worker(args.device); });
    }};

}  // namespace
