// The report writers against golden files (tests/fixtures/golden/report_*). To regenerate
// after an intended change: KERNELEVO_UPDATE_GOLDEN=1 ./kernelevo_io_tests
// --gtest_filter='ReportGolden*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "io/report_annotations.h"
#include "io/report_gbench.h"
#include "io/report_html.h"
#include "io/report_json.h"
#include "io/report_markdown.h"
#include "io/report_text.h"

namespace kev::io {
namespace {

const std::string kGolden = std::string(KERNELEVO_FIXTURES) + "/golden/";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = kGolden + name;
  if (std::getenv("KERNELEVO_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  EXPECT_EQ(actual, read_file(path)) << "differs from " << path;
}

KernelReport kernel(std::string id, KernelVerdict v, int line) {
  KernelReport k;
  k.id = std::move(id);
  k.source = "src/" + k.id + ".cu";
  k.line = line;
  k.arch = "sm_90";
  k.device = "NVIDIA H200";
  k.verdict = v;
  return k;
}

Report check_report() {
  Report r;
  r.kind = ReportKind::check;
  r.tool = "kernelevo 0.1.0";
  r.created = "2026-11-30T10:00:00Z";
  r.arch = "sm_90";
  r.device = "NVIDIA H200";
  r.threshold = 0.05;
  r.min_abs_us = 1.0;
  r.rounds = 10;
  r.mode = "replay";
  auto a = kernel("rmsnorm", KernelVerdict::pass, 30);
  a.params = {{"RMS_BLOCK", Value(256)}, {"RMS_VEC", Value(4)}};
  a.baseline_us = 41.2;
  a.time_us = 41.5;
  a.ratio = 41.5 / 41.2;
  a.ratio_ci_low = 1.001;
  a.ratio_ci_high = 1.012;
  a.p_value = 1.0;
  a.samples = 10;
  a.speedup = 1.84;
  a.roofline_fraction = 0.83;
  a.evidence = "41.5 us against 41.2 us recorded (+0.7%): within allowed +5.0%";
  auto b = kernel("softmax_rows", KernelVerdict::slower, 12);
  b.params = {{"SOFTMAX_BLOCK", Value(512)}, {"SOFTMAX_VEC", Value(4)}};
  b.baseline_us = 70.1;
  b.time_us = 91.3;
  b.ratio = 91.3 / 70.1;
  b.ratio_ci_low = 1.29;
  b.ratio_ci_high = 1.31;
  b.p_value = 0.0009765625;
  b.samples = 10;
  b.evidence = "91.3 us against 70.1 us recorded (+30.2%): slower than allowed +5.0%";
  auto c = kernel("scan|odd", KernelVerdict::missing, 7);
  c.evidence = "no locked entry for sm_90 / NVIDIA H200; run kernelevo tune on this GPU";
  r.kernels = {a, b, c};
  return r;
}

Report tune_report() {
  Report r;
  r.kind = ReportKind::tune;
  r.tool = "kernelevo 0.1.0";
  r.created = "2026-11-30T10:00:00Z";
  auto a = kernel("softmax_rows", KernelVerdict::faster, 0);
  a.base_params = {{"SOFTMAX_BLOCK", Value(256)}};
  a.params = {{"SOFTMAX_BLOCK", Value(512)}};
  a.baseline_us = 143.0;
  a.time_us = 70.1;
  a.speedup = 143.0 / 70.1;
  a.strategy = "auto";
  a.evaluations = 96;
  a.roofline_fraction = 0.91;
  a.ratio = 70.1 / 143.0;
  a.ratio_ci_low = 0.47;
  a.ratio_ci_high = 0.51;
  a.evidence = "143 us → 70.1 us (2.04x over the old entry)";
  auto b = kernel("rmsnorm", KernelVerdict::same, 0);
  b.arch = "sm_80";
  b.device = "NVIDIA A100-SXM4-80GB";
  b.baseline_us = 50.0;
  b.time_us = 49.8;
  b.speedup = 50.0 / 49.8;
  r.kernels = {a, b};
  return r;
}

Report compare_report() {
  Report r;
  r.kind = ReportKind::compare;
  r.tool = "kernelevo 0.1.0";
  r.created = "2026-11-30T10:00:00Z";
  r.arch = "sm_90";
  r.device = "NVIDIA H200";
  r.base_ref = "origin/main";
  r.threshold = 0.05;
  r.min_abs_us = 2.0;
  r.rounds = 10;
  r.mode = "gpu";
  auto a = kernel("softmax_rows", KernelVerdict::faster, 12);
  a.base_params = {{"SOFTMAX_BLOCK", Value(256)}};
  a.params = {{"SOFTMAX_BLOCK", Value(512)}};
  a.baseline_us = 90.0;
  a.time_us = 70.0;
  a.ratio = 70.0 / 90.0;
  a.ratio_ci_low = 0.77;
  a.ratio_ci_high = 0.79;
  a.p_value = 0.00018;
  a.samples = 10;
  a.evidence = "70.0 us against 90.0 us (-22.2%)";
  auto b = kernel("rmsnorm", KernelVerdict::unsure, 30);
  b.base_params = b.params = {{"RMS_BLOCK", Value(256)}};
  b.baseline_us = 40.0;
  b.time_us = 42.5;
  b.ratio = 42.5 / 40.0;
  b.ratio_ci_low = 0.98;
  b.ratio_ci_high = 1.14;
  b.p_value = 0.12;
  b.samples = 10;
  b.evidence = "too noisy";
  r.kernels = {a, b};
  return r;
}

TEST(ReportGolden, Markdown) {
  expect_golden("report_check.md", report_markdown(check_report()));
  expect_golden("report_compare.md", report_markdown(compare_report()));
  expect_golden("report_tune.md", report_markdown(tune_report()));
}

TEST(ReportGolden, Json) { expect_golden("report_check.json", report_to_json(check_report())); }

TEST(ReportGolden, Annotations) {
  expect_golden("report_check.annotations.txt", report_annotations(check_report()));
}

TEST(ReportGolden, GoogleBenchmarkJson) {
  expect_golden("report_tune.gbench.json", report_gbench(tune_report(), "gpu-runner-1"));
}

TEST(ReportGolden, Html) {
  Trace trace;
  trace.header.kernel = "softmax_rows";
  for (double t : {143.0, 120.0, 0.0, 150.0, 90.0, 70.1}) {
    TraceRecord rec;
    rec.outcome.disposition = t > 0 ? Disposition::passed : Disposition::compile_failed;
    if (t > 0) rec.outcome.time_us = t;
    trace.records.push_back(rec);
  }
  expect_golden("report_tune.html", report_html(tune_report(), {convergence_from_trace(trace)}));
}

// Every table says where each row was measured: one kernel is locked per architecture and
// device, so a row without them cannot be judged.
TEST(ReportTables, EveryTableHasArchitectureAndDeviceColumns) {
  for (const Report& r : {check_report(), compare_report(), tune_report()}) {
    const std::string md = report_markdown(r);
    EXPECT_NE(md.find("| Kernel | Arch | Device | Verdict |"), std::string::npos) << md;
    const std::string html = report_html(r, {});
    EXPECT_NE(html.find("<th>Kernel</th><th>Arch</th><th>Device</th>"), std::string::npos);
    for (const auto& k : r.kernels) {
      EXPECT_NE(md.find(" | " + k.arch + " | " + k.device + " | "), std::string::npos)
          << k.id << "\n"
          << md;
      EXPECT_NE(html.find(">" + k.arch + "</td><td class=\"where\">" + k.device + "</td>"),
                std::string::npos)
          << k.id;
    }
  }
}

// A tune row shows old -> new parameters and times, the speedup and its interval; one
// without a baseline says so in the speedup's cells instead of a number.
TEST(ReportTables, TuneRowsShowOldToNew) {
  Report r = tune_report();
  const std::string md = report_markdown(r);
  EXPECT_NE(md.find("| SOFTMAX_BLOCK=256 → SOFTMAX_BLOCK=512 | 143 us → 70.1 us | 2.04x | "
                    "1.96x..2.13x |"),
            std::string::npos)
      << md;
  KernelReport none = r.kernels.back();
  none.baseline_us.reset();
  none.speedup.reset();
  none.ratio.reset();
  none.verdict = KernelVerdict::unsure;
  r.kernels = {none};
  const std::string bare = report_markdown(r);
  EXPECT_NE(bare.find("| no baseline → 49.8 us | no baseline | no baseline |"), std::string::npos)
      << bare;
  EXPECT_NE(report_html(r, {}).find("no baseline"), std::string::npos);
}

TEST(ReportTables, CommitsAreShort) {
  Report r = compare_report();
  r.base_ref = "3f2a9c1d4e5b6a7980112233445566778899aabb";
  const std::string md = report_markdown(r);
  EXPECT_NE(md.find("compare against 3f2a9c1d4e5b on"), std::string::npos) << md;
  EXPECT_EQ(md.find("3f2a9c1d4e5b6"), std::string::npos) << md;
  EXPECT_EQ(report_html(r, {}).find("3f2a9c1d4e5b6"), std::string::npos);
}

TEST(ReportJson, RoundTripsEveryField) {
  for (const Report& r : {check_report(), compare_report(), tune_report()}) {
    const std::string text = report_to_json(r);
    auto back = parse_report_json(text, "r.json");
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(report_to_json(*back), text);
    EXPECT_EQ(back->kernels.size(), r.kernels.size());
  }
  const auto back = parse_report_json(report_to_json(check_report()), "r.json");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kernels[1].verdict, KernelVerdict::slower);
  EXPECT_EQ(back->kernels[1].params.at("SOFTMAX_VEC"), Value(4));
  EXPECT_EQ(back->kernels[1].line, 12);
  EXPECT_NEAR(*back->kernels[1].ratio_ci_low, 1.29, 1e-9);
}

TEST(ReportJson, ErrorsNameTheFileAndPosition) {
  auto bad =
      parse_report_json("{\n  \"schema\": \"kernelevo-report\",\n  \"version\": 1,,\n}", "r.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where.file, "r.json");
  EXPECT_EQ(bad.error().where.line, 3);
  auto newer = parse_report_json(
      R"({"schema": "kernelevo-report", "version": 2, "kind": "check", "kernels": []})", "r.json");
  ASSERT_FALSE(newer);
  EXPECT_NE(newer.error().message.find("version 2"), std::string::npos);
  auto verdict = parse_report_json(
      R"({"schema": "kernelevo-report", "version": 1, "kind": "check", "kernels": [{"id": "k", "verdict": "MEH"}]})",
      "r.json");
  ASSERT_FALSE(verdict);
  EXPECT_NE(verdict.error().message.find("unknown verdict"), std::string::npos);
  EXPECT_FALSE(parse_report_json(R"({"schema_version": 1})", "r.json"));
}

// The reader type-checks every field: a field of another JSON type (which ended the process
// with an uncaught exception) or a number too large for its integer (undefined behaviour) is
// an error naming the file, as the trace reader's are.
TEST(ReportJson, FieldsOfTheWrongTypeAreErrors) {
  const std::string head = R"({"schema": "kernelevo-report", "version": 1, "kind": "check", )";
  const std::vector<std::string> cases = {
      R"({"schema": 5, "version": 1, "kind": "check", "kernels": []})",
      head + R"("tool": [], "kernels": []})",
      head + R"("device": {}, "kernels": []})",
      head + R"("rounds": 1e300, "kernels": []})",
      R"({"schema": "kernelevo-report", "version": 1e300, "kind": "check", "kernels": []})",
      R"({"schema": "kernelevo-report", "version": 99999999999, "kind": "check", "kernels": []})",
      R"({"schema": "kernelevo-report", "version": 0, "kind": "check", "kernels": []})",
      R"({"schema": "kernelevo-report", "version": -1, "kind": "check", "kernels": []})",
      head + R"("kernels": [{"id": "k", "verdict": 3}]})",
      head + R"("kernels": [{"id": "k", "verdict": "SAME", "source": 1}]})",
      head + R"("kernels": [{"id": "k", "verdict": "SAME", "line": 3.5e84}]})",
      head + R"("kernels": [{"id": "k", "verdict": "SAME", "line": "12"}]})",
      head + R"("kernels": [{"id": "k", "verdict": "SAME", "samples": -1}]})",
      head + R"("kernels": [{"id": "k", "verdict": "SAME", "evaluations": 1e300}]})",
  };
  for (const auto& text : cases) {
    const auto report = parse_report_json(text, "r.json");
    ASSERT_FALSE(report) << text;
    EXPECT_EQ(report.error().where.file, "r.json") << text;
  }
}

TEST(Annotations, CapsAtTenPerKindWithASummary) {
  Report r;
  for (int i = 0; i < 12; ++i) {
    auto k = kernel("k" + std::to_string(i), i % 2 ? KernelVerdict::failed : KernelVerdict::slower,
                    10 + i);
    k.evidence = "line one\nline 100%";
    r.kernels.push_back(k);
  }
  r.kernels.push_back(kernel("s", KernelVerdict::stale, 3));
  r.kernels.push_back(kernel("p", KernelVerdict::pass, 4));
  const std::string out = report_annotations(r);
  std::istringstream lines(out);
  std::string line;
  int errors = 0;
  int warnings = 0;
  std::string last_error;
  while (std::getline(lines, line)) {
    if (line.rfind("::error ", 0) == 0) {
      ++errors;
      last_error = line;
    }
    if (line.rfind("::warning ", 0) == 0) ++warnings;
  }
  EXPECT_EQ(errors, 10);
  EXPECT_EQ(warnings, 1);
  EXPECT_NE(
      out.find(
          "::error file=src/k0.cu,line=10,title=kernelevo%3A k0 SLOWER::line one%0Aline 100%25"),
      std::string::npos)
      << out;
  EXPECT_EQ(last_error,
            "::error title=kernelevo%3A 3 more::3 more kernels (see the job summary): k9 FAILED, "
            "k10 SLOWER, k11 FAILED");
  EXPECT_EQ(out.find("p PASS"), std::string::npos);
}

TEST(Annotations, UntrustedValuesStayInsideTheirAnnotation) {
  Report r;
  auto k = kernel("k:1,x", KernelVerdict::failed, 5);
  k.source = "src/a.cu,line=99\n::add-mask::x";
  k.evidence = "boom\r\n::error file=forged.cu::forged 100%";
  r.kernels = {k};
  EXPECT_EQ(report_annotations(r),
            "::error file=src/a.cu%2Cline=99%0A%3A%3Aadd-mask%3A%3Ax,line=5,"
            "title=kernelevo%3A k%3A1%2Cx FAILED::boom%0D%0A::error file=forged.cu::forged "
            "100%25\n");
}

TEST(Annotations, PropertiesEscapeColonAndComma) {
  EXPECT_EQ(escape_annotation_property("a:b,c%d"), "a%3Ab%2Cc%25d");
  EXPECT_EQ(escape_annotation_data("a:b,c\r\n"), "a:b,c%0D%0A");
}

TEST(Markdown, PipesInNamesDoNotBreakTheTable) {
  const std::string md = report_markdown(check_report());
  EXPECT_NE(md.find("`scan\\|odd`"), std::string::npos);
  EXPECT_NE(md.find("**SLOWER**"), std::string::npos);
  EXPECT_NE(md.find("1 kernel fails the gate"), std::string::npos);
}

// A report whose strings come from an untrusted lockfile or report JSON (tuned_with, device
// names, ids, sources, evidence): none of it may become markup in a job summary or a
// pull-request body.
Report hostile_report() {
  Report r = tune_report();
  r.device = "<img src=https://evil.example/t.png>";
  r.created = "::error::forged";
  auto& k = r.kernels[0];
  k.id = "a`b|c";
  k.source = "src/x|y.cu";
  k.strategy = "[click](https://evil.example) <img src=x> @octocat #12 | *bold* $x$";
  k.evidence = "tuned with x\n## Heading\n- item | cell\r\n<script>alert(1)</script> snake_case";
  return r;
}

// Pipes that split a table row into cells: those not escaped with a backslash.
std::size_t cell_separators(const std::string& row) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < row.size(); ++i)
    if (row[i] == '|' && (i == 0 || row[i - 1] != '\\')) ++n;
  return n;
}

TEST(Markdown, UntrustedStringsAreTextNotMarkup) {
  const std::string md = report_markdown(hostile_report());
  for (std::size_t i = 0; i < md.size(); ++i) {  // no HTML, no link or image
    if (md[i] == '<' || md.compare(i, 2, "](") == 0) {
      EXPECT_TRUE(i > 0 && md[i - 1] == '\\') << i << " in\n" << md;
    }
  }
  EXPECT_EQ(md.find("@octocat"), std::string::npos) << md;
  EXPECT_EQ(md.find("#12"), std::string::npos) << md;
  EXPECT_EQ(md.find("::"), std::string::npos) << md;
  EXPECT_NE(md.find("[click\\](https://evil.example) \\<img src=x> @&#8203;octocat "
                    "#&#8203;12 \\| \\*bold\\* \\$x\\$"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| ``a`b\\|c`` |"), std::string::npos) << md;  // the id, whole
  EXPECT_NE(md.find("snake_case"), std::string::npos) << md;       // words keep their '_'
  std::istringstream lines(md);
  std::size_t rows = 0;
  for (std::string line; std::getline(lines, line);) {
    // Every line is one the writer starts; no value begins a line of its own.
    EXPECT_TRUE(line.empty() || line.rfind("## ", 0) == 0 || line.rfind("### ", 0) == 0 ||
                line.rfind("| ", 0) == 0 || line.rfind("|---", 0) == 0 ||
                line.rfind("- ``", 0) == 0 || line.rfind("- `", 0) == 0 ||
                line.rfind("\\:", 0) == 0 || line.rfind(":\\:", 0) == 0 ||
                line == kRecordedTimesNote)
        << line;
    if (line.rfind("| ", 0) == 0) {
      ++rows;
      EXPECT_EQ(cell_separators(line), 11U) << line;  // ten columns
    }
  }
  EXPECT_EQ(rows, 3U);  // the header and two kernels
}

TEST(Html, IsSelfContainedWithCharts) {
  const std::string html = report_html(compare_report());
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("Speed of the head relative to the base"), std::string::npos);
  EXPECT_NE(html.find("No roofline position"), std::string::npos);
}

}  // namespace
}  // namespace kev::io
