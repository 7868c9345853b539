#include "cuda/driver_runner.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <sstream>
#include <thread>

#include "core/poison.h"
#include "core/scalar_codec.h"
#include "core/stats.h"
#include "core/timing_plan.h"
#include "core/verify.h"
#include "cuda/driver.h"
#include "cuda/files.h"
#include "cuda/nvml_clock.h"

namespace kev::cuda {

namespace {

using Clock = std::chrono::steady_clock;

enum class Role { input, const_input, output, inout, scratch, scalar };

Role role_of(const ArgSpec& a) {
  if (!a.pointer) return Role::scalar;
  if (a.scratch) return Role::scratch;
  if (a.output) return Role::output;
  if (a.inout) return Role::inout;
  return a.is_const ? Role::const_input : Role::input;
}
bool has_input(Role r) { return r == Role::input || r == Role::const_input || r == Role::inout; }
bool is_compared(Role r) { return r == Role::output || r == Role::inout; }

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string params_text(const ParamSet& params) {
  std::string s;
  for (const auto& [k, v] : params) s += k + "=" + v.to_string() + ",";
  return s;
}

// Where a failure leaves the run.
struct Failure {
  Disposition disposition = Disposition::passed;
  std::string detail;
  bool context_lost = false;
  explicit operator bool() const { return disposition != Disposition::passed; }
};

Failure fail(Disposition d, std::string detail, bool lost = false) {
  return Failure{d, std::move(detail), lost};
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

std::string read_driver_version() {
  if (std::string v = nvml_driver_version(); !v.empty()) return v;
  std::istringstream in(read_whole_file("/proc/driver/nvidia/version", 1u << 16).value_or(""));
  std::string line;
  if (!std::getline(in, line)) return {};
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
  std::istringstream words(line);
  std::string w;
  while (words >> w) {
    const bool version = !w.empty() && std::isdigit(static_cast<unsigned char>(w[0])) &&
                         w.find('.') != std::string::npos &&
                         w.find_first_not_of("0123456789.") == std::string::npos;
    if (version) return w;
  }
  return {};
}

}  // namespace

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
  enum class Fill { poison, decoy };
  Failure setup();
  Failure ensure_round(std::size_t round);
  Failure prepare(std::size_t round, Fill fill);
  // `pointers`: the pointer arguments' values (a rotating set), else the work buffers'.
  Failure launch(CUfunction fn, const ResolvedProblem& layout,
                 const std::vector<CUdeviceptr>* pointers = nullptr);
  CUresult flush_l2();
  Failure wait(const char* what);
  Failure verify_round(std::size_t round, Fill fill);
  Failure check_outputs(std::size_t round, Fill fill, const std::string& when);
  Failure check_const(std::size_t round, const std::string& when);
  // The reference must write every element of its outputs, or no candidate could match it.
  Failure check_reference_coverage(const DriverRunner::RoundData& rd);
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
  std::vector<CUdeviceptr> pointer_values_;
};

Failure ShapeRun::after_launch(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return {};
  const bool lost = is_context_fatal(r);
  context_lost = context_lost || lost;
  return fail(lost ? Disposition::crashed : Disposition::launch_failed,
              std::string(what) + ": " + driver_error(r), lost);
}

Failure ShapeRun::wait(const char* what) {
  for (;;) {
    const CUresult q = cuStreamQuery(r_.stream_);
    if (q == CUDA_SUCCESS) return {};
    if (q != CUDA_ERROR_NOT_READY) return after_launch(q, what);
    if (Clock::now() > deadline_) {
      context_lost = true;  // the kernel is still running: only a new process gets the GPU back
      return fail(Disposition::timeout,
                  std::string(what) + ": still running after " +
                      std::to_string(req_.timing.timeout_seconds) + " s",
                  true);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

Failure ShapeRun::launch(CUfunction fn, const ResolvedProblem& layout,
                         const std::vector<CUdeviceptr>* pointers) {
  const auto& spec = req_.spec;
  std::vector<void*> params(spec.args.size());
  pointer_values_.assign(spec.args.size(), 0);
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    if (spec.args[i].pointer) {
      pointer_values_[i] = pointers != nullptr ? (*pointers)[i] : work_[i].data();
      params[i] = &pointer_values_[i];
    } else {
      params[i] = const_cast<unsigned char*>(layout.args[i].scalar.data());
    }
  }
  const auto& l = layout.launch;
  if (l.shared_bytes > 48 * 1024) {
    CUresult r = cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    static_cast<int>(l.shared_bytes));
    if (r != CUDA_SUCCESS) return after_launch(r, "shared memory request refused");
  }
  const CUresult r = cuLaunchKernel(fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                                    l.block[2], l.shared_bytes, r_.stream_, params.data(), nullptr);
  return after_launch(r, "launch");
}

Failure ShapeRun::setup() {
  auto layout = resolve_problem(req_.spec, req_.params, problem_);
  if (!layout) return fail(Disposition::invalid, layout.error().to_string());
  layout_ = std::move(layout).value();
  const std::string key = problem_.to_string();
  auto [it, fresh] = r_.shapes_.try_emplace(key);
  data_ = &it->second;
  if (fresh) {
    auto ref_layout = resolve_problem(req_.spec, req_.reference_params, problem_);
    if (!ref_layout)
      return fail(Disposition::invalid, "reference: " + ref_layout.error().to_string());
    data_->reference_layout = std::move(ref_layout).value();
  }
  for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
    if (!req_.spec.args[i].pointer) continue;
    if (layout_.args[i].bytes != data_->reference_layout.args[i].bytes)
      return fail(Disposition::invalid, "argument '" + req_.spec.args[i].name +
                                            "' has a different size for this configuration than "
                                            "for the reference");
  }
  work_.resize(req_.spec.args.size());
  for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
    if (!req_.spec.args[i].pointer) continue;
    if (CUresult e = work_[i].allocate(layout_.args[i].bytes); e != CUDA_SUCCESS)
      return fail(Disposition::invalid, "cannot allocate '" + req_.spec.args[i].name + "' (" +
                                            std::to_string(layout_.args[i].bytes) +
                                            " bytes): " + driver_error(e));
  }
  return {};
}

