// Specs of Triton kernels: a `# @kernelevo` comment block above a @triton.jit function of a
// .py file, read without running Python; every error names file:line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/python_source.h"
#include "core/source_defaults.h"
#include "io/spec_loader.h"
#include "io/spec_yaml.h"
#include "support/temp_dir.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

// Line 1-3 of every file; the YAML of the block starts on line 5.
const char* kHead =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "# @kernelevo\n";

const char* kValid =
    "# params:\n"                                                  // 5
    "#   BLOCK: [256, 1024]\n"                                     // 6
    "#   num_warps: [4, 8]\n"                                      // 7
    "# problems: [{n: 4096}]\n"                                    // 8
    "# args:\n"                                                    // 9
    "#   - {name: x, type: \"const float*\", count: n}\n"          // 10
    "#   - {name: y, type: \"float*\", count: n, output: true}\n"  // 11
    "#   - {name: n, type: int, value: n}\n"                       // 12
    "# launch: {grid: [\"ceil_div(n, BLOCK)\"]}\n";                // 13

const char* kFunction =
    "@triton.jit\n"                              // 14
    "def copy(x, y, n, BLOCK: tl.constexpr):\n"  // 15
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)\n";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  for (auto pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

class TritonSpec : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = tmp_.path(); }

  SpecLoad load(const std::string& text, const std::string& name = "k.py") {
    std::ofstream(dir_ / name) << text;
    return load_specs({dir_.string()});
  }
  std::vector<std::string> errors(const SpecLoad& l) const {
    std::vector<std::string> out;
    for (const auto& e : l.errors) out.push_back(replace(e.to_string(), dir_.string() + "/", ""));
    return out;
  }
  const kev::test_support::TempDir tmp_;
  fs::path dir_;
};

TEST_F(TritonSpec, ParsesTheBlockAboveTheFunction) {
  const SpecLoad l = load(std::string(kHead) + kValid + kFunction);
  ASSERT_TRUE(l.errors.empty()) << errors(l).front();
  ASSERT_EQ(l.specs.size(), 1u);
  const KernelSpec& s = l.specs[0];
  EXPECT_EQ(s.language, SourceLanguage::triton);
  EXPECT_EQ(s.id, "copy");
  EXPECT_EQ(s.kernel, "copy");
  EXPECT_EQ(s.kernel_line, 15);
  EXPECT_EQ(s.where.line, 4);
  ASSERT_EQ(s.launch.block.size(), 1u);
  EXPECT_EQ(s.launch.block[0].text(), "32 * num_warps");
  EXPECT_FALSE(s.launch.shared_bytes);
  ASSERT_EQ(s.params.size(), 2u);
  EXPECT_EQ(s.params[0].where.line, 6);
  EXPECT_TRUE(l.warnings.empty());  // no clang-format guard is asked of a .py file
}

TEST_F(TritonSpec, FilesWithoutTheMarkAreNotRead) {
  const SpecLoad l = load("def broken(:\n    '# @kernelevo'\n");
  EXPECT_TRUE(l.errors.empty());
  EXPECT_TRUE(l.specs.empty());
}

TEST_F(TritonSpec, AMarkInsideAStringIsNoBlock) {
  const SpecLoad l = load("X = '''\n# @kernelevo\n# params: {A: [1]}\n'''\n");
  EXPECT_TRUE(l.errors.empty());
  EXPECT_TRUE(l.specs.empty());
}

TEST_F(TritonSpec, DefaultsComeFromTheSignatureThenTheFirstValue) {
  const std::string text = std::string(kHead) + kValid + kFunction;
  const SpecLoad l = load(text);
  ASSERT_EQ(l.specs.size(), 1u);
  auto d = source_defaults(text, l.specs[0]);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->at("BLOCK").to_string(), "256");
  EXPECT_EQ(d->at("num_warps").to_string(), "4");
  const std::string with_default =
      replace(text, "BLOCK: tl.constexpr)", "BLOCK: tl.constexpr = 1024)");
  auto d2 = source_defaults(with_default, l.specs[0]);
  ASSERT_TRUE(d2.ok());
  EXPECT_EQ(d2->at("BLOCK").to_string(), "1024");
}

struct Bad {
  const char* name;
  std::string text;
  std::vector<std::string> expected;
};

