#include <algorithm>

#include "core/poison.h"
#include "core/run_seeds.h"
#include "core/stats.h"
#include "core/timing_plan.h"
#include "core/verify.h"
#include "cuda/driver.h"
#include "cuda/helper_kernels.h"
#include "cuda/shape_run.h"

namespace kev::cuda {

// The timed buffers' L2 lines first go back to the normal eviction priority (a line a kernel
// marked evict_last would outlive the writes below and be found cached next launch). Every SM
// then runs 256 KiB of other code, so the kernel's own code is not waiting in the
// instruction caches from its previous launch. Then writing a buffer twice the L2's size
// evicts everything (that code included), and reading it back evicts the dirty lines that
// write left (written back now, outside the timed region), so the kernel starts from a cold,
// clean L2 and is not charged for the harness's own write-backs. With dirty_l2 the read is
// left out: the kernel starts among those dirty lines.
namespace {

// Names the buffers a timing loop's flushes demote, for as long as they live: cleared on
// leaving the loop's scope, so no later flush touches a freed copy.
class TimedBuffers {
 public:
  explicit TimedBuffers(std::vector<std::pair<CUdeviceptr, std::size_t>>& list) : list_(list) {
    list_.clear();
  }
  ~TimedBuffers() { list_.clear(); }
  TimedBuffers(const TimedBuffers&) = delete;
  TimedBuffers& operator=(const TimedBuffers&) = delete;