Failure ShapeRun::ensure_round(std::size_t round) {
  auto& rounds = data_->rounds;
  while (rounds.size() <= round) {
    const std::size_t index = rounds.size();
    DriverRunner::RoundData rd;
    rd.inputs.resize(req_.spec.args.size());
    rd.expected.resize(req_.spec.args.size());
    const auto& ref = data_->reference_layout;
    for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
      const ArgSpec& a = req_.spec.args[i];
      if (!has_input(role_of(a))) continue;
      const auto n = static_cast<std::uint64_t>(ref.args[i].count);
      if (CUresult e = rd.inputs[i].allocate(ref.args[i].bytes); e != CUDA_SUCCESS)
        return fail(Disposition::invalid, "cannot allocate inputs: " + driver_error(e));
      CUdeviceptr dst = rd.inputs[i].get();
      int type = static_cast<int>(a.type);
      int kind = static_cast<int>(a.init);
      double low = a.init_low;
      double value = a.init_value;
      std::uint64_t seed = mix(mix(req_.timing.seed, shape_index_ * 1000 + index), i);
      void* params[] = {&dst, const_cast<std::uint64_t*>(&n), &type, &kind, &low, &value, &seed};
      const unsigned blocks =
          static_cast<unsigned>(std::clamp<std::uint64_t>((n + 255) / 256, 1, 4096));
      if (CUresult e = cuLaunchKernel(r_.helpers_->fill, blocks, 1, 1, 256, 1, 1, 0, r_.stream_,
                                      params, nullptr);
          e != CUDA_SUCCESS)
        return after_launch(e, "input generation");
    }
    rounds.push_back(std::move(rd));
    // The reference runs on the candidate's buffers (same sizes), before the candidate.
    // A round is kept only once its expected outputs are complete.
    auto run_reference = [&]() -> Failure {
      if (Failure f = prepare(index, Fill::poison)) return f;
      if (Failure f = launch(reference_, ref)) {
        f.detail = "reference kernel: " + f.detail;
        f.disposition = f.context_lost ? Disposition::crashed : Disposition::invalid;
        return f;
      }
      if (Failure f = wait("reference kernel")) return f;
      for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
        if (!is_compared(role_of(req_.spec.args[i]))) continue;
        auto& e = rounds.back().expected[i];
        if (CUresult c = e.allocate(ref.args[i].bytes); c != CUDA_SUCCESS)
          return fail(Disposition::invalid,
                      "cannot allocate reference outputs: " + driver_error(c));
        if (CUresult c = cuMemcpyDtoDAsync(e.get(), work_[i].data(), ref.args[i].bytes, r_.stream_);
            c != CUDA_SUCCESS)
          return after_launch(c, "copy of reference outputs");
      }
      if (Failure f = wait("reference outputs")) return f;
      return check_reference_coverage(rounds.back());
    };
    if (Failure f = run_reference()) {
      rounds.pop_back();
      return f;
    }
  }
  if (data_->decoys.empty()) {
    data_->decoys.resize(req_.spec.args.size());
    for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
      const ArgSpec& a = req_.spec.args[i];
      if (role_of(a) != Role::output) continue;
      const auto n = static_cast<std::uint64_t>(layout_.args[i].count);
      if (CUresult e = data_->decoys[i].allocate(layout_.args[i].bytes); e != CUDA_SUCCESS)
        return fail(Disposition::invalid, "cannot allocate decoys: " + driver_error(e));
      CUdeviceptr dst = data_->decoys[i].get();
      int type = static_cast<int>(a.type);
      int kind = kFillDecoy;
      double zero = 0.0;
      std::uint64_t seed = mix(req_.timing.seed ^ 0xdec0ull, shape_index_ * 131 + i);
      void* params[] = {&dst, const_cast<std::uint64_t*>(&n), &type, &kind, &zero, &zero, &seed};
      const unsigned blocks =
          static_cast<unsigned>(std::clamp<std::uint64_t>((n + 255) / 256, 1, 4096));
      if (CUresult e = cuLaunchKernel(r_.helpers_->fill, blocks, 1, 1, 256, 1, 1, 0, r_.stream_,
                                      params, nullptr);
          e != CUDA_SUCCESS)
        return after_launch(e, "decoy generation");
    }
  }
  return {};
}

