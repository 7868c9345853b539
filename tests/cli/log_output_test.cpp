// What the binary prints on stderr cannot carry a GitHub workflow command, whatever the
// files it reads hold: a spec whose YAML key holds a newline and "::error ...", or "##[".
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "support/cli_run.h"

namespace {

namespace fs = std::filesystem;
using kev::test_support::run_kernelevo;
using kev::test_support::write_text;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "kev-log-XXXXXX").string();
    path = mkdtemp(t.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// The lines of `text` the GitHub runner would take for a workflow command: after trimming
// leading blanks they start with "::", or they hold "##[" anywhere.
std::string commands_in(const std::string& text) {
  std::string found;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    std::istringstream parts(line);
    for (std::string part; std::getline(parts, part, '\r');) {
      const auto start = part.find_first_not_of(" \t\v\f");
      if ((start != std::string::npos && part.compare(start, 2, "::") == 0) ||
          part.find("##[") != std::string::npos)
        found += part + "\n";
    }
  }
  return found;
}

const char* const kSpec = R"(// clang-format off
/* @kernelevo
id: k
kernel: k
"bad\n::error file=src/x.cu,line=1::forged\r::add-mask::secret": 1
"also ##[error]forged": 2
params:
  B: [1, 2]
*/
// clang-format on
__global__ void k() {}
)";

TEST(LogOutput, ASpecKeyWithANewlineStartsNoCommandLine) {
  TempDir tmp;
  write_text(tmp.path / "k.cu", kSpec);
  const auto scan = run_kernelevo("scan k.cu", tmp.path);
  EXPECT_EQ(scan.exit_code, 2) << scan.err;
  EXPECT_NE(scan.err.find("kernelevo: k.cu:5:1: error: unknown key 'bad"), std::string::npos)
      << scan.err;
  EXPECT_NE(scan.err.find("forged"), std::string::npos) << scan.err;  // shown, not obeyed
  EXPECT_EQ(commands_in(scan.err), "") << scan.err;
  for (std::string line; const char c : scan.err) {  // every line is kernelevo's
    if (c != '\n') {
      line += c;
      continue;
    }
    EXPECT_EQ(line.rfind("kernelevo: ", 0), 0U) << line;
    line.clear();
  }

  // check loads the same spec and reports through the same printer.
  const auto check = run_kernelevo("check k.cu --arch sm_90 --replay /dev/null", tmp.path);
  EXPECT_EQ(check.exit_code, 2) << check.err;
  EXPECT_NE(check.err.find("unknown key"), std::string::npos) << check.err;
  EXPECT_EQ(commands_in(check.err), "") << check.err;
}

TEST(LogOutput, ASourcePathWithACommandIsShownNeutralised) {
  TempDir tmp;
  const std::string name = "##[error]forged.cu";
  write_text(tmp.path / name, "/* @kernelevo\nid: k\n*/\n__global__ void k() {}\n");
  const auto scan = run_kernelevo("scan .", tmp.path);
  EXPECT_EQ(scan.exit_code, 2) << scan.err;
  EXPECT_NE(scan.err.find("##\\[error]forged.cu"), std::string::npos) << scan.err;
  EXPECT_EQ(commands_in(scan.err), "") << scan.err;
}

TEST(LogOutput, AFileNameWithANewlineStaysOnItsLine) {
  TempDir tmp;
  write_text(tmp.path / "a\n::error::forged.cu",
             "/* @kernelevo\nid: k\n*/\n__global__ void k() {}\n");
  const auto scan = run_kernelevo("scan .", tmp.path);
  EXPECT_EQ(scan.exit_code, 2) << scan.err;
  EXPECT_NE(scan.err.find("kernelevo: a\\n::error::forged.cu:1:4: warning: "), std::string::npos)
      << scan.err;
  EXPECT_NE(scan.err.find("kernelevo: a\\n::error::forged.cu:1:4: error: missing required key"),
            std::string::npos)
      << scan.err;
  EXPECT_EQ(commands_in(scan.err), "") << scan.err;
  const auto check = run_kernelevo("check . --arch sm_90 --replay /dev/null", tmp.path);
  EXPECT_EQ(check.exit_code, 2) << check.err;
  EXPECT_NE(check.err.find("kernelevo: a\\n::error::forged.cu:1:4: warning: "), std::string::npos)
      << check.err;
  EXPECT_EQ(commands_in(check.err), "") << check.err;
}

}  // namespace
