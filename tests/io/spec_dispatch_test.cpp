// A spec's `dispatch` block: how problems map to winners (core/buckets.h), parsed with
// errors naming file:line:column and checked against the spec's problems.
#include <gtest/gtest.h>

#include <limits>

#include "core/spec_check.h"
#include "io/spec_yaml.h"
#include "support/spec_yaml_cases.h"

namespace kev {
namespace {

// A kernelevo.yaml spec of one kernel over problems of cols 1024, 4096 and 8192, with
// `dispatch` as given (a flow map on line 6).
std::string project(const std::string& dispatch) {
  return "- source: a.cu\n"
         "  kernel: a\n"
         "  params: {B: [64, 128]}\n"
         "  problems: [{rows: 8, cols: 1024}, {rows: 8, cols: 4096}, {rows: 8, cols: 8192}]\n"
         "  args: [{name: y, type: float*, count: rows*cols, output: true}]\n"
         "  dispatch: " +
         dispatch +
         "\n"
         "  launch: {grid: rows, block: B}\n";
}

SpecParse parse(const std::string& dispatch) {
  return parse_project_yaml(project(dispatch), "proj/kernelevo.yaml");
}

using test_support::first_error;

TEST(SpecDispatch, ParsesBucketsAndEntries) {
  const SpecParse p =
      parse("{by: [cols], buckets: [[0, 2048], [2048, 8192], [8192, null]], entries: [launch]}");
  ASSERT_TRUE(p.errors.empty()) << first_error(p);
  ASSERT_EQ(p.specs.size(), 1u);
  const KernelSpec& s = p.specs[0];
  ASSERT_TRUE(s.dispatch.has_value());
  EXPECT_EQ(s.dispatch->by, "cols");
  ASSERT_EQ(s.dispatch->buckets.size(), 3u);
  EXPECT_EQ(s.dispatch->buckets[0], (BucketRange{0, 2048}));
  EXPECT_EQ(s.dispatch->buckets[2], (BucketRange{8192, std::nullopt}));
  EXPECT_EQ(s.dispatch->bucket_where[1].to_string(), "proj/kernelevo.yaml:6:47");
  EXPECT_EQ(s.dispatch->entries, std::vector<std::string>{"launch"});
  EXPECT_TRUE(check_spec(s).empty()) << check_spec(s).front().to_string();
  EXPECT_EQ(bucket_spec(s, 1).problems.size(), 1u);
  EXPECT_EQ(bucket_spec(s, 1).problems[0].dims.at("cols"), 4096);
  EXPECT_FALSE(bucket_spec(s, 1).dispatch.has_value());
}

TEST(SpecDispatch, WithoutItNothingChanges) {
  const SpecParse p = test_support::parse_spec_without_it();
  ASSERT_TRUE(p.errors.empty()) << first_error(p);
  EXPECT_FALSE(p.specs[0].dispatch.has_value());
}

TEST(SpecDispatch, PerProblemMakesOneBucketPerValue) {
  const SpecParse p = parse("{by: cols, buckets: per_problem}");
  ASSERT_TRUE(p.errors.empty()) << first_error(p);
  const DispatchSpec& d = *p.specs[0].dispatch;
  EXPECT_TRUE(d.per_problem);
  ASSERT_EQ(d.buckets.size(), 3u);
  EXPECT_EQ(d.buckets[0], (BucketRange{1024, 1025}));
  EXPECT_EQ(d.buckets[2], (BucketRange{8192, 8193}));
  EXPECT_EQ(d.bucket_where[1].line, 4);  // the problem's place
  EXPECT_TRUE(check_spec(p.specs[0]).empty());
}

TEST(SpecDispatch, AOneSizeBucketIsCompiledWithItsSizeDefined) {
  EXPECT_EQ(bucket_size_define("cols", {1024, 1025}), "KERNELEVO_SIZE_cols=1024");
  EXPECT_EQ(bucket_size_define("n", {0, 1}), "KERNELEVO_SIZE_n=0");
  EXPECT_EQ(bucket_size_define("cols", {1024, 1026}), std::nullopt);
  EXPECT_EQ(bucket_size_define("cols", {1024, std::nullopt}), std::nullopt);

  SpecParse p = parse("{by: cols, buckets: per_problem}");
  ASSERT_TRUE(p.errors.empty()) << first_error(p);
  p.specs[0].defines = {"KERNELEVO_SIZE_cols=1", "KERNELEVO_SIZE_cols", "OTHER=2"};
  const KernelSpec one = bucket_spec(p.specs[0], 1);
  ASSERT_EQ(one.problems.size(), 1u);
  EXPECT_EQ(one.problems[0].dims.at("cols"), 4096);
  EXPECT_EQ(one.defines, (std::vector<std::string>{"OTHER=2", "KERNELEVO_SIZE_cols=4096"}));

  const SpecParse ranges = parse("{by: [cols], buckets: [[0, 2048], [2048, null]]}");
  ASSERT_TRUE(ranges.errors.empty()) << first_error(ranges);
  EXPECT_TRUE(bucket_spec(ranges.specs[0], 0).defines.empty());
  // A template kernel (its build instantiates every variant in one source) gets none.
  KernelSpec templated = p.specs[0];
  templated.kernel = "a<B>";
  EXPECT_EQ(bucket_spec(templated, 0).defines, templated.defines);
}

struct BadCase {
  const char* dispatch;
  const char* where;    // file:line:column
  const char* message;  // part of it
};

TEST(SpecDispatch, ParseErrorsNameFileLineAndColumn) {
  const BadCase cases[] = {
      {"[cols]", "proj/kernelevo.yaml:6:13", "'dispatch' must be a map"},
      {"{by: [rows, cols], buckets: per_problem}", "proj/kernelevo.yaml:6:18",
       "must name one problem dimension (got 2)"},
      {"{buckets: per_problem}", "proj/kernelevo.yaml:6:13", "missing required key 'dispatch.by'"},
      {"{by: cols}", "proj/kernelevo.yaml:6:13", "missing required key 'dispatch.buckets'"},
      {"{by: cols, buckets: [[0, 2048], [2048]]}", "proj/kernelevo.yaml:6:45",
       "must be a [low, high] pair"},
      {"{by: cols, buckets: [[0, x]]}", "proj/kernelevo.yaml:6:38",
       "upper bound must be an integer or null"},
      {"{by: cols, buckets: [[null, 5]]}", "proj/kernelevo.yaml:6:35",
       "lower bound must be an integer"},
      {"{by: cols, buckets: [[0, 4096], [2048, null]]}", "proj/kernelevo.yaml:6:45",
       "bucket 1 [2048, inf) overlaps bucket 0 [0, 4096)"},
      {"{by: cols, buckets: [[2048, 4096], [0, 2048]]}", "proj/kernelevo.yaml:6:48",
       "bucket 1 [0, 2048) comes before bucket 0 [2048, 4096)"},
      {"{by: cols, buckets: [[0, null], [2048, 4096]]}", "proj/kernelevo.yaml:6:34",
       "only the last bucket may be unbounded"},
      {"{by: cols, buckets: [[4096, 4096]]}", "proj/kernelevo.yaml:6:34", "is empty"},
      {"{by: cols, buckets: per_problem, entries: [\"a b\"]}", "proj/kernelevo.yaml:6:55",
       "must list function names"},
      {"{by: cols, buckets: per_problem, when: 1}", "proj/kernelevo.yaml:6:46",
       "unknown key 'when' in dispatch"},
  };
  for (const BadCase& c : cases) {
    const SpecParse p = parse(c.dispatch);
    ASSERT_FALSE(p.errors.empty()) << c.dispatch;
    const std::string e = p.errors.front().to_string();
    EXPECT_NE(e.find(c.where), std::string::npos) << c.dispatch << ": " << e;
    EXPECT_NE(e.find(c.message), std::string::npos) << c.dispatch << ": " << e;
  }
}

TEST(SpecDispatch, TooManyBucketsAreRefused) {
  std::string list = "[";
  for (int i = 0; i < 65; ++i)
    list += (i ? ", [" : "[") + std::to_string(i) + ", " + std::to_string(i + 1) + "]";
  const SpecParse p = parse("{by: cols, buckets: " + list + "]}");
  ASSERT_FALSE(p.errors.empty());
  EXPECT_NE(first_error(p).find("65 buckets; at most 64"), std::string::npos) << first_error(p);
}

TEST(SpecDispatch, ChecksAgainstTheProblems) {
  struct CheckCase {
    const char* dispatch;
    const char* where;
    const char* message;
  };
  const CheckCase cases[] = {
      {"{by: width, buckets: per_problem}", "proj/kernelevo.yaml:6:13",
       "dispatch.by: 'width' is not a dimension of every problem (cols, rows)"},
      {"{by: cols, buckets: [[0, 2048], [2048, 4096], [5000, null]]}", "proj/kernelevo.yaml:6:45",
       "bucket 1 [2048, 4096) holds none of the problems (cols = 1024, 4096, 8192)"},
      {"{by: cols, buckets: [[0, 2048], [4096, 8192]]}", "proj/kernelevo.yaml:4:60",
       "problem cols=8192,rows=8 lies in no bucket of dispatch"},
  };
  for (const CheckCase& c : cases) {
    const SpecParse p = parse(c.dispatch);
    ASSERT_TRUE(p.errors.empty()) << c.dispatch << ": " << first_error(p);
    const auto errors = check_spec(p.specs[0]);
    ASSERT_FALSE(errors.empty()) << c.dispatch;
    const std::string e = errors.front().to_string();
    EXPECT_NE(e.find(c.where), std::string::npos) << c.dispatch << ": " << e;
    EXPECT_NE(e.find(c.message), std::string::npos) << c.dispatch << ": " << e;
    EXPECT_EQ(errors.front().code, ExitCode::usage);
  }
}

TEST(Buckets, NearestBucketServesValuesOutsideEvery) {
  // Nearest by ratio: sizes scale, so 2048 between winners tuned at 16 and 4096 takes 4096's.
  const std::vector<BucketRange> r{{100, 200}, {300, 400}, {1000, std::nullopt}};
  EXPECT_EQ(nearest_bucket(r, 150), 0u);
  EXPECT_EQ(nearest_bucket(r, 0), 0u);
  EXPECT_EQ(nearest_bucket(r, 244), 0u);  // 244/199 = 1.226 above, 300/244 = 1.230 below
  EXPECT_EQ(nearest_bucket(r, 245), 1u);
  EXPECT_EQ(nearest_bucket(r, 399), 1u);
  EXPECT_EQ(nearest_bucket(r, 631), 1u);  // 631/399 = 1.5815, 1000/631 = 1.5848
  EXPECT_EQ(nearest_bucket(r, 632), 2u);
  const std::vector<BucketRange> tuned{{16, 17}, {4096, 4097}};
  EXPECT_EQ(nearest_bucket(tuned, 2048), 1u);  // 2048 from 4096, 128 from 16
  EXPECT_EQ(nearest_bucket(tuned, 256), 0u);   // 16 either way: the lower
  EXPECT_EQ(nearest_bucket(tuned, 257), 1u);
  EXPECT_EQ(nearest_bucket({{0, 9}, {32, 40}}, 16), 0u);  // twice 8, half 32: the lower
  EXPECT_EQ(nearest_bucket({{0, 9}, {32, 40}}, 17), 1u);
  EXPECT_EQ(nearest_bucket(r, std::numeric_limits<std::int64_t>::max()), 2u);
  EXPECT_EQ(nearest_bucket(r, std::numeric_limits<std::int64_t>::min()), 0u);
  EXPECT_EQ(nearest_bucket(tuned, -5), 0u);  // sizes below 1 count as 1
  EXPECT_EQ(bucket_label("cols", r[2]), "cols [1000, inf)");
}

}  // namespace
}  // namespace kev
