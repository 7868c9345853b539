// Every valid point in a fixed (mixed-radix) order, skipping points already seen.
#include "core/search_state.h"
#include "core/strategies.h"

namespace kev {
namespace {

class ExhaustiveStrategy : public Strategy {
 public:
  ExhaustiveStrategy(const SearchSpace& space, std::uint64_t seed) : state_(space, seed) {}

  std::optional<Point> ask() override {
    const auto& dims = state_.space().dims();
    if (!cursor_) {
      for (const auto& d : dims)
        if (d.values.empty()) return std::nullopt;
      cursor_ = Point(dims.size(), 0);
    } else if (!advance(dims)) {
      return std::nullopt;
    }
    do {
      if (state_.space().contains(*cursor_) && !state_.seen(*cursor_)) {
        state_.mark_seen(*cursor_);
        return cursor_;
      }
    } while (advance(dims));
    return std::nullopt;
  }
  void tell(const Point& p, const Outcome& outcome) override { state_.record(p, outcome); }
  [[nodiscard]] std::string name() const override { return "exhaustive"; }

 private:
  // Odometer step, last dimension fastest; false after the last point.
  bool advance(const std::vector<Dimension>& dims) {
    if (done_) return false;
    for (std::size_t i = dims.size(); i-- > 0;) {
      if (++(*cursor_)[i] < dims[i].values.size()) return true;
      (*cursor_)[i] = 0;
    }
    done_ = true;
    return false;
  }

  SearchState state_;
  std::optional<Point> cursor_;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<ExhaustiveStrategy>(space, seed);
}

}  // namespace kev
