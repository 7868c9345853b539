// Log text: no value can start a line of its own or spell a GitHub workflow command.
#include "io/log_text.h"

#include <gtest/gtest.h>

#include <ostream>
#include <sstream>

namespace kev::io {
namespace {

TEST(LogText, EveryLineOfAMessageCarriesThePrefix) {
  EXPECT_EQ(prefixed_lines("kev: ", "unknown key 'bad\n::error file=x.cu::forged'"),
            "kev: unknown key 'bad\nkev: ::error file=x.cu::forged'\n");
  EXPECT_EQ(prefixed_lines("kev: ", "compile log:\na.cu(3): error\n"),
            "kev: compile log:\nkev: a.cu(3): error\n");
  EXPECT_EQ(prefixed_lines("kev: ", ""), "kev: \n");
}

TEST(LogText, CarriageReturnsAndControlsAreShownNotObeyed) {
  EXPECT_EQ(prefixed_lines("k: ", "a\r::error::x"), "k: a\\r::error::x\n");
  EXPECT_EQ(prefixed_lines("k: ", "a\x1b[2Jb\tc\x7f"), "k: a\\x1b[2Jb\tc\\x7f\n");
  EXPECT_EQ(one_line("a\nb\r\nc"), "a\\nb\\r\\nc");
  EXPECT_EQ(one_line("plain, with tabs\tand UTF-8 \xc3\xa9"),
            "plain, with tabs\tand UTF-8 \xc3\xa9");
}

std::string guarded(const std::string& text) {
  std::ostringstream sink;
  {
    CommandGuardBuffer guard(sink.rdbuf());
    std::ostream out(&guard);
    out << text << std::flush;
  }
  return sink.str();
}

// Written one character at a time, with a flush after each, as std::cerr (unitbuf) may do.
std::string guarded_bytewise(const std::string& text) {
  std::ostringstream sink;
  {
    CommandGuardBuffer guard(sink.rdbuf());
    std::ostream out(&guard);
    for (char c : text) out << c << std::flush;
  }
  return sink.str();
}

TEST(CommandGuard, NeutralisesCommandsAtLineStarts) {
  const std::string text =
      "kernelevo: fine\n::error file=a.cu::forged\n   ::add-mask::x\r::warning::y\n";
  const std::string want =
      "kernelevo: fine\n\\::error file=a.cu::forged\n\\   ::add-mask::x\r\\::warning::y\n";
  EXPECT_EQ(guarded(text), want);
  EXPECT_EQ(guarded_bytewise(text), want);
}

TEST(CommandGuard, SkippableCharactersDoNotHideACommand) {
  // A no-break space (trimmed), a soft hyphen and a control (skipped by culture comparison).
  EXPECT_EQ(guarded("\xc2\xa0::error::x\n"), "\\\xc2\xa0::error::x\n");
  EXPECT_EQ(guarded(":\xc2\xad:error::x\n"), "\\:\xc2\xad:error::x\n");
  EXPECT_EQ(guarded("\x01::error::x\n"), "\\\x01::error::x\n");
  EXPECT_EQ(guarded("a #\x01#[error]x ##\xc2\xad[warning]y"),
            "a #\x01#\\[error]x ##\xc2\xad\\[warning]y");
}

TEST(CommandGuard, NeutralisesTheOldFormAnywhereInALine) {
  const std::string text = "kernelevo: key '##[error]forged' and ###[x]\n##[warning]y";
  const std::string want = "kernelevo: key '##\\[error]forged' and ###\\[x]\n##\\[warning]y";
  EXPECT_EQ(guarded(text), want);
  EXPECT_EQ(guarded_bytewise(text), want);
}

TEST(CommandGuard, LeavesOrdinaryOutputAlone) {
  const std::string text =
      "kernelevo: std::vector at a.cu:3:1: error: x\n: one colon\n# [heading]\n"
      "\r\x1b[Ktune k: 3/10 evaluations, best \x1b[1m1.0 us\x1b[0m\n  indented\n";
  EXPECT_EQ(guarded(text), text);
  EXPECT_EQ(guarded_bytewise(text), text);
  EXPECT_EQ(guarded("ends with a colon:"), "ends with a colon:");
  EXPECT_EQ(guarded("  :"), "  :");  // held back until known, then written
}

TEST(CommandGuard, ScopedOnAStreamUntilItEnds) {
  std::ostringstream out;
  {
    const ScopedCommandGuard guard(out);
    out << "::error::x\n  :";
  }
  EXPECT_EQ(out.str(), "\\::error::x\n  :");  // what was held back is written at the end
  out << "::after";
  EXPECT_EQ(out.str(), "\\::error::x\n  :::after");
}

}  // namespace
}  // namespace kev::io