 private:
  std::vector<std::pair<CUdeviceptr, std::size_t>>& list_;
};

}  // namespace

CUresult ShapeRun::flush_l2() {
  if (!req_.timing.flush_l2 || !r_.flush_.get()) return CUDA_SUCCESS;
  for (auto [address, bytes] : timed_buffers_) {
    std::uint64_t n = bytes;
    void* demote_params[] = {&address, &n};
    if (CUresult e = cuLaunchKernel(r_.helpers_->demote_l2, static_cast<unsigned>(r_.info_.sms * 4),
                                    1, 1, 256, 1, 1, 0, r_.stream_, demote_params, nullptr);
        e != CUDA_SUCCESS)
      return e;
  }
  CUdeviceptr sink = r_.counters_.get();
  void* evict_params[] = {&sink};
  CUresult e = cuLaunchKernel(r_.helpers_->evict_code,
                              static_cast<unsigned>(r_.info_.sms * kEvictCodeBlocksPerSm), 1, 1, 32,
                              1, 1, 0, r_.stream_, evict_params, nullptr);
  if (e != CUDA_SUCCESS) return e;
  e = cuMemsetD32Async(r_.flush_.get(), 0x13572468u, r_.flush_.bytes() / 4, r_.stream_);
  if (e != CUDA_SUCCESS || req_.timing.dirty_l2) return e;
  CUdeviceptr src = r_.flush_.get();
  std::uint64_t n4 = r_.flush_.bytes() / 16;
  void* params[] = {&src, &n4, &sink};
  return cuLaunchKernel(r_.helpers_->read, static_cast<unsigned>(r_.info_.sms * 8), 1, 1, 256, 1, 1,
                        0, r_.stream_, params, nullptr);
}

Failure ShapeRun::sample_until_done(ProblemResult& out,
                                    const std::function<Failure(std::vector<double>&)>& sample,
                                    int samples_per_call, std::vector<double> samples) {
  const TimingOptions& t = req_.timing;
  const auto start = Clock::now();
  for (;;) {
    if (Failure f = sample(samples)) return f;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const SamplingStep step = next_sampling_step(t, samples, elapsed, samples_per_call);
    if (step == SamplingStep::stopped_early) {
      out.stopped_early = true;
      break;
    }
    if (step == SamplingStep::done) break;
  }
  out.time_us = stats::median(samples);
  const auto ci = stats::bootstrap_median_ci(samples, {0.95, 1000, t.seed});
  out.ci_low_us = ci.low;
  out.ci_high_us = ci.high;
  out.samples_us = std::move(samples);
  return {};
}

std::size_t ShapeRun::timing_sets() const {
  return timing_set_count(req_.timing, input_set_bytes(req_.spec.args, data_->reference_layout));
}

bool ShapeRun::verify_every_launch(double launch_us) const {
  return verifies_every_launch(req_.timing, compared_bytes(req_.spec.args, layout_),
                               r_.info_.copy_gbps, launch_us);
}

// Timed launches rotate over several input sets of different content (launch k runs on
// set k mod n), each set's inputs copied in before its launch, outputs poisoned and the L2
// flushed; the outputs of timed launches are compared with their set's reference (every
// launch, or a sample of them: docs/evaluator.md). A kernel that memoizes across launches
// or skips work when its input is unchanged is timed doing the work, or caught.
Failure ShapeRun::time(ProblemResult& out) {
  const TimingOptions& t = req_.timing;
  const std::size_t sets = timing_sets();
  const auto& args = req_.spec.args;
  for (std::size_t s = 0; s < sets; ++s)
    if (Failure f = ensure_round(s)) return f;
  // Const inputs: one guarded copy per set, made once (a kernel may not write them, which
  // the checks after each group see); other inputs are copied in before every launch.
  std::vector<std::vector<GuardedBuffer>> const_copies(sets);
  std::vector<std::vector<CUdeviceptr>> pointers(sets, std::vector<CUdeviceptr>(args.size(), 0));
  for (std::size_t s = 0; s < sets; ++s) {
    const_copies[s].resize(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!args[i].pointer) continue;
      pointers[s][i] = work_[i].data();
      if (role_of(args[i]) != Role::const_input) continue;
      GuardedBuffer& copy = const_copies[s][i];
      CUresult e = copy.allocate(work_[i].bytes());
      if (e == CUDA_SUCCESS) e = copy.fill_guards(r_.stream_);
      if (e == CUDA_SUCCESS)
        e = cuMemcpyDtoDAsync(copy.data(), data_->rounds[s].inputs[i].get(), copy.bytes(),
                              r_.stream_);
      if (e != CUDA_SUCCESS) return after_launch(e, "timing: copying const inputs");
      pointers[s][i] = copy.data();
    }
  }
  const auto reset = [&](std::size_t set) -> CUresult {
    const auto& rd = data_->rounds[set];
    CUresult e = CUDA_SUCCESS;
    for (std::size_t i = 0; i < args.size() && e == CUDA_SUCCESS; ++i) {
      const ArgSpec& a = args[i];
      const Role role = role_of(a);
      if (role == Role::output)
        e = fill_word(work_[i].data(), work_[i].bytes(), poison_word(a.type), size_of(a.type),
                      r_.stream_);
      else if (role == Role::input || role == Role::inout)
        e = cuMemcpyDtoDAsync(work_[i].data(), rd.inputs[i].get(), work_[i].bytes(), r_.stream_);
      else if (role == Role::scratch)
        e = cuMemsetD8Async(work_[i].data(), 0, work_[i].bytes(), r_.stream_);
    }
    return e == CUDA_SUCCESS ? flush_l2() : e;
  };
  // Set `set`'s const copies against the pristine inputs, and their guards.
  const auto check_const_copies = [&](std::size_t set, const std::string& when) -> Failure {
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (role_of(args[i]) != Role::const_input) continue;
      const GuardedBuffer& copy = const_copies[set][i];
      if (std::string g = copy.check_guards(); !g.empty())
        return fail(Disposition::incorrect, when + ": argument '" + args[i].name + "': " + g);
      auto c = compare_bytes(data_->rounds[set].inputs[i].get(), copy.data(), copy.bytes());
      if (!c)
        return fail(context_lost ? Disposition::crashed : Disposition::invalid,
                    when + ": comparison failed: " + c.error().message, context_lost);
      if (c->mismatches > 0)
        return fail(Disposition::incorrect, when + ": const input '" + args[i].name +
                                                "' of input set " + std::to_string(set + 1) +
                                                " was modified (" + std::to_string(c->mismatches) +
                                                " words changed, first at byte " +
                                                std::to_string(c->first_bad) + ")");
    }
    return {};
  };
  const TimedBuffers timed(timed_buffers_);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i].pointer) continue;
    if (role_of(args[i]) != Role::const_input)
      timed_buffers_.emplace_back(work_[i].data(), work_[i].bytes());
    else
      for (std::size_t s = 0; s < sets; ++s)
        timed_buffers_.emplace_back(const_copies[s][i].data(), const_copies[s][i].bytes());
  }
  if (Failure f = encode_maps(pointers)) return f;
  for (int w = 0; w < t.warmup_runs; ++w) {
    const std::size_t set = static_cast<std::size_t>(w) % sets;
    if (CUresult e = reset(set); e != CUDA_SUCCESS) return after_launch(e, "warm-up");
    if (Failure f = launch(candidate_, layout_, &pointers[set])) return f;
  }
  if (Failure f = wait("warm-up")) return f;

  constexpr int kBatch = static_cast<int>(TimedLaunchPlan::kGroup);
  // Three events a launch (start, end, its write-back drained), two for a clean flush.
  constexpr std::size_t kEvents = std::size_t{3} * kBatch + 2;
  while (r_.events_.size() < kEvents) {
    CUevent ev = nullptr;
    if (CUresult e = cuEventCreate(&ev, CU_EVENT_DEFAULT); e != CUDA_SUCCESS)
      return after_launch(e, "event creation");
    r_.events_.push_back(ev);
  }
  TimedLaunchPlan plan(sets, false, timed_launch_seed(t.seed, shape_index_));
  std::size_t launches = 0;  // timed launches so far
  std::size_t groups = 0;
  const auto verify_timed = [&](std::size_t set, bool group_end) -> Failure {
    const std::string when = "problem " + problem_.to_string() + ", timed launch " +
                             std::to_string(launches) + " (input set " + std::to_string(set + 1) +
                             " of " + std::to_string(sets) + ")";
    if (Failure f = check_outputs(set, Fill::poison, when)) return f;
    // One set's const inputs a group, each set in turn.
    return group_end ? check_const_copies(groups % sets, when) : Failure{};
  };
  // With the deferred write-back charged, each group also times one flush of a clean L2
  // (a flush right after the reset's), the measure of a flush that writes nothing back.
  const bool charge = t.flush_l2 && t.charge_writeback && !t.dirty_l2 && r_.flush_.get();
  std::vector<double> clean_flush_us;
  const auto elapsed_us = [&](std::size_t from, std::size_t to, double& us) -> CUresult {
    float ms = 0.0f;
    const CUresult e = cuEventElapsedTime(&ms, r_.events_[from], r_.events_[to]);
    us = static_cast<double>(ms) * 1000.0;
    return e;
  };
  // Each launch timed alone, eight to a synchronisation, unless one is verified.
  auto alone = [&](std::vector<double>& samples) -> Failure {
    plan.next_group();
    const std::size_t clean = kEvents - 2;
    if (charge) {
      if (CUresult e = flush_l2(); e != CUDA_SUCCESS) return after_launch(e, "timing");
      cuEventRecord(r_.events_[clean], r_.stream_);
      if (CUresult e = flush_l2(); e != CUDA_SUCCESS) return after_launch(e, "timing");
      cuEventRecord(r_.events_[clean + 1], r_.stream_);
    }
    bool clean_read = !charge;
    std::size_t pending = 0;  // launches recorded since the last read of the events
    const auto read_events = [&]() -> Failure {
      if (Failure f = wait("timed run")) return f;
      double us = 0.0;
      if (!clean_read) {
        if (CUresult e = elapsed_us(clean, clean + 1, us); e != CUDA_SUCCESS)
          return after_launch(e, "event timing");
        clean_flush_us.push_back(us);
        clean_read = true;
      }
      for (std::size_t b = 0; b < pending; ++b) {
        if (CUresult e = elapsed_us(3 * b, 3 * b + 1, us); e != CUDA_SUCCESS)
          return after_launch(e, "event timing");
        double drain = 0.0;
        if (charge) {
          if (CUresult e = elapsed_us(3 * b + 1, 3 * b + 2, drain); e != CUDA_SUCCESS)
            return after_launch(e, "event timing");
          us = writeback_charged_us(us, drain, clean_flush_us);
        }
        samples.push_back(us);
      }
      pending = 0;
      return {};
    };
    for (std::size_t b = 0; b < TimedLaunchPlan::kGroup; ++b) {
      const std::size_t set = plan.set_of(launches);
      if (CUresult e = reset(set); e != CUDA_SUCCESS) return after_launch(e, "timing");
      cuEventRecord(r_.events_[3 * pending], r_.stream_);
      if (Failure f = launch(candidate_, layout_, &pointers[set])) return f;
      cuEventRecord(r_.events_[3 * pending + 1], r_.stream_);
      if (charge) {
        if (CUresult e = flush_l2(); e != CUDA_SUCCESS) return after_launch(e, "timing");
        cuEventRecord(r_.events_[3 * pending + 2], r_.stream_);
      }
      ++pending;
      ++launches;
      if (plan.verified(b)) {
        if (Failure f = read_events()) return f;
        if (Failure f = verify_timed(set, b == TimedLaunchPlan::kGroup - 1)) return f;
      }
    }
    ++groups;
    return read_events();
  };
  // A kernel of a few microseconds: its first samples decide whether it is timed in batches.
  std::vector<double> first;
  if (t.batch_below_us > 0.0) {
    if (Failure f = alone(first)) return f;
    if (stats::median(first) < t.batch_below_us) return time_batched(out, sets);
  }
  if (!first.empty()) plan.verify_every(verify_every_launch(stats::median(first)));
  return sample_until_done(out, alone, kBatch, std::move(first));
}

