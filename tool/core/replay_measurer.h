#pragma once
// A Measurer backed by recordings (kernelevo traces): a round draws recorded repeats of the
// configuration with a seeded generator, so replayed verdicts have realistic noise and are
// reproducible.
#include <cstdint>
#include <map>
#include <string>

#include "core/measurer.h"
#include "core/recording.h"
#include "core/space.h"

namespace kev {

class ReplayMeasurer : public Measurer {
 public:
  ReplayMeasurer(GpuIdentity gpu, std::uint64_t seed, int draws_per_round = 5)
      : gpu_(std::move(gpu)), rng_(seed), draws_(draws_per_round) {}
  // Recordings of `side` ("head" or "base"), keyed by kernel id (Recording::kernel).
  void add(const std::string& side, Recording recording);
  Result<GpuIdentity> identify() override { return gpu_; }
  Measurement measure(const MeasureTarget& target) override;

 private:
  GpuIdentity gpu_;
  Rng rng_;
  int draws_;
  std::map<std::string, std::map<std::string, Recording>> recordings_;  // side -> kernel
};

}  // namespace kev