Failure ShapeRun::prepare(std::size_t round, Fill fill) {
  const auto& rd = data_->rounds[round];
  for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
    const ArgSpec& a = req_.spec.args[i];
    const Role role = role_of(a);
    if (role == Role::scalar) continue;
    CUresult e = work_[i].fill_guards(r_.stream_);
    const std::size_t bytes = work_[i].bytes();
    if (e == CUDA_SUCCESS && has_input(role))
      e = cuMemcpyDtoDAsync(work_[i].data(), rd.inputs[i].get(), bytes, r_.stream_);
    if (e == CUDA_SUCCESS && role == Role::output) {
      if (fill == Fill::decoy && !data_->decoys.empty() && data_->decoys[i].get())
        e = cuMemcpyDtoDAsync(work_[i].data(), data_->decoys[i].get(), bytes, r_.stream_);
      else
        e = fill_word(work_[i].data(), bytes, poison_word(a.type), size_of(a.type), r_.stream_);
    }
    if (e == CUDA_SUCCESS && role == Role::scratch)
      e = cuMemsetD8Async(work_[i].data(), 0, bytes, r_.stream_);
    if (e != CUDA_SUCCESS) return after_launch(e, "preparing arguments");
  }
  return {};
}

Result<CompareCounters> ShapeRun::compare(CUdeviceptr expected, CUdeviceptr got, std::size_t count,
                                          ScalarType type, const Tolerance& tol,
                                          bool check_poison) {
  CompareCounters init;
  CUdeviceptr counters = r_.counters_.get();
  if (CUresult e = cuMemcpyHtoDAsync(counters, &init, sizeof init, r_.stream_); e != CUDA_SUCCESS)
    return make_error(driver_error(e));
  std::uint64_t n = count;
  int t = static_cast<int>(type);
  double rtol = tol.rtol;
  double atol = tol.atol;
  unsigned poison = poison_word(type);
  int check = check_poison ? 1 : 0;
  void* params[] = {&expected, &got, &n, &t, &rtol, &atol, &poison, &check, &counters};
  const unsigned blocks =
      static_cast<unsigned>(std::clamp<std::uint64_t>((n + 255) / 256, 1, 2048));
  if (CUresult e = cuLaunchKernel(r_.helpers_->compare, blocks, 1, 1, 256, 1, 1, 0, r_.stream_,
                                  params, nullptr);
      e != CUDA_SUCCESS)
    return make_error(driver_error(e));
  CompareCounters out;
  if (CUresult e = cuMemcpyDtoHAsync(&out, counters, sizeof out, r_.stream_); e != CUDA_SUCCESS)
    return make_error(driver_error(e));
  if (CUresult e = cuStreamSynchronize(r_.stream_); e != CUDA_SUCCESS) {
    context_lost = context_lost || is_context_fatal(e);
    return make_error(driver_error(e));
  }
  return out;
}

