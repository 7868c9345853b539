#include "io/log_text.h"

#include <cstdio>

namespace kev::io {

namespace {

void append_escaped(std::string& out, char c) {
  const auto u = static_cast<unsigned char>(c);
  if (c == '\r') {
    out += "\\r";
  } else if (c == '\n') {
    out += "\\n";
  } else if ((u < 0x20 && c != '\t') || u == 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", u);
    out += buf;
  } else {
    out += c;
  }
}

bool is_control(unsigned char u) { return u < 0x20 || u == 0x7f; }

// Characters the runner's culture-aware comparison may skip between those of "::" or "##".
bool is_ignorable(char c) {
  const auto u = static_cast<unsigned char>(c);
  return is_control(u) || u >= 0x80;
}

}  // namespace

std::string prefixed_lines(std::string_view prefix, std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::string out(prefix);
  for (char c : text) {
    if (c == '\n') {
      out += '\n';
      out += prefix;
    } else {
      append_escaped(out, c);
    }
  }
  out += '\n';
  return out;
}

std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) append_escaped(out, c);
  return out;
}

CommandGuardBuffer::~CommandGuardBuffer() {
  write(pending_);
  out_->pubsync();
}

void CommandGuardBuffer::write(std::string_view s) {
  if (!s.empty()) out_->sputn(s.data(), static_cast<std::streamsize>(s.size()));
}

void CommandGuardBuffer::put(char c) {
  if (c == '\n' || c == '\r') {
    write(pending_);
    pending_.clear();
    write(std::string_view(&c, 1));
    line_start_ = true;
    colons_ = 0;
    hashes_ = 0;
    return;
  }
  if (line_start_) {
    // .NET's TrimStart drops blanks (Unicode ones too) before the runner looks for "::".
    if (c == ':' || c == ' ' || is_ignorable(c)) {
      pending_ += c;
      if (c == ':' && ++colons_ == 2) {
        write("\\");
        write(pending_);
        pending_.clear();
        line_start_ = false;
      }
      return;
    }
    write(pending_);
    pending_.clear();
    line_start_ = false;
  }
  if (c == '[' && hashes_ >= 2) write("\\");
  if (c == '#')
    ++hashes_;
  else if (!is_ignorable(c))
    hashes_ = 0;
  write(std::string_view(&c, 1));
}

CommandGuardBuffer::int_type CommandGuardBuffer::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  put(traits_type::to_char_type(ch));
  return ch;
}

std::streamsize CommandGuardBuffer::xsputn(const char* s, std::streamsize n) {
  for (std::streamsize i = 0; i < n; ++i) put(s[i]);
  return n;
}

int CommandGuardBuffer::sync() { return out_->pubsync(); }

}  // namespace kev::io