std::vector<Bad> bad_cases() {
  const std::string head = kHead;
  const std::string v = kValid;
  const std::string f = kFunction;
  return {
      {"block_given",
       head + replace(v, "{grid: [\"ceil_div(n, BLOCK)\"]}", "{grid: [n], block: [128]}") + f,
       {"k.py:13:30: error: a Triton kernel's block is 32 * num_warps threads: remove "
        "'launch.block' and tune num_warps instead"}},
      {"shared_given",
       head + replace(v, "{grid: [\"ceil_div(n, BLOCK)\"]}", "{grid: [n], shared_bytes: \"0\"}") +
           f,
       {"k.py:13:37: error: Triton's compile gives a Triton kernel's shared memory: remove "
        "'launch.shared_bytes'"}},
      {"cluster_given",
       head + replace(v, "{grid: [\"ceil_div(n, BLOCK)\"]}", "{grid: [n], cluster: \"2\"}") + f,
       {"k.py:13:32: error: a Triton kernel's clusters come from num_ctas: remove "
        "'launch.cluster' and tune num_ctas instead"}},
      {"not_jit",
       head + v + replace(f, "@triton.jit\n", "@staticmethod\n"),
       {"k.py:4:3: error: kernel `copy` (k.py:15) is not a @triton.jit function"}},
      {"tunes_a_runtime_argument",
       head + replace(v, "#   num_warps: [4, 8]\n", "#   n: [1, 2]\n") + f,
       {"k.py:7:5: error: parameter n is not a tl.constexpr parameter of kernel `copy` (k.py:15) "
        "(a Triton kernel tunes its constexpr parameters and num_warps, num_stages, num_ctas)",
        "k.py:8:14: error: problem dimension 'n' has the name of a parameter"}},
      {"argument_misnamed",
       head + replace(v, "{name: y,", "{name: out,") + f,
       {"k.py:11:7: error: argument 2 is 'out' but parameter 2 of kernel `copy` (k.py:15) is 'y' "
        "(args name the kernel's non-constexpr parameters in order)"}},
      {"constexpr_untuned",
       head + replace(v, "#   BLOCK: [256, 1024]\n", "") + f,
       {"k.py:4:3: error: constexpr parameter BLOCK of kernel `copy` (k.py:14) has no default and "
        "is not tuned: list it under params or give it a default",
        "k.py:12:32: error: undefined name 'BLOCK' in expression \"ceil_div(n, BLOCK)\"; expected "
        "a "
        "parameter or a dimension of every problem (n)"}},
      {"num_warps_not_a_power_of_two",
       head + replace(v, "num_warps: [4, 8]", "num_warps: [4, 6]") + f,
       {"k.py:7:5: error: num_warps must be a power of two from 1 to 32, got '6'"}},
      {"num_ctas_not_a_cluster_size",
       head + replace(v, "#   num_warps: [4, 8]\n", "#   num_ctas: [1, 2, 16]\n") + f,
       {"k.py:7:5: error: num_ctas must be 1, 2, 4 or 8 (the CTAs of a thread-block cluster, "
        "of the portable sizes), got '16'"}},
      {"reference_source_missing",
       head + v + "# reference: {source: nowhere.cu, kernel: ref}\n" + f,
       {"k.py:4:3: error: reference source 'nowhere.cu' of kernel 'copy' does not exist (its path "
        "is relative to k.py)"}},
      {"defines_not_supported",
       head + v + "# defines: [A=1]\n" + f,
       {"k.py:14:12: error: 'defines' is not supported for a Triton kernel (it applies to CUDA "
        "compiles only)"}},
      {"dispatch_entries",
       head + replace(v, "# problems: [{n: 4096}]", "# problems: [{n: 4096}, {n: 65536}]") +
           "# dispatch: {by: [n], buckets: per_problem, entries: [launch]}\n" + f,
       {"k.py:14:54: error: 'dispatch.entries' does not apply to a Triton kernel: its generated "
        "launcher picks the bucket's image itself"}},
      {"bad_yaml",
       head + replace(v, "# problems: [{n: 4096}]", "# problems: [{n: 4096}") + f,
       {"k.py:9:3: error: invalid YAML in @kernelevo block: end of sequence flow not found"}},
      {"no_function",
       head + v,
       {"k.py:4:3: error: missing required key 'kernel' (the kernel's entry point)"}},
  };
}

class TritonBadSpec : public TritonSpec, public ::testing::WithParamInterface<Bad> {};

TEST_P(TritonBadSpec, ReportsFileAndLine) {
  const Bad& c = GetParam();
  const SpecLoad l = load(c.text);
  auto actual = errors(l);
  for (auto& e : actual) e = replace(e, dir_.string() + "/", "");
  EXPECT_EQ(actual, c.expected);
  EXPECT_TRUE(l.specs.empty());
}