// Per-launch events around a kernel of a few microseconds measure the launch as much as the
// kernel. Here launches run back to back, each on its own copy of the arguments (the copies
// together over 4x the L2, so no launch finds another's data cached), after one flush; a
// sample is the batch's time divided by its launches. Every copy's outputs and const
// inputs are verified after the last batch, so skipping work within a batch is caught.
Failure ShapeRun::time_batched(ProblemResult& out, std::size_t input_sets) {
  const auto& args = req_.spec.args;
  // Copy c holds input set c mod `sets`.
  const auto set_of = [&](std::size_t c) -> const DriverRunner::RoundData& {
    return data_->rounds[c % input_sets];
  };
  std::vector<std::size_t> stride(args.size(), 0);
  std::size_t set_bytes = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i].pointer) continue;
    stride[i] = batch_stride(work_[i].bytes());
    set_bytes += stride[i];
  }
  if (set_bytes == 0) return fail(Disposition::invalid, "batched timing: no pointer arguments");
  const std::size_t copies = batch_copies(set_bytes, r_.info_.l2_bytes);
  std::vector<DeviceMemory> sets(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (stride[i] == 0) continue;
    if (CUresult e = sets[i].allocate(stride[i] * copies); e != CUDA_SUCCESS)
      return fail(Disposition::invalid, "batched timing: cannot allocate " +
                                            std::to_string(copies) + " copies of '" + args[i].name +
                                            "': " + driver_error(e));
  }
  std::vector<std::vector<CUdeviceptr>> pointers(copies, std::vector<CUdeviceptr>(args.size(), 0));
  for (std::size_t c = 0; c < copies; ++c)
    for (std::size_t i = 0; i < args.size(); ++i)
      if (stride[i] != 0) pointers[c][i] = sets[i].get() + c * stride[i];
  const TimedBuffers timed(timed_buffers_);
  for (const DeviceMemory& m : sets)
    if (m.get() != 0) timed_buffers_.emplace_back(m.get(), m.bytes());
  auto copy_inputs = [&](Role which) -> CUresult {
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (stride[i] == 0 || role_of(args[i]) != which) continue;
      for (std::size_t c = 0; c < copies; ++c)
        if (CUresult e = cuMemcpyDtoDAsync(pointers[c][i], set_of(c).inputs[i].get(),
                                           work_[i].bytes(), r_.stream_);
            e != CUDA_SUCCESS)
          return e;
    }
    return CUDA_SUCCESS;
  };
  if (Failure f = encode_maps(pointers)) return f;
  for (Role r : {Role::input, Role::const_input})
    if (CUresult e = copy_inputs(r); e != CUDA_SUCCESS)
      return after_launch(e, "batched timing: copying inputs");
  auto reset = [&]() -> CUresult {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Role role = role_of(args[i]);
      CUresult e = CUDA_SUCCESS;
      if (role == Role::output)
        e = fill_word(sets[i].get(), sets[i].bytes(), poison_word(args[i].type),
                      size_of(args[i].type), r_.stream_);
      else if (role == Role::scratch)
        e = cuMemsetD8Async(sets[i].get(), 0, sets[i].bytes(), r_.stream_);
      if (e != CUDA_SUCCESS) return e;
    }
    if (CUresult e = copy_inputs(Role::inout); e != CUDA_SUCCESS) return e;
    return flush_l2();
  };
  auto batch = [&](std::vector<double>& samples) -> Failure {
    if (CUresult e = reset(); e != CUDA_SUCCESS) return after_launch(e, "batched timing");
    cuEventRecord(r_.events_[0], r_.stream_);
    for (std::size_t c = 0; c < copies; ++c)
      if (Failure f = launch(candidate_, layout_, &pointers[c])) return f;
    cuEventRecord(r_.events_[1], r_.stream_);
    if (Failure f = wait("batched timed run")) return f;
    float ms = 0.0f;
    if (CUresult e = cuEventElapsedTime(&ms, r_.events_[0], r_.events_[1]); e != CUDA_SUCCESS)
      return after_launch(e, "event timing");
    samples.push_back(static_cast<double>(ms) * 1000.0 / static_cast<double>(copies));
    return {};
  };
  // Every copy's outputs against its set's reference, const inputs unchanged.
  int batches = 0;
  const auto verify_batch = [&]() -> Failure {
    for (std::size_t c = 0; c < copies; ++c) {
      for (std::size_t i = 0; i < args.size(); ++i) {
        const Role role = role_of(args[i]);
        if (!is_compared(role) && role != Role::const_input) continue;
        const bool is_const = role == Role::const_input;
        const auto& rd = set_of(c);
        auto r = is_const ? compare_bytes(rd.inputs[i].get(), pointers[c][i], work_[i].bytes())
                          : compare(rd.expected[i].get(), pointers[c][i],
                                    static_cast<std::size_t>(layout_.args[i].count), args[i].type,
                                    tolerance_for(args[i].type, req_.spec.tolerance),
                                    role == Role::output);
        if (!r)
          return fail(context_lost ? Disposition::crashed : Disposition::invalid,
                      "batched timing: comparison failed: " + r.error().message, context_lost);
        if (r->mismatches > 0)
          return fail(
              Disposition::incorrect,
              "problem " + problem_.to_string() + ", batched timing, batch " +
                  std::to_string(batches) + ", launch " + std::to_string(c + 1) + " of " +
                  std::to_string(copies) + " (input set " + std::to_string(c % input_sets + 1) +
                  " of " + std::to_string(input_sets) +
                  "): " + (is_const ? "const input '" : "output '") + args[i].name +
                  "': " + std::to_string(r->mismatches) +
                  (is_const ? " words changed" : " elements wrong") +
                  (r->unwritten ? " (" + std::to_string(r->unwritten) + " never written)" : ""));
      }
    }
    return {};
  };
  // The last batch is verified, and one earlier batch chosen at random (the second, third
  // or fourth), so a kernel cannot cheat in all batches but the last.
  const int random_batch = randomly_verified_batch(batch_seed(req_.timing.seed, shape_index_));
  auto checked_batch = [&](std::vector<double>& samples) -> Failure {
    if (Failure f = batch(samples)) return f;
    ++batches;
    if (batches == random_batch) return verify_batch();
    return {};
  };
  if (Failure f = sample_until_done(out, checked_batch, 1)) return f;
  out.launches_per_sample = static_cast<int>(copies);
  return verify_batch();
}

}  // namespace kev::cuda
