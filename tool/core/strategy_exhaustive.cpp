// Every valid point in a fixed (mixed-radix) order, skipping points already seen.
#include "core/search_state.h"
#include "core/strategies.h"

namespace kev {
namespace {

class ExhaustiveStrategy : public Strategy {
 public:
  ExhaustiveStrategy(const SearchSpace& space, std::uint64_t seed) : state_(space, seed) {}

  std::optional<Point> ask() override {
    // The space steps to its next valid point itself, skipping what its constraints exclude.
    while (!done_) {
      cursor_ = state_.space().next_after(cursor_);
      if (!cursor_) {
        done_ = true;
        break;
      }
      if (state_.mark_seen(*cursor_)) return cursor_;
    }
    return std::nullopt;
  }
  void tell(const Point& p, const Outcome& outcome) override { state_.record(p, outcome); }
  [[nodiscard]] std::string name() const override { return "exhaustive"; }

 private:
  SearchState state_;
  std::optional<Point> cursor_;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<ExhaustiveStrategy>(space, seed);
}

}  // namespace kev
