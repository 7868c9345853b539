#include "cli/progress.h"

#include <cstdio>
#include <cstdlib>

#include "io/log_text.h"

namespace kev::cli {

Progress::Progress(std::string label, std::optional<std::uint64_t> total)
    : Progress(std::move(label), total, io::Console::standard_error(),
               std::getenv("NO_COLOR") == nullptr) {}

Progress::Progress(std::string label, std::optional<std::uint64_t> total, io::Console& console,
                   bool color)
    : label_(io::one_line(label)),
      total_(total),
      console_(console),
      tty_(console.tty()),
      color_(color && tty_) {}

std::string Progress::line(std::uint64_t done, std::optional<double> best_us) const {
  std::string s = label_ + ": " + std::to_string(done);
  if (total_) s += "/" + std::to_string(*total_);
  s += " evaluations";
  if (best_us) {
    const std::string best = format_time_us(*best_us);
    s += ", best " + (color_ ? "\033[1m" + best + "\033[0m" : best);
  }
  return s;
}

void Progress::evaluated(std::size_t index, const Evaluation& e, const Evaluation* best) {
  update(index + 1, best != nullptr ? best->outcome.time_us : std::nullopt,
         best != nullptr && best->point == e.point);
}

void Progress::update(std::uint64_t done, std::optional<double> best_us, bool improved) {
  last_done_ = done;
  last_best_ = best_us;
  if (tty_) {
    // Redraw at most every 50 ms: a replay runs thousands of evaluations a second.
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && !improved && now - last_draw_ < std::chrono::milliseconds(50)) return;
    last_draw_ = now;
    drawn_ = true;
    console_.status(line(done, best_us));
  } else if (improved) {
    console_.print(line(done, best_us));
  }
}

void Progress::finish() {
  if (tty_) {
    console_.end_status(line(last_done_, last_best_));
    drawn_ = false;
  }
}

}  // namespace kev::cli
