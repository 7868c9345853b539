#pragma once
// Evaluates configurations: the seam between the search (core) and the measurements
// (a GPU worker, or a replayed recording). Fakes of it make the tuner testable anywhere.
#include <vector>

#include "core/evaluation.h"
#include "core/space.h"

namespace kev {

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Measures one point of `space()`. Never throws; failures are dispositions.
  virtual Outcome evaluate(const Point& p) = 0;
  // Hint: these points will be evaluated soon (lets a backend compile ahead, in parallel).
  virtual void prefetch(const std::vector<Point>& upcoming) { (void)upcoming; }
  // Hint: the best time so far, so a backend can stop timing a clearly slower candidate.
  virtual void set_incumbent_us(double best_us) { (void)best_us; }
};

}  // namespace kev