Failure ShapeRun::check_outputs(std::size_t round, Fill fill, const std::string& when) {
  const auto& rd = data_->rounds[round];
  for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
    const ArgSpec& a = req_.spec.args[i];
    const Role role = role_of(a);
    if (role == Role::scalar) continue;
    if (std::string g = work_[i].check_guards(); !g.empty())
      return fail(Disposition::incorrect, when + ": argument '" + a.name + "': " + g);
    if (!is_compared(role)) continue;
    const auto count = static_cast<std::size_t>(layout_.args[i].count);
    const Tolerance tol = tolerance_for(a.type, req_.spec.tolerance);
    auto c = compare(rd.expected[i].get(), work_[i].data(), count, a.type, tol,
                     fill == Fill::poison && role == Role::output);
    if (!c)
      return fail(context_lost ? Disposition::crashed : Disposition::invalid,
                  when + ": comparison failed: " + c.error().message, context_lost);
    if (c->mismatches == 0) continue;
    // The first wrong element, read back for the message.
    const std::size_t size = size_of(a.type);
    unsigned char want[8] = {};
    unsigned char have[8] = {};
    (void)cuMemcpyDtoH(want, rd.expected[i].get() + c->first_bad * size, size);
    (void)cuMemcpyDtoH(have, work_[i].data() + c->first_bad * size, size);
    double max_err = 0.0;
    std::memcpy(&max_err, &c->max_abs_error_bits, sizeof max_err);
    std::ostringstream os;
    os.precision(9);
    os << when << ": output '" << a.name << "': " << c->mismatches << " of " << count
       << " elements wrong";
    if (c->unwritten) os << " (" << c->unwritten << " never written)";
    if (c->non_finite) os << " (" << c->non_finite << " NaN/Inf where the reference is finite)";
    os << "; first at [" << c->first_bad << "]: got " << load_element(a.type, have, 0)
       << ", expected " << load_element(a.type, want, 0) << "; max abs error " << max_err
       << " (rtol " << tol.rtol << ", atol " << tol.atol << ")";
    return fail(Disposition::incorrect, os.str());
  }
  return {};
}

Failure ShapeRun::check_reference_coverage(const DriverRunner::RoundData& rd) {
  const auto& ref = data_->reference_layout;
  for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
    const ArgSpec& a = req_.spec.args[i];
    if (role_of(a) != Role::output) continue;
    const auto count = static_cast<std::size_t>(ref.args[i].count);
    // The comparison counts an element as unwritten where it holds the poison and the
    // "expected" side does not: zeros on that side count the poison left in the outputs.
    DeviceMemory zeros;
    if (CUresult e = zeros.allocate(ref.args[i].bytes); e != CUDA_SUCCESS)
      return fail(Disposition::invalid, "cannot allocate a comparison buffer: " + driver_error(e));
    if (CUresult e = cuMemsetD8Async(zeros.get(), 0, ref.args[i].bytes, r_.stream_);
        e != CUDA_SUCCESS)
      return after_launch(e, "reference outputs");
    auto c = compare(zeros.get(), rd.expected[i].get(), count, a.type,
                     tolerance_for(a.type, req_.spec.tolerance), true);
    if (!c)
      return fail(context_lost ? Disposition::crashed : Disposition::invalid,
                  "reference outputs: comparison failed: " + c.error().message, context_lost);
    if (c->unwritten > 0)
      return fail(Disposition::invalid,
                  "spec error: the reference kernel leaves " + std::to_string(c->unwritten) +
                      " of " + std::to_string(count) + " elements of output '" + a.name +
                      "' unwritten at " + problem_.to_string() +
                      ": no candidate can be verified against it; check the reference's "
                      "launch geometry and the output's count in the spec");
  }
  return {};
}

