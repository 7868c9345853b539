#pragma once
// The one place where the GPU side of the commands is assembled: NVRTC and nvcc, each behind
// the compile cache, and the worker processes (one per GPU). A build without CUDA compiles
// gpu_backend_stub.cpp instead, whose every GPU command is an environment error (and
// evolve_gpu.h's open_evolve_gpu), so the CLI needs no #if. Includes core headers only, for
// that reason.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/compiler.h"
#include "core/device.h"
#include "core/evaluation.h"
#include "core/measurer.h"
#include "core/result.h"
#include "core/runner.h"
#include "core/tune_backend.h"

namespace kev::cuda {

// False in a build without CUDA: the GPU commands say so, hidden ones are not offered.
[[nodiscard]] bool have_gpu();

// `tune`'s backend: the compilers are shared by every kernel and GPU.
[[nodiscard]] std::unique_ptr<TuneBackend> make_tune_backend();
// The same on given compilers (NVRTC's and nvcc's; they must outlive it) and workers
// (`start_worker(gpu)`): tests run the whole tune on fakes (tests/support/fakes.h).
// `triton` compiles .py sources (none: they fail to compile, Triton not found).
[[nodiscard]] std::unique_ptr<TuneBackend> make_tune_backend(
    Compiler& nvrtc, Compiler& nvcc, std::function<std::unique_ptr<Runner>(int)> start_worker,
    Compiler* triton = nullptr);

// Why Triton kernels cannot be compiled here ("Triton not found: set KERNELEVO_PYTHON ..."),
// or nullopt when the interpreter imports triton. Starts Python once.
[[nodiscard]] std::optional<std::string> triton_unavailable();

// One configuration of a Triton spec compiled for `arch` ("sm_90"), through the compile
// cache, without a GPU: what `triton-build` embeds in a build. Without CUDA, a failure.
[[nodiscard]] CompileOutput compile_triton(const KernelSpec& spec, const ParamSet& params,
                                           const std::string& arch);

// The Measurer of `check` and `compare` on GPU `device`, probed now: an error
// (ExitCode::environment) when there is no usable GPU.
// `timeout_seconds`: one evaluation's limit, 0 for the runner's default.
[[nodiscard]] Result<std::unique_ptr<Measurer>> make_spec_measurer(int device, std::uint64_t seed,
                                                                   double timeout_seconds);

// `export --torch`'s compile of `spec` with `params` for `arch` (the spec's own `arch` wins),
// with the reference kernel too when `with_reference`: the compiler `tune` used for the
// source (nvcc, or NVRTC for device-only code with `device_code` nvrtc: the entry's),
// behind the same disk cache, so the cubin is the one tune verified. Needs the toolkit,
// not a GPU; an error (ExitCode::environment) in a build without CUDA.
[[nodiscard]] Result<CompileOutput> compile_for_export(const KernelSpec& spec,
                                                       const std::string& source_text,
                                                       const ParamSet& params,
                                                       const std::string& arch, bool with_reference,
                                                       DeviceCodeCompiler device_code);

// GPU `index`'s facts, measured by a worker started for it.
[[nodiscard]] Result<DeviceInfo> probe_device(int index);

// `kernelevo worker --device N`: serves the worker protocol on stdin/stdout; the exit code.
int serve_gpu_worker(int device);

}  // namespace kev::cuda