INSTANTIATE_TEST_SUITE_P(Table, TritonBadSpec, ::testing::ValuesIn(bad_cases()),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

TEST_F(TritonSpec, NumCtasIsTunedLikeTheOtherOptions) {
  const SpecLoad l =
      load(std::string(kHead) +
           replace(kValid, "#   num_warps: [4, 8]\n", "#   num_ctas: [1, 2, 4, 8]\n") + kFunction);
  ASSERT_TRUE(errors(l).empty()) << errors(l)[0];
  ASSERT_EQ(l.specs.size(), 1u);
  const auto& p = l.specs[0].params;
  const auto it =
      std::find_if(p.begin(), p.end(), [](const auto& q) { return q.name == "num_ctas"; });
  ASSERT_NE(it, p.end());
  EXPECT_EQ(it->values.size(), 4u);
}

TEST_F(TritonSpec, DispatchGivesAWinnerPerBucket) {
  const SpecLoad l =
      load(std::string(kHead) +
           replace(kValid, "# problems: [{n: 4096}]", "# problems: [{n: 4096}, {n: 65536}]") +
           "# dispatch: {by: [n], buckets: [[0, 16384], [16384, null]]}\n" + kFunction);
  ASSERT_TRUE(l.errors.empty()) << errors(l).front();
  ASSERT_EQ(l.specs.size(), 1u);
  ASSERT_TRUE(l.specs[0].dispatch.has_value());
  EXPECT_EQ(l.specs[0].dispatch->by, "n");
  ASSERT_EQ(l.specs[0].dispatch->buckets.size(), 2u);
  EXPECT_EQ(l.specs[0].dispatch->buckets[1].lo, 16384);
}

TEST_F(TritonSpec, AReferenceInACudaSourceBesideIt) {
  std::ofstream(dir_ / "ref.cu") << "extern \"C\" __global__ void ref(const float* x, float* y, "
                                    "int n) {}\n";
  const SpecLoad l = load(std::string(kHead) + kValid +
                          "# reference: {source: ref.cu, kernel: ref}\n" + kFunction);
  ASSERT_TRUE(l.errors.empty()) << errors(l).front();
  ASSERT_EQ(l.specs.size(), 1u);
  EXPECT_EQ(l.specs[0].reference, "ref");
  EXPECT_EQ(fs::path(l.specs[0].reference_source), (dir_ / "ref.cu").lexically_normal());
  const SpecLoad wrong = load(std::string(kHead) + kValid +
                              "# reference: {source: ref.cu, kernel: other}\n" + kFunction);
  ASSERT_EQ(errors(wrong).size(), 1u);
  EXPECT_EQ(errors(wrong)[0],
            "k.py:4:3: error: reference source 'ref.cu' of kernel 'copy' defines no __global__ "
            "function `other`");
}

TEST_F(TritonSpec, TheTemplatesParse) {
  const SpecLoad l =
      load_specs({std::string(KERNELEVO_SOURCE_DIR) + "/templates/softmax_triton.py",
                  std::string(KERNELEVO_SOURCE_DIR) + "/templates/rmsnorm_triton.py"});
  ASSERT_TRUE(l.errors.empty()) << l.errors.front().to_string();
  ASSERT_EQ(l.specs.size(), 2u);
  EXPECT_EQ(l.specs[0].id, "softmax_rows_triton");
  EXPECT_EQ(fs::path(l.specs[0].reference_source).filename(), "softmax.cu");
  EXPECT_EQ(l.specs[0].reference, "softmax_rows_naive");
  EXPECT_EQ(l.specs[1].id, "rmsnorm_rows_triton");
}

TEST(PythonSource, FunctionsDecoratorsAndParameters) {
  const PySource py = scan_python(
      "import triton\n"
      "s = \"def fake(a):\"  # def nope(b):\n"
      "@triton.jit(\n"
      "    do_not_specialize=['n'])\n"
      "def k(x, n: int, B: tl.constexpr = 64,\n"
      "      C: 'tl.constexpr'=(1, 2)):\n"
      "    pass\n"
      "\n"
      "def plain(*args):\n"
      "    pass\n");
  ASSERT_EQ(py.functions.size(), 2u);
  const PyFunction& k = py.functions[0];
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.def_line, 5);
  EXPECT_EQ(k.first_line, 3);
  EXPECT_TRUE(k.triton_jit);
  ASSERT_TRUE(k.params_known);
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_FALSE(k.params[1].is_constexpr);
  EXPECT_EQ(k.params[1].annotation, "int");
  EXPECT_TRUE(k.params[2].is_constexpr);
  EXPECT_EQ(k.params[2].default_text, "64");
  EXPECT_EQ(k.params[3].line, 6);
  EXPECT_FALSE(py.functions[1].params_known);
  EXPECT_FALSE(py.functions[1].triton_jit);
  ASSERT_EQ(py.comments.size(), 1u);
  EXPECT_FALSE(py.comments[0].own_line);
}

}  // namespace
}  // namespace kev
