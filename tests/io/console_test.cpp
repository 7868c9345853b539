#include "io/console.h"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>
#include <vector>

namespace kev::io {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

TEST(Console, LinesFromSeveralThreadsStayWhole) {
  std::ostringstream out;
  Console console(out, /*tty=*/false);
  constexpr int kThreads = 8;
  constexpr int kLines = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&console, t] {
      const std::string part(40, static_cast<char>('a' + t));
      for (int i = 0; i < kLines; ++i) console.print(part + " " + part + " " + std::to_string(i));
    });
  for (auto& t : threads) t.join();
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(kThreads * kLines));
  std::vector<int> next(kThreads, 0);
  for (const auto& l : lines) {
    const int t = l.front() - 'a';
    ASSERT_GE(t, 0);
    ASSERT_LT(t, kThreads);
    const std::string part(40, l.front());
    EXPECT_EQ(l, part + " " + part + " " + std::to_string(next[t]++));
  }
}

TEST(Console, AStatusLineIsClearedBeforeALineAndDrawnAgainAfterIt) {
  std::ostringstream out;
  Console console(out, /*tty=*/true);
  console.status("tune a: 1/4 evaluations");
  console.print("kernelevo: warning: throttled");
  console.end_status("tune a: 4/4 evaluations");
  EXPECT_EQ(out.str(),
            "\r\033[Ktune a: 1/4 evaluations"
            "\r\033[Kkernelevo: warning: throttled\ntune a: 1/4 evaluations"
            "\r\033[Ktune a: 4/4 evaluations\n");
}

TEST(Console, WithoutATerminalStatusLinesAreNotDrawn) {
  std::ostringstream out;
  Console console(out, /*tty=*/false);
  console.status("tune a: 1/4 evaluations");
  console.print("kernelevo: note");
  console.print("two\nlines\n");
  EXPECT_EQ(out.str(), "kernelevo: note\ntwo\nlines\n");
}

TEST(Console, StatusLinesFromSeveralThreadsNeverSplitALine) {
  std::ostringstream out;
  Console console(out, /*tty=*/true);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&console, t] {
      for (int i = 0; i < 200; ++i) {
        console.status("tune k" + std::to_string(t) + ": " + std::to_string(i));
        if (i % 50 == 0) console.print("kernelevo: k" + std::to_string(t) + " note");
      }
    });
  for (auto& t : threads) t.join();
  // Every line printed is whole: it ends before the next status redraw begins.
  for (const auto& l : lines_of(out.str())) {
    const auto note = l.find("kernelevo: ");
    if (note == std::string::npos) continue;
    EXPECT_EQ(l.substr(note).find("\r"), std::string::npos) << l;
    EXPECT_EQ(l.substr(note).size(), std::string("kernelevo: k0 note").size()) << l;
  }
}

}  // namespace
}  // namespace kev::io