Result<CompareCounters> ShapeRun::compare_bytes(CUdeviceptr expected, CUdeviceptr got,
                                                std::size_t bytes) {
  // Exact, by 32-bit words where the size allows: four times fewer loads than by bytes.
  if (bytes % 4 == 0) {
    auto c = compare(expected, got, bytes / 4, ScalarType::u32, Tolerance{0.0, 0.0}, false);
    if (c) c->first_bad *= 4;
    return c;
  }
  return compare(expected, got, bytes, ScalarType::u8, Tolerance{0.0, 0.0}, false);
}

Failure ShapeRun::check_const(std::size_t round, const std::string& when) {
  const auto& rd = data_->rounds[round];
  for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
    const ArgSpec& a = req_.spec.args[i];
    if (role_of(a) != Role::const_input) continue;
    auto c = compare_bytes(rd.inputs[i].get(), work_[i].data(), work_[i].bytes());
    if (!c)
      return fail(context_lost ? Disposition::crashed : Disposition::invalid,
                  when + ": comparison failed: " + c.error().message, context_lost);
    if (c->mismatches > 0)
      return fail(Disposition::incorrect, when + ": const input '" + a.name + "' was modified (" +
                                              std::to_string(c->mismatches) +
                                              " words changed, first at byte " +
                                              std::to_string(c->first_bad) + ")");
  }
  return {};
}

Failure ShapeRun::verify_round(std::size_t round, Fill fill) {
  if (Failure f = ensure_round(round)) return f;
  if (Failure f = prepare(round, fill)) return f;
  if (Failure f = launch(candidate_, layout_)) return f;
  if (Failure f = wait("kernel")) return f;
  std::string when = "problem " + problem_.to_string() + ", verification round " +
                     std::to_string(round + 1) +
                     (fill == Fill::decoy ? " (outputs pre-filled with finite decoys)" : "");
  if (Failure f = check_outputs(round, fill, when)) return f;
  return check_const(round, when);
}

// Writing a buffer twice the L2's size evicts everything, and reading it back evicts the
// dirty lines that write left (written back now, outside the timed region), so the kernel
// starts from a cold, clean L2 and is not charged for the harness's own write-backs.
CUresult ShapeRun::flush_l2() {
  if (!req_.timing.flush_l2 || !r_.flush_.get()) return CUDA_SUCCESS;
  CUresult e = cuMemsetD32Async(r_.flush_.get(), 0x13572468u, r_.flush_.bytes() / 4, r_.stream_);
  if (e != CUDA_SUCCESS) return e;
  CUdeviceptr src = r_.flush_.get();
  CUdeviceptr sink = r_.counters_.get();
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
    const auto n = static_cast<int>(samples.size());
    if (t.incumbent_us > 0.0 && n >= samples_per_call &&
        stats::median(samples) > t.incumbent_us * t.early_stop_ratio) {
      out.stopped_early = true;
      break;
    }
    if ((n >= t.min_runs && elapsed >= t.min_seconds) || n >= t.max_runs ||
        elapsed >= t.max_seconds)
      break;
  }
  out.time_us = stats::median(samples);
  const auto ci = stats::bootstrap_median_ci(samples, {0.95, 1000, t.seed});
  out.ci_low_us = ci.low;
  out.ci_high_us = ci.high;
  out.samples_us = std::move(samples);
  return {};
}

std::size_t ShapeRun::timing_sets() const {
  std::int64_t set_bytes = 0;  // a set's inputs, reference outputs and const copies
  for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
    const Role role = role_of(req_.spec.args[i]);
    if (has_input(role)) set_bytes += data_->reference_layout.args[i].bytes;
    if (is_compared(role)) set_bytes += data_->reference_layout.args[i].bytes;
    if (role == Role::const_input) set_bytes += data_->reference_layout.args[i].bytes;  // its copy
  }
  return timing_set_count(req_.timing, set_bytes);
}

