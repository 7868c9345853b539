#pragma once
// A portfolio of move types over one shared search state: global samples, a local descent
// (core/local_search.h), genetic children of the best points (core/moves.h) and a
// surrogate's picks: the best of many samples as an additive model ranks them
// (core/additive_model.h), or the candidate of highest expected improvement under a
// Gaussian process (core/gp_model.h). The initial samples may be spread out (each the
// farthest of several random ones from those before it); a model phase may then give the
// surrogate (and the descent) the next asks, less a share for global samples and genetic
// children while the best time has stopped improving (model_floor, model_patience). After that and
// the first descent to a local optimum, each ask picks a move type at random: every type keeps a
// floor share, and the rest goes to the types whose recent proposals improved on the best time (a
// bandit over move types, each type's record fading as it is tried). A space where one kind of move
// stops paying moves its budget to another, and global samples never stop.
#include <array>
#include <string>
#include <unordered_map>

#include "core/additive_model.h"
#include "core/gp_model.h"
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
  bool gp = false;                 // the surrogate is a Gaussian process picking by expected
                                   // improvement (else the additive model's best prediction)
  int model_phase = 0;             // after the initial samples, this many asks go to the surrogate
  double model_share = 1.0;        // in the model phase, the surrogate's share (the rest: descent)
  double model_floor = 0.0;        // in the model phase, global samples and genetic children
                                   // get this share each (model_share splits the rest) ...
  int model_patience = 0;          // ... once this many asks in a row have not improved the
                                   // best time (0: from the start)
  bool maximin = false;            // initial samples spread out (maximin over candidates)
  int maximin_candidates = 30;     // each initial sample is the farthest of this many
  int pool_random = 300;           // the GP's candidates: this many random samples
  int pool_elites = 5;             // and the unseen neighbours of the best this many points
  double refit_growth = 1.2;       // the GP's scales are chosen again when its points grow so
  int ard_passes = 0;              // passes choosing each dimension's own length scale
  bool power_of_two_features = false;  // the GP also sees which values are powers of two
  bool failed_as_worst = false;        // failed points enter the GP at the worst time seen
  LocalSearchOptions descent;          // the descent's moves and restarts
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
  std::optional<Point> additive_pick();
  std::optional<Point> gp_pick();
  std::optional<Point> initial_sample();
  Move choose();
  Move choose_modelling();

  SearchState state_;
  PortfolioOptions options_;
  Descent descent_;
  AdditiveModel model_;
  std::size_t model_fitted_ = 0;  // points the model held at its last fit
  GpModel gp_;
  std::size_t gp_fitted_ = 0;   // points the GP held when its length scale was last chosen
  std::vector<Point> failed_;   // failed points not yet in the GP
  std::vector<Point> initial_;  // the initial samples proposed so far
  std::size_t proposed_ = 0;
  std::unordered_map<Point, Move, PointHash> pending_;  // asked, not told yet
  std::array<double, kMoves> credit_{};
  std::array<double, kMoves> trials_{};
  std::array<std::size_t, kMoves> answered_{};
  std::vector<double> best_times_;  // the best top_k passed times, ascending
  std::size_t last_best_ = 0;       // proposals made when the best time last improved
};

}  // namespace kev
