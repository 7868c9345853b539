// `check`, `compare` and `report` driven through the binary in replay mode.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "support/cli_run.h"

namespace {

namespace fs = std::filesystem;
const std::string kBin = KERNELEVO_BINARY;
const std::string kGate = std::string(KERNELEVO_FIXTURES) + "/gate";

struct Proc {
  int rc = -1;
  std::string out;
};

// stdout only.
Proc run(const std::string& cmd) {
  const auto r = kev::test_support::run_in(fs::current_path(), cmd);
  return {r.exit_code, r.out};
}

std::string slurp(const fs::path& path) { return kev::test_support::read_text(path); }

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "kev-gate-XXXXXX").string();
    path = mkdtemp(t.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string in_gate(const std::string& args) { return "cd " + kGate + " && " + kBin + " " + args; }

TEST(CheckCli, UnchangedPassesSlowerFailsWithAReport) {
  TempDir tmp;
  const Proc ok = run(in_gate("check --replay unchanged.jsonl"));
  EXPECT_EQ(ok.rc, 0) << ok.out;
  EXPECT_NE(ok.out.find("| `softmax_rows` | sm_90 | NVIDIA H200 | PASS |"), std::string::npos)
      << ok.out;

  const auto json = tmp.path / "r.json";
  const auto md = tmp.path / "r.md";
  const Proc bad = run(in_gate("check --replay slower.jsonl --report-json " + json.string() +
                               " --report-md " + md.string()));
  EXPECT_EQ(bad.rc, 1) << bad.out;
  const std::string j = slurp(json);
  EXPECT_NE(j.find("\"schema\": \"kernelevo-report\""), std::string::npos);
  EXPECT_NE(j.find("\"verdict\": \"SLOWER\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"mode\": \"replay\""), std::string::npos);
  EXPECT_NE(slurp(md).find("**SLOWER**"), std::string::npos);
  EXPECT_NE(bad.out.find("slower than allowed +5.0%"), std::string::npos);
}

// A NaN threshold compared false against everything and turned SLOWER into UNSURE (exit 0).
TEST(CheckCli, NonFiniteThresholdsAreRefused) {
  for (const char* value : {"nan", "inf", "-nan", "1e999"}) {
    const auto r = kev::test_support::run_in(
        kGate, kBin + " check --replay slower.jsonl --threshold " + value);
    EXPECT_EQ(r.exit_code, 2) << value << ": " << r.out;
    EXPECT_NE(r.err.find("--threshold: '" + std::string(value) + "' is not a finite number"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");  // nothing measured, no verdict
  }
  EXPECT_EQ(run(in_gate("check --replay slower.jsonl --threshold 0.05")).rc, 1);
}

// Times no run takes in a replayed trace: a negative one read as a huge speed-up (FASTER, exit
// 0); 1e308 us made the ratio infinite and its interval NaN, and the check said UNSURE and
// passed (exit 0) a kernel recorded as hours slower.
TEST(CheckCli, ATimeNoRunTakesInATraceIsAnErrorNamingItsLine) {
  TempDir tmp;
  for (const auto& [time, said] :
       {std::pair{"-5", "time_us is -5"}, std::pair{"1e308", "time_us is 1e+308"}}) {
    std::string trace = slurp(kGate + "/slower.jsonl");
    const auto at = trace.find("\"time_us\": ", trace.find('\n'));
    ASSERT_NE(at, std::string::npos);
    trace.replace(at, trace.find(',', at) - at, std::string("\"time_us\": ") + time);
    const fs::path bad = tmp.path / "bad.jsonl";
    kev::test_support::write_text(bad, trace);
    const auto r = kev::test_support::run_in(kGate, kBin + " check --replay " + bad.string());
    EXPECT_EQ(r.exit_code, 2) << time << ": " << r.out;
    EXPECT_NE(r.err.find(bad.string() + ":2:1: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
  }
}

TEST(CheckCli, BrokenWinnerFails) {
  const Proc r = run(in_gate("check --replay broken.jsonl"));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("the locked winner is now incorrect: y[17]"), std::string::npos) << r.out;
}

TEST(CheckCli, NoGpuSkipsUnlessRequired) {
  TempDir tmp;  // an empty project: nothing to load, nothing to measure on
  const auto skipped = kev::test_support::run_in(tmp.path, kBin + " check");
  EXPECT_EQ(skipped.exit_code, 3) << skipped.err;
  EXPECT_NE(skipped.err.find("kernelevo: check skipped: no GPU (exit 3)"), std::string::npos)
      << skipped.err;
  const auto required = kev::test_support::run_in(tmp.path, kBin + " check --require-gpu");
  EXPECT_EQ(required.exit_code, 1) << required.err;
  EXPECT_NE(required.err.find("(--require-gpu or KERNELEVO_REQUIRE_GPU: a missing GPU fails"),
            std::string::npos)
      << required.err;
}

TEST(CheckCli, UnknownDeviceNeedsArch) {
  TempDir tmp;
  const Proc r = run("cd " + tmp.path.string() + " && " + kBin + " check --replay " + kGate +
                     "/unchanged.jsonl");
  EXPECT_EQ(r.rc, 2);
  const Proc with_arch = run("cd " + tmp.path.string() + " && " + kBin +
                             " check --arch sm_90 --replay " + kGate + "/unchanged.jsonl");
  EXPECT_EQ(with_arch.rc, 0);
  EXPECT_NE(with_arch.out.find("no kernels"), std::string::npos) << with_arch.out;
}

// A git repository whose HEAD holds the gate fixture's lockfile.
struct Repo : TempDir {
  Repo() {
    fs::copy_file(kGate + "/kernelevo.lock.json", path / "kernelevo.lock.json");
    const Proc r =
        run("cd " + path.string() +
            " && git init -q && git add . && git -c user.email=t@t -c user.name=t commit -qm base");
    EXPECT_EQ(r.rc, 0);
  }
  std::string compare(const std::string& base_trace, const std::string& head_trace,
                      const std::string& extra = "") {
    return "cd " + path.string() + " && " + kBin + " compare --base HEAD --replay-base " + kGate +
           "/" + base_trace + " --replay-head " + kGate + "/" + head_trace + " " + extra;
  }
  [[nodiscard]] int worktrees() const {
    const Proc r =
        run("cd " + path.string() + " && git worktree list --porcelain | grep -c '^worktree '");
    return std::atoi(r.out.c_str());
  }
};

// check and compare read the build's compile settings as tune does, before anything is
// measured: a settings file that is not there is an error naming it (exit 2), whether or not
// a GPU is present. Replay compiles nothing, so it does not read them.
TEST(CheckCli, CompileSettingsAreReadAsTuneReadsThem) {
  Repo repo;
  const std::string missing = (repo.path / "no-such-settings").string();
  for (const std::string command : {"check", "compare --base HEAD"}) {
    const auto r = kev::test_support::run_in(
        repo.path, kBin + " " + command + " --compile-settings " + missing);
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find("cannot read " + missing), std::string::npos) << command << ": " << r.err;
  }
  EXPECT_EQ(repo.worktrees(), 1);
}

// Without a GPU, compare stops before checking out the base: exit 3, said as check says it,
// or a failure with --require-gpu.
TEST(CompareCli, NoGpuSkipsUnlessRequired) {
  Repo repo;
  const auto skipped = kev::test_support::run_in(repo.path, kBin + " compare --base HEAD");
  if (skipped.exit_code == 0) GTEST_SKIP() << "a GPU is present";
  EXPECT_EQ(skipped.exit_code, 3) << skipped.err;
  EXPECT_NE(skipped.err.find("kernelevo: compare skipped: no GPU (exit 3)"), std::string::npos)
      << skipped.err;
  const auto required =
      kev::test_support::run_in(repo.path, kBin + " compare --base HEAD --require-gpu");
  EXPECT_EQ(required.exit_code, 1) << required.err;
  EXPECT_EQ(required.err.find("skipped"), std::string::npos) << required.err;
  EXPECT_EQ(repo.worktrees(), 1);
}

TEST(CompareCli, VerdictsAndExitCodes) {
  Repo repo;
  const Proc slower = run(repo.compare("unchanged.jsonl", "slower.jsonl"));
  EXPECT_EQ(slower.rc, 1) << slower.out;
  EXPECT_NE(slower.out.find("**SLOWER**"), std::string::npos) << slower.out;
  EXPECT_NE(slower.out.find("Mann-Whitney"), std::string::npos);
  const Proc faster = run(repo.compare("unchanged.jsonl", "faster.jsonl"));
  EXPECT_EQ(faster.rc, 0) << faster.out;
  EXPECT_NE(faster.out.find("| FASTER |"), std::string::npos) << faster.out;
  const Proc same = run(repo.compare("unchanged.jsonl", "unchanged.jsonl"));
  EXPECT_EQ(same.rc, 0);
  EXPECT_NE(same.out.find("| SAME |"), std::string::npos) << same.out;
  EXPECT_EQ(repo.worktrees(), 1);  // every base worktree was removed
}

// The cells of the Markdown table row of `id` (between the pipes), and its evidence line.
std::vector<std::string> row_cells(const std::string& md, const std::string& id) {
  std::vector<std::string> cells;
  const auto at = md.find("| `" + id + "` |");
  if (at == std::string::npos) return cells;
  std::istringstream row(md.substr(at + 1, md.find('\n', at) - at - 1));
  std::string cell;
  while (std::getline(row, cell, '|'))
    cells.push_back(cell.substr(1, cell.size() > 1 ? cell.size() - 2 : 0));
  return cells;
}

std::string evidence_line(const std::string& md, const std::string& id) {
  const auto at = md.find("- `" + id + "` on ");
  return at == std::string::npos ? "" : md.substr(at, md.find('\n', at) - at);
}

// Each number in the evidence line is written as the table writes it: one rounding path.
// (The evidence once repeated the medians as "189.02 -> 73.48 us", the interval as "[0.388,
// 0.389]" and p with two digits beside the table's three.)
TEST(CompareCli, TheEvidenceLineReadsAsTheTable) {
  Repo repo;
  for (const char* head : {"faster.jsonl", "unchanged.jsonl", "slower.jsonl"}) {
    const Proc r = run(repo.compare("unchanged.jsonl", head));
    const auto cells = row_cells(r.out, "softmax_rows");
    ASSERT_EQ(cells.size(), 10u)
        << r.out;  // Kernel Arch Device Verdict Base Head Change CI p Params
    const std::string evidence = evidence_line(r.out, "softmax_rows");
    EXPECT_NE(
        evidence.find(cells[5] + " against " + cells[4] + " (" + cells[6] +
                      ", 95% CI of the ratio " + cells[7] + ", Mann-Whitney p=" + cells[8] + ","),
        std::string::npos)
        << head << "\n"
        << r.out;
    EXPECT_EQ(evidence.find("median"), std::string::npos) << evidence;
    EXPECT_EQ(evidence.find("p = "), std::string::npos) << evidence;
  }
}

TEST(CompareCli, NonFiniteMinimumChangesAreRefused) {
  Repo repo;
  for (const char* option : {"--min-change", "--min-abs-us"}) {
    const auto r = kev::test_support::run_in(
        repo.path, repo.compare("unchanged.jsonl", "slower.jsonl", std::string(option) + " nan")
                       .substr(("cd " + repo.path.string() + " && ").size()));
    EXPECT_EQ(r.exit_code, 2) << option << ": " << r.out;
    EXPECT_NE(r.err.find(std::string(option) + ": 'nan' is not a finite number"), std::string::npos)
        << r.err;
  }
  EXPECT_EQ(repo.worktrees(), 1);  // refused before any base worktree was made
}

TEST(CompareCli, UsesTheBaseRevisionsLockedParameters) {
  Repo repo;
  // The head locks another configuration (512, recorded at 80 us) than the base (256, 70 us).
  std::string lock = slurp(repo.path / "kernelevo.lock.json");
  lock.replace(lock.find("\"SOFTMAX_BLOCK\": 256"), 20, "\"SOFTMAX_BLOCK\": 512");
  std::ofstream(repo.path / "kernelevo.lock.json") << lock;
  const Proc r = run(repo.compare("unchanged.jsonl", "unchanged.jsonl"));
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("SOFTMAX_BLOCK=256 → SOFTMAX_BLOCK=512"), std::string::npos) << r.out;
}

TEST(CompareCli, UnknownBaseIsAUsageError) {
  Repo repo;
  const Proc r = run("cd " + repo.path.string() + " && " + kBin +
                     " compare --base no-such-ref --replay-base x --replay-head y");
  EXPECT_EQ(r.rc, 2);
}

TEST(CompareCli, InterruptedCompareRemovesItsWorktree) {
  for (int sig : {SIGINT, SIGTERM}) {
    Repo repo;
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
      dup2(devnull, 2);
      if (chdir(repo.path.c_str()) != 0) _exit(126);
      const std::string base = kGate + "/unchanged.jsonl";
      execl(kBin.c_str(), kBin.c_str(), "compare", "--base", "HEAD", "--replay-base", base.c_str(),
            "--replay-head", base.c_str(), "--pause-after-worktree", "30",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    // wait for the worktree to appear
    bool appeared = false;
    for (int i = 0; i < 200 && !appeared; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      appeared = repo.worktrees() == 2;
    }
    ASSERT_TRUE(appeared) << "the base worktree never appeared";
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
    EXPECT_EQ(repo.worktrees(), 1) << "signal " << sig;
  }
}

// What a tune pull request shows: the merged lockfile against the one it started from, per
// architecture and device, old -> new parameters and times (tests/fixtures: shard_a.lock.json
// before, golden/merge_shards.lock.json after `kernelevo merge`).
TEST(ReportCli, ALockfileAgainstItsBaseShowsOldToNewPerDevice) {
  const std::string fixtures = KERNELEVO_FIXTURES;
  const Proc r =
      run(kBin + " report " + fixtures + "/golden/merge_shards.lock.json --base-lockfile " +
          fixtures + "/lockfiles/shard_a.lock.json");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("| `softmax_rows` | sm_90 | NVIDIA H200 | FASTER | SOFTMAX_BLOCK=512, "
                       "SOFTMAX_VEC=4 → SOFTMAX_BLOCK=256, SOFTMAX_VEC=4 | 70.1 us → 68.3 us | "
                       "1.03x |"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| `softmax_rows` | sm_80 | NVIDIA A100-SXM4-80GB | FASTER | source "
                       "defaults → SOFTMAX_BLOCK=256, SOFTMAX_VEC=2 | 180 us → 101 us | 1.78x |"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| `scan_blocks` | sm_90 | NVIDIA H200 | FASTER | SCAN_BLOCK=256 → "
                       "SCAN_BLOCK=512 | 12.5 us → 11.0 us | 1.14x |"),
            std::string::npos)
      << r.out;
  const Proc html =
      run(kBin + " report " + fixtures + "/golden/merge_shards.lock.json --base-lockfile " +
          fixtures + "/lockfiles/shard_a.lock.json --format html");
  EXPECT_NE(html.out.find(">sm_80</td><td class=\"where\">NVIDIA A100-SXM4-80GB</td>"),
            std::string::npos);
  // A report JSON has its own old side: a base lockfile is refused, naming the report.
  const auto refused = kev::test_support::run_in(
      fs::current_path(), kBin + " report " + kGate +
                              "/../golden/report_check.json --base-lockfile " + fixtures +
                              "/lockfiles/shard_a.lock.json");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("report_check.json:1:1: error: --base-lockfile applies to a lockfile"),
            std::string::npos)
      << refused.err;
}

TEST(ReportCli, RendersEveryFormatFromACheckReport) {
  TempDir tmp;
  const auto json = tmp.path / "r.json";
  (void)run(in_gate("check --replay slower.jsonl --report-json " + json.string()));
  const Proc ann =
      run(kBin + " report " + json.string() + " --format annotations --path-prefix proj");
  EXPECT_EQ(ann.rc, 0);
  EXPECT_EQ(
      ann.out.rfind("::error file=proj/src/softmax.cu,title=kernelevo%3A softmax_rows SLOWER::", 0),
      0u)
      << ann.out;
  const Proc gb = run(kBin + " report " + json.string() + " --format gbench");
  EXPECT_NE(gb.out.find("\"name\": \"softmax_rows/sm_90/NVIDIA H200\""), std::string::npos)
      << gb.out;
  EXPECT_NE(gb.out.find("\"time_unit\": \"us\""), std::string::npos);
  const auto html = tmp.path / "r.html";
  EXPECT_EQ(run(kBin + " report " + json.string() + " --format html -o " + html.string() +
                " --trace " + kGate + "/slower.jsonl")
                .rc,
            0);
  const std::string page = slurp(html);
  EXPECT_NE(page.find("Best time so far against evaluations"), std::string::npos);
  const Proc again = run(kBin + " report " + json.string() + " --format json");
  EXPECT_EQ(again.out, slurp(json));
}

TEST(ReportCli, LockfileIsATuneReport) {
  const Proc md = run(kBin + " report " + kGate + "/kernelevo.lock.json");
  EXPECT_EQ(md.rc, 0);
  EXPECT_NE(md.out.find("## kernelevo tune"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("1.36x"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("exhaustive, 3 evaluations"), std::string::npos);
  EXPECT_EQ(run(kBin + " report " + kGate + "/unchanged.jsonl").rc, 2);
}

}  // namespace
