#pragma once
// Evaluates points from a recording instead of a GPU. With noise on, a passed point's time
// is one of its recorded repeats, drawn with a seeded generator, instead of their mean.
#include <optional>

#include "core/evaluator.h"
#include "core/recording.h"

namespace kev {

class ReplayEvaluator : public Evaluator {
 public:
  explicit ReplayEvaluator(const Recording& recording, std::optional<std::uint64_t> noise_seed = {})
      : recording_(recording) {
    if (noise_seed) noise_.emplace(*noise_seed);
  }
  Outcome evaluate(const Point& p) override;

 private:
  const Recording& recording_;
  std::optional<Rng> noise_;
};

}  // namespace kev
