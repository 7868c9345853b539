#pragma once
// The one owner of stderr's human output (as ninja's LinePrinter): several threads (one per
// GPU) print whole lines that never interleave, and a status line redrawn in place on a
// terminal (progress) is cleared before another line and drawn again after it.
#include <iosfwd>
#include <mutex>
#include <string>
#include <string_view>

namespace kev::io {

class Console {
 public:
  Console(std::ostream& out, bool tty);
  // std::cerr; a terminal when stderr is one.
  static Console& standard_error();

  [[nodiscard]] bool tty() const { return tty_; }
  // `text` (which may hold several lines) and a newline, in one piece.
  void print(std::string_view text);
  // Terminal only: `text` replaces the status line.
  void status(std::string_view text);
  // Terminal: the status line's last text, kept (ended by a newline). Elsewhere: `text` as a
  // line.
  void end_status(std::string_view text);

 private:
  std::mutex mutex_;
  std::ostream& out_;
  bool tty_;
  std::string status_;  // drawn on the terminal's last line; empty when none
};

}  // namespace kev::io