bool ShapeRun::verify_every_launch(double launch_us) const {
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < req_.spec.args.size(); ++i)
    if (is_compared(role_of(req_.spec.args[i]))) bytes += layout_.args[i].bytes;
  return verifies_every_launch(req_.timing, bytes, r_.info_.copy_gbps, launch_us);
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
  for (int w = 0; w < t.warmup_runs; ++w) {
    const std::size_t set = static_cast<std::size_t>(w) % sets;
    if (CUresult e = reset(set); e != CUDA_SUCCESS) return after_launch(e, "warm-up");
    if (Failure f = launch(candidate_, layout_, &pointers[set])) return f;
  }
  if (Failure f = wait("warm-up")) return f;

  constexpr int kBatch = static_cast<int>(TimedLaunchPlan::kGroup);
  while (r_.events_.size() < std::size_t{2} * kBatch) {
    CUevent ev = nullptr;
    if (CUresult e = cuEventCreate(&ev, CU_EVENT_DEFAULT); e != CUDA_SUCCESS)
      return after_launch(e, "event creation");
    r_.events_.push_back(ev);
  }
  TimedLaunchPlan plan(sets, false, mix(t.seed ^ 0x7173ull, shape_index_));
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
  // Each launch timed alone, eight to a synchronisation, unless one is verified.
  auto alone = [&](std::vector<double>& samples) -> Failure {
    plan.next_group();
    std::size_t pending = 0;  // launches recorded since the last read of the events
    const auto read_events = [&]() -> Failure {
      if (Failure f = wait("timed run")) return f;
      for (std::size_t b = 0; b < pending; ++b) {
        float ms = 0.0f;
        if (CUresult e = cuEventElapsedTime(&ms, r_.events_[2 * b], r_.events_[2 * b + 1]);
            e != CUDA_SUCCESS)
          return after_launch(e, "event timing");
        samples.push_back(static_cast<double>(ms) * 1000.0);
      }
      pending = 0;
      return {};
    };
    for (std::size_t b = 0; b < TimedLaunchPlan::kGroup; ++b) {
      const std::size_t set = plan.set_of(launches);
      if (CUresult e = reset(set); e != CUDA_SUCCESS) return after_launch(e, "timing");
      cuEventRecord(r_.events_[2 * pending], r_.stream_);
      if (Failure f = launch(candidate_, layout_, &pointers[set])) return f;
      cuEventRecord(r_.events_[2 * pending + 1], r_.stream_);
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
  constexpr std::size_t kAlign = 256;
  constexpr std::size_t kMaxCopies = 4096;
  constexpr std::size_t kMaxBytes = std::size_t{4} << 30;
  const auto& args = req_.spec.args;
  // Copy c holds input set c mod `sets`.
  const auto set_of = [&](std::size_t c) -> const DriverRunner::RoundData& {
    return data_->rounds[c % input_sets];
  };
  std::vector<std::size_t> stride(args.size(), 0);
  std::size_t set_bytes = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i].pointer) continue;
    stride[i] = (work_[i].bytes() + kAlign - 1) / kAlign * kAlign;
    set_bytes += stride[i];
  }
  if (set_bytes == 0) return fail(Disposition::invalid, "batched timing: no pointer arguments");
  const auto l2 = static_cast<std::size_t>(std::max<std::int64_t>(r_.info_.l2_bytes, 1 << 20));
  std::size_t copies = (4 * l2 + set_bytes - 1) / set_bytes + 1;
  copies = std::clamp<std::size_t>(copies, 2, std::min(kMaxCopies, kMaxBytes / set_bytes));
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
  const int random_batch = randomly_verified_batch(mix(req_.timing.seed ^ 0xba7cull, shape_index_));
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
  if (layout_.bytes && out.time_us && *out.time_us > 0.0) {
    const double gbps = static_cast<double>(*layout_.bytes) / (*out.time_us * 1e-6) / 1e9;
    out.gbps = gbps;
    if (r_.info_.copy_gbps > 0.0) out.copy_fraction = gbps / r_.info_.copy_gbps;
    const double ceiling = std::max(r_.info_.copy_gbps, r_.info_.read_gbps);
    if (ceiling > 0.0 && gbps > ceiling * req_.timing.ceiling_margin) {
      std::ostringstream os;
      os.precision(4);
      os << "suspicious: " << gbps << " GB/s from metrics.bytes is above the device's measured "
         << "ceiling " << ceiling << " GB/s (margin " << req_.timing.ceiling_margin
         << "): the time or the byte count is wrong";
      out.disposition = Disposition::invalid;
      out.detail = os.str();
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------

Result<std::unique_ptr<DriverRunner>> DriverRunner::open(int device_index) {
  if (!driver_library_found())
    return make_error("no NVIDIA driver: libcuda.so.1 not found", {}, ExitCode::environment);
  if (CUresult r = cuInit(0); r != CUDA_SUCCESS)
    return make_error("no usable CUDA driver (" + driver_error(r) + ")", {}, ExitCode::environment);
  int count = 0;
  if (CUresult r = cuDeviceGetCount(&count); r != CUDA_SUCCESS || count == 0)
    return make_error("no CUDA GPU found", {}, ExitCode::environment);
  if (device_index < 0 || device_index >= count)
    return make_error("GPU " + std::to_string(device_index) + " does not exist (" +
                          std::to_string(count) + " found)",
                      {}, ExitCode::usage);
  std::unique_ptr<DriverRunner> r(new DriverRunner());
  auto check = [](CUresult e, const char* what) -> Status {
    if (e == CUDA_SUCCESS) return ok_status();
    return make_error(std::string(what) + ": " + driver_error(e), {}, ExitCode::environment);
  };
  if (auto s = check(cuDeviceGet(&r->device_, device_index), "cuDeviceGet"); !s) return s.error();
  if (auto s = check(cuDevicePrimaryCtxRetain(&r->context_, r->device_), "context"); !s)
    return s.error();
  if (auto s = check(cuCtxSetCurrent(r->context_), "context"); !s) return s.error();
  if (auto s = check(cuStreamCreate(&r->stream_, CU_STREAM_NON_BLOCKING), "stream"); !s)
    return s.error();

  DeviceInfo& info = r->info_;
  info.index = device_index;
  char name[256] = {};
  cuDeviceGetName(name, sizeof name, r->device_);
  info.name = name;
  int major = 0, minor = 0, sms = 0, l2 = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, r->device_);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, r->device_);
  cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, r->device_);
  cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, r->device_);
  info.arch = "sm_" + std::to_string(major) + std::to_string(minor);
  info.sms = sms;
  info.l2_bytes = l2;
  std::size_t mem = 0;
  cuDeviceTotalMem(&mem, r->device_);
  info.memory_bytes = static_cast<std::int64_t>(mem);
  int version = 0;
  cuDriverGetVersion(&version);
  info.cuda_version = std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
  info.driver_version = read_driver_version();

  auto helpers = HelperKernels::load(info.arch);
  if (!helpers) return helpers.error();
  r->helpers_ = std::make_unique<HelperKernels>(std::move(helpers).value());
  if (auto s = check(r->counters_.allocate(sizeof(CompareCounters)), "allocation"); !s)
    return s.error();
  // Writing twice the L2's size between timed launches evicts whatever a kernel left there.
  if (auto s = check(r->flush_.allocate(static_cast<std::size_t>(std::max(l2, 1 << 20)) * 2),
                     "allocation");
      !s)
    return s.error();
  return r;
}

