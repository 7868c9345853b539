#pragma once
// A Measurer for gate tests: each kernel and side has a true time and a relative noise;
// rounds draw normal samples around it with a seeded generator. Records the call order.
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/measurer.h"

namespace kev::testing {

struct FakeKernel {
  double time_us = 100.0;
  double noise = 0.01;  // relative standard deviation
  Disposition disposition = Disposition::passed;
  std::string detail;
};

class FakeMeasurer : public Measurer {
 public:
  explicit FakeMeasurer(std::uint64_t seed = 7, GpuIdentity gpu = {"sm_90", "NVIDIA H200"})
      : gpu_(std::move(gpu)), rng_(seed) {}
  void set(const std::string& side, const std::string& id, double time_us, double noise) {
    FakeKernel k;
    k.time_us = time_us;
    k.noise = noise;
    kernels_[{side, id}] = k;
  }
  void fail(const std::string& side, const std::string& id, Disposition d, std::string detail) {
    FakeKernel k;
    k.disposition = d;
    k.detail = std::move(detail);
    kernels_[{side, id}] = k;
  }
  Result<GpuIdentity> identify() override { return gpu_; }
  Measurement measure(const MeasureTarget& t) override {
    calls.push_back(t.side + ":" + t.kernel_id);
    params_seen.push_back(t.params);
    dirty_seen.push_back(t.dirty_l2);
    charged_seen.push_back(t.charge_writeback);
    compiler_seen.push_back(t.device_code);
    problems_seen.push_back(t.spec != nullptr ? t.spec->problems : std::vector<Problem>{});
    defines_seen.push_back(t.spec != nullptr ? t.spec->defines : std::vector<std::string>{});
    Measurement m;
    const auto it = kernels_.find({t.side, t.kernel_id});
    if (it == kernels_.end()) {
      m.disposition = Disposition::invalid;
      m.detail = "unknown to the fake";
      return m;
    }
    m.disposition = it->second.disposition;
    m.detail = it->second.detail;
    if (m.disposition != Disposition::passed) return m;
    std::normal_distribution<double> noise(1.0, it->second.noise);
    for (int i = 0; i < 5; ++i) m.samples_us.push_back(it->second.time_us * noise(rng_));
    return m;
  }
  std::vector<std::string> calls;
  std::vector<ParamSet> params_seen;
  std::vector<bool> dirty_seen;                     // each call's MeasureTarget::dirty_l2
  std::vector<bool> charged_seen;                   // each call's MeasureTarget::charge_writeback
  std::vector<DeviceCodeCompiler> compiler_seen;    // each call's MeasureTarget::device_code
  std::vector<std::vector<Problem>> problems_seen;  // the spec's problems of each call
  std::vector<std::vector<std::string>> defines_seen;  // the spec's defines of each call

 private:
  GpuIdentity gpu_;
  std::mt19937_64 rng_;
  std::map<std::pair<std::string, std::string>, FakeKernel> kernels_;
};

}  // namespace kev::testing
