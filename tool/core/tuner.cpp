#include "core/tuner.h"

#include <charconv>
#include <cmath>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

namespace kev {

namespace {

void account(TuneResult& result, const Evaluation& e) {
  ++result.counts[e.outcome.disposition];
  ++result.evaluations;
  if (e.outcome.passed() && e.outcome.time_us &&
      (!result.best || *e.outcome.time_us < *result.best->outcome.time_us))
    result.best = e;
  result.history.push_back(e);
}

}  // namespace

TuneResult run_tuner(TuneRequest request) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::vector<Evaluator*> evaluators{request.evaluator};
  evaluators.insert(evaluators.end(), request.more_evaluators.begin(),
                    request.more_evaluators.end());
  auto set_incumbent = [&](double us) {
    for (Evaluator* ev : evaluators) ev->set_incumbent_us(us);
  };
  TuneResult result;
  for (const auto& e : request.prior) {
    request.strategy->tell(e.point, e.outcome);
    account(result, e);
  }
  if (result.best && result.best->outcome.time_us) set_incumbent(*result.best->outcome.time_us);

  // Everything below is guarded by `mutex`; evaluations run outside it.
  std::mutex mutex;
  std::uint64_t in_flight = 0;
  auto budget_left = [&] {
    if (request.budget.evaluations && result.evaluations + in_flight >= *request.budget.evaluations)
      return false;
    if (request.budget.wall && elapsed() >= request.budget.wall->count()) {
      result.out_of_time = true;
      return false;
    }
    return true;
  };
  auto remaining = [&]() -> std::uint64_t {
    return request.budget.evaluations ? *request.budget.evaluations - result.evaluations - in_flight
                                      : UINT64_MAX;
  };

  std::deque<Point> pending;  // asked (or seeded), not yet evaluated
  std::set<Point> seeded;
  {
    std::set<Point> known;
    for (const auto& e : request.prior) known.insert(e.point);
    for (const Point& p : request.seeds)
      if (request.space->contains(p) && known.insert(p).second) {
        seeded.insert(p);
        pending.push_back(p);
      }
  }
  bool strategy_done = false;
  auto fill = [&](std::size_t want) {
    while (!strategy_done && pending.size() < want && pending.size() < remaining()) {
      auto p = request.strategy->ask();
      if (!p) {
        strategy_done = true;
        break;
      }
      if (seeded.count(*p)) continue;  // evaluated as a seed; its outcome is told
      pending.push_back(std::move(*p));
    }
  };

  auto work = [&](std::size_t worker) {
    Evaluator& evaluator = *evaluators[worker];
    std::unique_lock lock(mutex);
    while (budget_left()) {
      fill(1 + request.lookahead);
      if (pending.empty()) break;
      std::vector<Point> upcoming;
      if (request.lookahead > 0) upcoming.assign(pending.begin(), pending.end());
      Point p = std::move(pending.front());
      pending.pop_front();
      ++in_flight;
      lock.unlock();
      if (!upcoming.empty()) evaluator.prefetch(upcoming);
      Outcome outcome = evaluator.evaluate(p);
      lock.lock();
      --in_flight;
      Evaluation e{std::move(p), std::move(outcome), elapsed(), worker};
      request.strategy->tell(e.point, e.outcome);
      const bool improved = e.outcome.passed() && e.outcome.time_us &&
                            (!result.best || *e.outcome.time_us < *result.best->outcome.time_us);
      account(result, e);
      ++result.new_evaluations;
      if (improved) set_incumbent(*e.outcome.time_us);
      if (request.observer)
        request.observer(result.history.back(), result.evaluations - 1,
                         result.best ? &*result.best : nullptr);
    }
  };
  if (evaluators.size() == 1) {
    work(0);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(evaluators.size());
    for (std::size_t w = 0; w < evaluators.size(); ++w) threads.emplace_back(work, w);
    for (auto& t : threads) t.join();
  }
  result.exhausted = strategy_done && pending.empty();
  result.elapsed_s = elapsed();
  return result;
}

Result<std::chrono::duration<double>> parse_duration(std::string_view text) {
  double value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin || value < 0)
    return make_error("invalid duration '" + std::string(text) + "' (expected e.g. 90s, 5m, 1h)");
  const std::string_view unit(ptr, static_cast<std::size_t>(end - ptr));
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1;
  else if (unit == "ms")
    scale = 1e-3;
  else if (unit == "m" || unit == "min")
    scale = 60;
  else if (unit == "h")
    scale = 3600;
  else
    return make_error("invalid duration unit in '" + std::string(text) +
                      "' (expected ms, s, m or h)");
  // A NaN budget never runs out (elapsed >= NaN is false), nor does an infinite one.
  if (!std::isfinite(value * scale))
    return make_error("invalid duration '" + std::string(text) + "' (expected e.g. 90s, 5m, 1h)");
  return std::chrono::duration<double>(value * scale);
}

}  // namespace kev
