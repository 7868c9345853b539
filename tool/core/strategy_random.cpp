// Uniform random sampling without replacement.
#include "core/search_state.h"
#include "core/strategies.h"

namespace kev {
namespace {

class RandomStrategy : public Strategy {
 public:
  RandomStrategy(const SearchSpace& space, std::uint64_t seed) : state_(space, seed) {}
  std::optional<Point> ask() override {
    auto p = state_.random_unseen();
    if (p) state_.mark_seen(*p);
    return p;
  }
  void tell(const Point& p, const Outcome& outcome) override { state_.record(p, outcome); }
  [[nodiscard]] std::string name() const override { return "random"; }

 private:
  SearchState state_;
};

}  // namespace

std::unique_ptr<Strategy> make_random(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<RandomStrategy>(space, seed);
}

}  // namespace kev