DriverRunner::~DriverRunner() {
  shapes_.clear();
  flush_ = DeviceMemory();
  counters_ = DeviceMemory();
  for (CUevent e : events_) cuEventDestroy(e);
  if (helpers_ && helpers_->module) cuModuleUnload(helpers_->module);
  if (stream_) cuStreamDestroy(stream_);
  if (context_) cuDevicePrimaryCtxRelease(device_);
}

void DriverRunner::set_ceilings(double copy_gbps, double read_gbps) {
  if (copy_gbps > 0.0 && read_gbps > 0.0) {
    info_.copy_gbps = copy_gbps;
    info_.read_gbps = read_gbps;
    ceilings_measured_ = true;
  }
}

int DriverRunner::live_sm_clock_mhz() { return nvml_sm_clock_mhz(info_.index).value_or(0); }

Status DriverRunner::measure_ceilings() {
  const std::size_t bytes =
      std::min<std::size_t>(std::size_t{1} << 30, static_cast<std::size_t>(info_.memory_bytes / 8));
  DeviceMemory a, b;
  CUevent start = nullptr, stop = nullptr;
  auto fail_with = [](CUresult e, const char* what) {
    return make_error(std::string("measuring bandwidth: ") + what + ": " + driver_error(e), {},
                      ExitCode::environment);
  };
  if (CUresult e = a.allocate(bytes); e != CUDA_SUCCESS) return fail_with(e, "allocation");
  if (CUresult e = b.allocate(bytes); e != CUDA_SUCCESS) return fail_with(e, "allocation");
  cuEventCreate(&start, CU_EVENT_DEFAULT);
  cuEventCreate(&stop, CU_EVENT_DEFAULT);
  auto timed = [&](const std::function<CUresult()>& op, std::vector<double>& ms) -> CUresult {
    for (int i = 0; i < 13; ++i) {
      cuEventRecord(start, stream_);
      if (CUresult e = op(); e != CUDA_SUCCESS) return e;
      cuEventRecord(stop, stream_);
      if (CUresult e = cuEventSynchronize(stop); e != CUDA_SUCCESS) return e;
      float t = 0.0f;
      cuEventElapsedTime(&t, start, stop);
      if (i >= 3) ms.push_back(t);  // the first three are warm-up
    }
    return CUDA_SUCCESS;
  };
  std::vector<double> copy_ms, read_ms;
  CUresult e = cuMemsetD32Async(a.get(), 0x3F800000u, bytes / 4, stream_);
  if (e == CUDA_SUCCESS)
    e = timed([&] { return cuMemcpyDtoDAsync(b.get(), a.get(), bytes, stream_); }, copy_ms);
  if (e == CUDA_SUCCESS) {
    CUdeviceptr x = a.get();
    CUdeviceptr sink = b.get();
    std::uint64_t n4 = bytes / 16;
    void* params[] = {&x, &n4, &sink};
    const auto grid = static_cast<unsigned>(info_.sms * 8);
    e = timed(
        [&] {
          return cuLaunchKernel(helpers_->read, grid, 1, 1, 256, 1, 1, 0, stream_, params, nullptr);
        },
        read_ms);
  }
  cuEventDestroy(start);
  cuEventDestroy(stop);
  if (e != CUDA_SUCCESS) return fail_with(e, "timing");
  const double b_ = static_cast<double>(bytes);
  info_.copy_gbps = 2.0 * b_ / (stats::median(copy_ms) * 1e-3) / 1e9;
  info_.read_gbps = b_ / (stats::median(read_ms) * 1e-3) / 1e9;
  ceilings_measured_ = true;
  return ok_status();
}

