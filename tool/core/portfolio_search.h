#pragma once
// A portfolio of move types over one shared search state: global samples, a local descent
// (core/local_search.h), genetic children of the best points (core/moves.h) and the best
// of many samples as an additive surrogate ranks them (core/additive_model.h). After the
// initial samples and the first descent to a local optimum, each ask picks a move type at
// random: every type keeps a floor share, and the rest goes to the types whose recent
// proposals improved on the best time (a bandit over move types, each type's record fading
// as it is tried). A space where one kind of move stops paying moves its budget to another,
// and global samples never stop.
#include <array>
#include <string>
#include <unordered_map>

#include "core/additive_model.h"
#include "core/local_search.h"
#include "core/search_state.h"
#include "core/strategy.h"

namespace kev {

struct PortfolioOptions {
  std::string name = "portfolio";
  int initial_samples = 10;        // random points before anything else
  int warmup = 40;                 // the first descent may take asks up to this many proposals
  double floor = 0.05;             // every move type gets at least this share of the asks
  double prior = 0.2;              // each type's record starts as this many successes in 1 trial
  double decay = 0.98;             // a type's record shrinks by this factor each time it is tried
  double sharpness = 2.0;          // shares above the floor go as (success rate)^sharpness
  std::size_t top_k = 1;           // a proposal pays when it enters the best top_k times
  std::size_t population = 20;     // genetic children come from the best `population` points
  int candidates = 100;            // the surrogate picks the best predicted of this many samples
  bool surrogate_restarts = true;  // the descent's random restarts are the surrogate's picks
  LocalSearchOptions descent;      // the descent's moves and restarts
};

class PortfolioSearch : public Strategy {
 public:
  enum Move : std::size_t { global = 0, descent = 1, genetic = 2, surrogate = 3 };
  static constexpr std::size_t kMoves = 4;

  PortfolioSearch(const SearchSpace& space, std::uint64_t seed, PortfolioOptions options);
  std::optional<Point> ask() override;
  void tell(const Point& p, const Outcome& outcome) override;
  [[nodiscard]] std::string name() const override { return options_.name; }

  // The probability that the next chosen ask goes to each move type.
  [[nodiscard]] std::array<double, kMoves> shares() const;
  // Asks each move type answered so far (the initial samples count as global).
  [[nodiscard]] const std::array<std::size_t, kMoves>& answered() const { return answered_; }

 private:
  std::optional<Point> propose(Move m);
  std::optional<Point> surrogate_pick();
  Move choose();

  SearchState state_;
  PortfolioOptions options_;
  Descent descent_;
  AdditiveModel model_;
  std::size_t model_fitted_ = 0;  // points the model held at its last fit
  std::size_t proposed_ = 0;
  std::unordered_map<Point, Move, PointHash> pending_;  // asked, not told yet
  std::array<double, kMoves> credit_{};
  std::array<double, kMoves> trials_{};
  std::array<std::size_t, kMoves> answered_{};
  std::vector<double> best_times_;  // the best top_k passed times, ascending
};

}  // namespace kev
