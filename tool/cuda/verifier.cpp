#include <cstring>
#include <sstream>

#include "core/poison.h"
#include "core/scalar_codec.h"
#include "core/verify.h"
#include "cuda/driver.h"
#include "cuda/shape_run.h"

namespace kev::cuda {

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

Failure ShapeRun::check_reference_coverage(const DriverRunner::RoundData& rd, std::size_t round) {
  const auto& ref = data_->reference_layout;
  bool second_run = false;  // the reference run again over complement-filled outputs
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
    if (c->unwritten > 0) {
      // Data can equal the poison (an 8-bit integer output holds its byte about once in 256
      // elements). A second run whose outputs start as the poison's complement tells them
      // apart: compared as "got" against that run, the first run's poison counts as
      // unwritten only where the second run left its complement, i.e. wrote nothing.
      if (!second_run) {
        if (Failure f = prepare(round, Fill::complement)) return f;
        if (Failure f = run_reference()) return f;
        second_run = true;
      }
      c = compare(work_[i].data(), rd.expected[i].get(), count, a.type,
                  tolerance_for(a.type, req_.spec.tolerance), true);
      if (!c)
        return fail(context_lost ? Disposition::crashed : Disposition::invalid,
                    "reference outputs: comparison failed: " + c.error().message, context_lost);
    }
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

}  // namespace kev::cuda
