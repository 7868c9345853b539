#pragma once
// Text bound for a log that a CI runner reads. GitHub Actions runs workflow commands found in
// a step's output: a line that starts with "::" once leading blanks are trimmed
// ("::error file=...::", "::add-mask::", "::stop-commands::") and any line holding "##[". What
// kernelevo prints comes partly from files it does not trust (a spec's YAML, a lockfile, a
// pull request's sources, a compiler's log of them), so a value must not be able to start a
// line of its own or spell such a command.
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace kev::io {

// Each line of `text` (split at '\n'; a final '\n' ends the last line) as `prefix` + line +
// '\n'. CR and the other control characters except tab are shown as \r and \xNN, so they
// neither break lines nor move a terminal's cursor.
[[nodiscard]] std::string prefixed_lines(std::string_view prefix, std::string_view text);

// `text` on one line: as above, with newlines shown as \n.
[[nodiscard]] std::string one_line(std::string_view text);

// A stream buffer that passes everything to `out` but the start of a workflow command: a
// '\' goes before a line whose first characters are "::" and before the '[' of "##[". The
// runner compares with culture rules, which skip control and most non-ASCII characters, so
// those do not separate the characters of "::" or "##" here either.
class CommandGuardBuffer : public std::streambuf {
 public:
  explicit CommandGuardBuffer(std::streambuf* out) : out_(out) {}
  ~CommandGuardBuffer() override;
  CommandGuardBuffer(const CommandGuardBuffer&) = delete;
  CommandGuardBuffer& operator=(const CommandGuardBuffer&) = delete;
  [[nodiscard]] std::streambuf* target() const { return out_; }

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void put(char c);
  void write(std::string_view s);

  std::streambuf* out_;
  bool line_start_ = true;
  std::string pending_;  // the line's first characters while they may still begin "::"
  int colons_ = 0;
  int hashes_ = 0;  // '#' seen in a row, mid-line
};

// Puts a CommandGuardBuffer in front of `stream`'s buffer while it lives.
class ScopedCommandGuard {
 public:
  explicit ScopedCommandGuard(std::ostream& stream) : stream_(stream), guard_(stream.rdbuf()) {
    stream.rdbuf(&guard_);
  }
  ~ScopedCommandGuard() { stream_.rdbuf(guard_.target()); }
  ScopedCommandGuard(const ScopedCommandGuard&) = delete;
  ScopedCommandGuard& operator=(const ScopedCommandGuard&) = delete;

 private:
  std::ostream& stream_;
  CommandGuardBuffer guard_;
};

}  // namespace kev::io
