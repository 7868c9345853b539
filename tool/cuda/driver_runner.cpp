#include "cuda/driver_runner.h"

#include <algorithm>

#include "core/arg_layout.h"
#include "core/params_text.h"
#include "core/run_summary.h"
#include "cuda/driver.h"
#include "cuda/nvml_clock.h"
#include "cuda/shape_run.h"

namespace kev::cuda {

namespace {

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

class Module {
 public:
  ~Module() {
    if (module_ && !leak_) cuModuleUnload(module_);
  }
  bool leak_ = false;  // set when the context is lost: unloading would wait on the device
  CUresult load(const std::string& image) { return cuModuleLoadData(&module_, image.data()); }
  CUresult function(const std::string& name, CUfunction* fn) {
    return cuModuleGetFunction(fn, module_, name.c_str());
  }

 private:
  CUmodule module_ = nullptr;
};

// What the candidate takes of the GPU (the driver's view of the loaded image); the dynamic
// shared memory is the launch's at the largest tuned problem.
KernelResources resources_of(CUfunction fn, const RunRequest& request, int sm_count) {
  KernelResources r;
  int v = 0;
  if (cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, fn) == CUDA_SUCCESS) r.registers = v;
  if (cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn) == CUDA_SUCCESS)
    r.shared_bytes = v;
  if (cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn) == CUDA_SUCCESS)
    r.local_bytes = v;
  unsigned dynamic = 0;
  for (const auto& p : request.spec.problems)
    if (auto layout = resolve_problem(request.spec, request.params, p, sm_count))
      dynamic = std::max(dynamic, layout->launch.shared_bytes);
  if (request.candidate.launch.shared_bytes) dynamic = *request.candidate.launch.shared_bytes;
  r.shared_bytes += static_cast<int>(dynamic);
  return r;
}

}  // namespace

ProblemResult ShapeRun::run(bool timed) {
  ProblemResult out;
  out.problem = problem_.to_string();
  out.timed = timed;
  auto finish = [&](Failure f) {
    out.disposition = f.disposition;
    out.detail = std::move(f.detail);
    context_lost = context_lost || f.context_lost;
    return out;
  };
  if (Failure f = setup()) return finish(f);
  const int rounds = std::max(2, req_.timing.verify_rounds);
  for (int round = 0; round < rounds; ++round) {
    const Fill fill = round % 2 == 1 ? Fill::decoy : Fill::poison;
    if (Failure f = verify_round(static_cast<std::size_t>(round), fill)) return finish(f);
  }
  if (!timed) return out;
  if (Failure f = time(out)) return finish(f);
  // Verify again after timing, on inputs no timed launch saw, from poisoned outputs.
  const std::size_t fresh = std::max(static_cast<std::size_t>(rounds), timing_sets());
  if (Failure f = verify_round(fresh, Fill::poison)) {
    f.detail += " (after timing)";
    return finish(f);
  }
  apply_bandwidth(out, layout_.bytes, r_.info_, req_.timing.ceiling_margin);
  return out;
}

// ---------------------------------------------------------------------------------------

RunReport DriverRunner::run(const RunRequest& request) {
  RunReport report;
  auto finish = [&](Disposition d, std::string detail) {
    report.outcome.disposition = d;
    report.outcome.detail = std::move(detail);
    report.context_lost = context_lost_;
    return report;
  };
  if (context_lost_) return finish(Disposition::crashed, "the device context was lost earlier");
  if (!ceilings_measured_) {
    if (auto s = measure_ceilings(); !s) return finish(Disposition::invalid, s.error().message);
  }
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(request.timing.timeout_seconds));
  // The cache of inputs and reference outputs holds for one reference on one spec.
  const std::string key = request.spec.id + "|" + request.reference.function + "|" +
                          std::to_string(fnv1a(request.reference.image)) + "|" +
                          params_text(request.reference_params, ",", "") + "|" +
                          std::to_string(request.timing.seed);
  if (key != reference_key_) {
    shapes_.clear();
    reference_key_ = key;
  }
  Module candidate_module, reference_module;
  CUfunction candidate = nullptr, reference = nullptr;
  if (CUresult e = candidate_module.load(request.candidate.image); e != CUDA_SUCCESS) {
    context_lost_ = is_context_fatal(e);
    return finish(Disposition::launch_failed, "cannot load the compiled image: " + driver_error(e));
  }
  if (CUresult e = candidate_module.function(request.candidate.function, &candidate);
      e != CUDA_SUCCESS)
    return finish(Disposition::launch_failed, "kernel '" + request.candidate.function +
                                                  "' not in the image: " + driver_error(e));
  if (CUresult e = reference_module.load(request.reference.image); e != CUDA_SUCCESS)
    return finish(Disposition::invalid, "cannot load the reference image: " + driver_error(e));
  if (CUresult e = reference_module.function(request.reference.function, &reference);
      e != CUDA_SUCCESS)
    return finish(Disposition::invalid, "reference kernel '" + request.reference.function +
                                            "' not in its image: " + driver_error(e));

  report.sm_clock_mhz_before = live_sm_clock_mhz();
  std::vector<std::pair<const Problem*, bool>> shapes;
  for (const auto& p : request.spec.problems) shapes.emplace_back(&p, request.time_it);
  for (const auto& p : request.spec.validate) shapes.emplace_back(&p, false);
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    ShapeRun shape(*this, request, candidate, reference, *shapes[s].first, s, deadline);
    ProblemResult pr = shape.run(shapes[s].second);
    if (shape.context_lost) context_lost_ = true;
    const bool passed = pr.disposition == Disposition::passed;
    report.problems.push_back(std::move(pr));
    if (!passed) break;  // the first failure decides the outcome
  }
  if (context_lost_) candidate_module.leak_ = reference_module.leak_ = true;
  report.sm_clock_mhz_after = context_lost_ ? 0 : live_sm_clock_mhz();
  if (report.sm_clock_mhz_before > 0 && report.sm_clock_mhz_after > 0) {
    if (auto reason = nvml_throttle_reason(info_.index); !reason.empty())
      report.warnings = "GPU clock throttled (" + reason + "): SM clock " +
                        std::to_string(report.sm_clock_mhz_after) + " MHz";
  }
  for (const auto& pr : report.problems) {
    if (pr.disposition != Disposition::passed)
      return finish(pr.disposition, failed_shape_detail(pr));
  }
  summarize_passed(report);
  if (report.outcome.passed())
    report.outcome.resources = resources_of(candidate, request, info_.sms);
  report.context_lost = context_lost_;
  return report;
}

}  // namespace kev::cuda
