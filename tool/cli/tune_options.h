#pragma once
// Options of `kernelevo tune`, shared by the replay path (cmd_tune.cpp) and the spec/GPU
// path (tune_spec.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/compiler.h"
#include "core/result.h"
#include "core/tuner.h"

namespace kev::cli {

struct TuneOptions {
  std::vector<std::string> paths;  // .cu files, directories or kernelevo.yaml
  std::string kernel;              // --kernel ID: only this kernel
  std::string strategy = "auto";
  std::optional<std::uint64_t> budget;  // --budget N evaluations (prior ones included)
  std::string time;                     // --time 90s|5m|1h
  std::uint64_t seed = 1;
  std::string trace;              // --trace FILE: write every evaluation
  std::string resume;             // --resume FILE: continue from a trace
  std::string lockfile;           // --lockfile FILE
  std::string replay;             // --replay FILE: evaluate from a recording, no GPU
  bool noise = false;             // --noise: replay samples recorded repeats
  std::string format = "text";    // text | json
  std::string compile_settings;   // --compile-settings FILE|DIR (else $KERNELEVO_COMPILE_SETTINGS)
  std::string shard;              // --shard I/N: this runner's share of the kernels
  std::string gpus;               // --gpus all|0,1: the GPUs to tune on
  bool memcheck = false;          // --memcheck: run each winner under compute-sanitizer
  std::string l2 = "clean";       // --l2: core/l2_choice.h's names
  std::string compiler = "nvcc";  // --compiler nvcc|nvrtc: what compiles device-only sources
  std::string report;             // --report DIR: write the run's reports there
  std::string timeout;            // --timeout 90s|5m: one evaluation's limit, references included
};

// --compiler as the tuner's choice for CUDA C++ without host code.
[[nodiscard]] inline DeviceCodeCompiler device_code_of(const TuneOptions& options) {
  return kev::device_code_of(options.compiler);
}

// Evaluations used when neither --budget nor --time is given (exhaustive: no limit).
inline constexpr std::uint64_t kDefaultBudget = 200;

// The budget the options ask for (--budget, --time, else the default).
Result<TuneBudget> tune_budget(const TuneOptions& options);

// The GPUs --gpus names: empty is GPU 0; "N" is GPU N; "0,1" a list (sorted, no repeats);
// "all" is an empty list: every GPU the machine has, found by asking workers.
Result<std::vector<int>> tune_devices(const TuneOptions& options);

}  // namespace kev::cli
