#pragma once
// One kernel on one problem shape inside DriverRunner::run, in phases kept in their own
// files: buffers and seeded inputs (run_inputs.cpp), verification against the reference
// (verifier.cpp), timing (timer.cpp); run() in driver_runner.cpp puts them in order.
// Internal to the runner: only those files and driver_runner.cpp include it.
#include <cuda.h>

#include <chrono>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "core/arg_roles.h"
#include "cuda/driver_runner.h"

namespace kev::cuda {

using Clock = std::chrono::steady_clock;

// Where a failure leaves the run.
struct Failure {
  Disposition disposition = Disposition::passed;
  std::string detail;
  bool context_lost = false;
  explicit operator bool() const { return disposition != Disposition::passed; }
};

inline Failure fail(Disposition d, std::string detail, bool lost = false) {
  return Failure{d, std::move(detail), lost};
}

// One kernel on one problem shape: buffers, verification rounds, timing.
class ShapeRun {
 public:
  ShapeRun(DriverRunner& runner, const RunRequest& request, CUfunction candidate,
           CUfunction reference, const Problem& problem, std::size_t shape_index,
           Clock::time_point deadline)
      : r_(runner),
        req_(request),
        candidate_(candidate),
        reference_(reference),
        problem_(problem),
        shape_index_(shape_index),
        deadline_(deadline) {}

  ProblemResult run(bool timed);
  ~ShapeRun() {
    if (context_lost)  // freeing would wait for a kernel that may never finish
      for (auto& b : work_) b.leak();
  }
  bool context_lost = false;

 private:
  // Outputs before a run: the poison pattern, finite decoys, or the poison's complement (a
  // second reference run's, to tell data that equals the poison from unwritten elements).
  enum class Fill { poison, decoy, complement };
  Failure setup();
  Failure ensure_round(std::size_t round);
  Failure prepare(std::size_t round, Fill fill);
  // `pointers`: the pointer arguments' values (a rotating set), else the work buffers'.
  Failure launch(CUfunction fn, const ResolvedProblem& layout,
                 const std::vector<CUdeviceptr>* pointers = nullptr);
  // Argument `arg`'s tensor map for the buffer at `address`, encoded once per layout and
  // address, before the launches that are timed use it.
  Result<CUtensorMap*> tensor_map(const ResolvedProblem& layout, std::size_t arg,
                                  CUdeviceptr address);
  Failure encode_maps(const std::vector<std::vector<CUdeviceptr>>& pointer_sets);
  CUresult flush_l2();
  Failure wait(const char* what);
  // The reference kernel launched on the work buffers and waited for; its failures say
  // "reference kernel" (invalid, or crashed where the context is lost).
  Failure run_reference();
  Failure verify_round(std::size_t round, Fill fill);
  Failure check_outputs(std::size_t round, Fill fill, const std::string& when);
  Failure check_const(std::size_t round, const std::string& when);
  // The reference must write every element of its outputs, or no candidate could match it.
  // Round `round`'s expected outputs are in `rd`; an element holding the poison is unwritten
  // only if a second run over outputs filled with the poison's complement leaves that too.
  Failure check_reference_coverage(const DriverRunner::RoundData& rd, std::size_t round);
  // How many input sets timed launches rotate over (rounds 0..n-1), and whether each timed
  // launch's outputs are compared (else a sample of them).
  std::size_t timing_sets() const;
  bool verify_every_launch(double launch_us) const;
  Failure time(ProblemResult& out);
  Failure time_batched(ProblemResult& out, std::size_t input_sets);
  // Keeps sampling until TimingOptions' counts and durations say stop; `sample` adds one
  // or returns a failure.
  Failure sample_until_done(ProblemResult& out,
                            const std::function<Failure(std::vector<double>&)>& sample,
                            int samples_per_call, std::vector<double> samples = {});
  Result<CompareCounters> compare(CUdeviceptr expected, CUdeviceptr got, std::size_t count,
                                  ScalarType type, const Tolerance& tol, bool check_poison);
  Result<CompareCounters> compare_bytes(CUdeviceptr expected, CUdeviceptr got, std::size_t bytes);
  Failure after_launch(CUresult r, const char* what);

  DriverRunner& r_;
  const RunRequest& req_;
  CUfunction candidate_;
  CUfunction reference_;
  const Problem& problem_;
  std::size_t shape_index_;
  Clock::time_point deadline_;
  ResolvedProblem layout_;
  DriverRunner::ShapeData* data_ = nullptr;
  std::vector<GuardedBuffer> work_;
  // The buffers timed launches point at (address, bytes): the flush returns their L2 lines to
  // the normal eviction priority before it evicts.
  std::vector<std::pair<CUdeviceptr, std::size_t>> timed_buffers_;
  std::vector<CUdeviceptr> pointer_values_;
  struct EncodedMap {
    const ResolvedProblem* layout;
    std::size_t arg;
    CUdeviceptr address;
    CUtensorMap map;
  };
  std::deque<EncodedMap> maps_;  // stable addresses: launches point at them
};

}  // namespace kev::cuda