Result<DeviceInfo> DriverRunner::device_info() {
  if (!ceilings_measured_ && !context_lost_) {
    if (auto s = measure_ceilings(); !s) return s.error();
  }
  auto clock = nvml_sm_clock_mhz(info_.index);
  info_.sm_clock_mhz = clock.value_or(0);
  info_.clock_source = clock ? "nvml" : nvml_unavailable_reason();
  return info_;
}

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
                          params_text(request.reference_params) + "|" +
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
  std::vector<double> logs, lows, highs;
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    ShapeRun shape(*this, request, candidate, reference, *shapes[s].first, s, deadline);
    ProblemResult pr = shape.run(shapes[s].second);
    if (shape.context_lost) context_lost_ = true;
    const bool passed = pr.disposition == Disposition::passed;
    if (passed && pr.time_us) {
      logs.push_back(std::log(*pr.time_us));
      lows.push_back(std::log(pr.ci_low_us.value_or(*pr.time_us)));
      highs.push_back(std::log(pr.ci_high_us.value_or(*pr.time_us)));
    }
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
      return finish(pr.disposition, "problem " + pr.problem + ": " + pr.detail);
  }
  report.outcome.disposition = Disposition::passed;
  if (!logs.empty()) {
    auto geo = [](const std::vector<double>& v) {
      double s = 0.0;
      for (double x : v) s += x;
      return std::exp(s / static_cast<double>(v.size()));
    };
    report.outcome.time_us = geo(logs);
    report.outcome.ci_low_us = geo(lows);
    report.outcome.ci_high_us = geo(highs);
    if (report.problems.size() >= 1 && report.problems.front().timed && logs.size() == 1)
      report.outcome.samples_us = report.problems.front().samples_us;
    bool early = false;
    for (const auto& pr : report.problems) early = early || pr.stopped_early;
    if (early) report.outcome.detail = "timing stopped early: clearly slower than the best so far";
  }
  report.context_lost = context_lost_;
  return report;
}

}  // namespace kev::cuda
