#pragma once
// Human progress on stderr: one updating line on a terminal, plain lines (one per new best)
// otherwise. Colour only on a terminal and when NO_COLOR is unset.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/time_text.h"  // format_time_us, for the CLI's messages
#include "core/tuner.h"
#include "io/console.h"

namespace kev::cli {

class Progress {
 public:
  Progress(std::string label, std::optional<std::uint64_t> total);  // writes to stderr
  Progress(std::string label, std::optional<std::uint64_t> total, io::Console& console, bool color);
  // After each evaluation: evaluations done so far and the best time (if any passed).
  void update(std::uint64_t done, std::optional<double> best_us, bool improved);
  // The same from the tuner's observer: evaluation `index` (from 0) was `e`, the best so far
  // `best`.
  void evaluated(std::size_t index, const Evaluation& e, const Evaluation* best);
  void finish();

 private:
  std::string line(std::uint64_t done, std::optional<double> best_us) const;

  std::string label_;
  std::optional<std::uint64_t> total_;
  io::Console& console_;
  bool tty_;
  bool color_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
  std::uint64_t last_done_ = 0;
  std::optional<double> last_best_;
};

}  // namespace kev::cli
