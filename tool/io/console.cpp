#include "io/console.h"

#include <unistd.h>

#include <iostream>

namespace kev::io {

namespace {
constexpr std::string_view kClearLine = "\r\033[K";
}

Console::Console(std::ostream& out, bool tty) : out_(out), tty_(tty) {}

Console& Console::standard_error() {
  static Console console(std::cerr, isatty(STDERR_FILENO) != 0);
  return console;
}

void Console::print(std::string_view text) {
  std::lock_guard lock(mutex_);
  std::string s;
  if (!status_.empty()) s += kClearLine;
  s += text;
  if (s.empty() || s.back() != '\n') s += '\n';
  s += status_;
  out_ << s << std::flush;
}

void Console::status(std::string_view text) {
  if (!tty_) return;
  std::lock_guard lock(mutex_);
  status_ = text;
  out_ << kClearLine << status_ << std::flush;
}

void Console::end_status(std::string_view text) {
  std::lock_guard lock(mutex_);
  if (tty_) out_ << kClearLine;
  status_.clear();
  out_ << text << '\n' << std::flush;
}

}  // namespace kev::io
