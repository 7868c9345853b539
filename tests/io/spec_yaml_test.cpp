#include "io/spec_yaml.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/spec_loader.h"
#include "support/cpu_time.h"
#include "support/temp_dir.h"

namespace kev {
namespace {

const std::string kFixtures = KERNELEVO_FIXTURES;

TEST(SpecYaml, ParsesTheSoftmaxFixtureCompletely) {
  const SpecLoad load = load_specs({kFixtures + "/specs/softmax.cu"});
  ASSERT_TRUE(load.errors.empty()) << load.errors.front().to_string();
  EXPECT_TRUE(load.warnings.empty());
  ASSERT_EQ(load.specs.size(), 1u);
  const KernelSpec& s = load.specs[0];
  EXPECT_EQ(s.id, "softmax_rows");
  EXPECT_EQ(s.kernel, "softmax_rows");
  EXPECT_EQ(s.source, kFixtures + "/specs/softmax.cu");
  EXPECT_EQ(s.where.line, 14);
  EXPECT_EQ(s.where.column, 4);
  EXPECT_EQ(s.kernel_line, 37);
  EXPECT_TRUE(s.has_format_guard);
  ASSERT_EQ(s.params.size(), 2u);
  EXPECT_EQ(s.params[0].name, "SOFTMAX_BLOCK");
  EXPECT_EQ(s.params[0].values, (std::vector<Value>{128, 256, 512, 1024}));
  EXPECT_EQ(s.params[1].where.to_string(), kFixtures + "/specs/softmax.cu:19:3");
  ASSERT_EQ(s.constraints.size(), 2u);
  EXPECT_EQ(s.constraints[1].text(), "cols % SOFTMAX_VEC == 0");
  EXPECT_EQ(s.constraints[1].origin().line, 20);
  EXPECT_EQ(s.constraints[1].origin().column, 55);
  ASSERT_EQ(s.problems.size(), 2u);
  EXPECT_EQ(s.problems[1].dims.at("cols"), 1022);
  EXPECT_EQ(s.problems[1].where.line, 23);
  ASSERT_EQ(s.validate.size(), 1u);
  EXPECT_EQ(s.validate[0].to_string(), "cols=1000,rows=3");
  ASSERT_EQ(s.args.size(), 4u);
  EXPECT_TRUE(s.args[0].pointer);
  EXPECT_TRUE(s.args[0].is_const);
  EXPECT_EQ(s.args[0].type, ScalarType::f32);
  EXPECT_EQ(s.args[0].init, InitKind::uniform);
  EXPECT_EQ(s.args[0].init_low, -4.0);
  EXPECT_EQ(s.args[0].init_value, 4.0);
  ASSERT_TRUE(s.args[0].count.has_value());
  EXPECT_EQ(s.args[0].count->text(), "rows*cols");
  EXPECT_TRUE(s.args[1].output);
  EXPECT_FALSE(s.args[1].is_const);
  EXPECT_FALSE(s.args[2].pointer);
  EXPECT_EQ(s.args[2].type, ScalarType::i32);
  ASSERT_TRUE(s.args[3].value_expr.has_value());
  EXPECT_EQ(s.args[3].value_expr->text(), "cols");
  ASSERT_EQ(s.launch.grid.size(), 1u);
  EXPECT_EQ(s.launch.grid[0].text(), "rows");
  ASSERT_EQ(s.launch.block.size(), 1u);
  ASSERT_TRUE(s.launch.shared_bytes.has_value());
  EXPECT_EQ(s.launch.shared_bytes->text(), "2 * 32 * 4");
  EXPECT_EQ(s.reference, "softmax_rows_naive");
  EXPECT_DOUBLE_EQ(s.tolerance.rtol, 1e-5);
  EXPECT_DOUBLE_EQ(s.tolerance.atol, 1e-6);
  ASSERT_TRUE(s.metric_bytes && s.metric_flops);
  EXPECT_EQ(s.metric_flops->text(), "5*rows*cols");
}

TEST(SpecYaml, FindsOnlyRealMarks) {
  const std::string src =
      "const char* s = \"/* @kernelevo\\nkernel: nope */\";\n"  // in a string literal
      "// /* @kernelevo in a line comment */\n"
      "/* This file uses @kernelevo blocks. */\n"  // mentioned, not a mark
      "/** @kernelevo\n"
      "kernel: real\n"
      "*/\n"
      "template <int B>\n"
      "__global__ void __launch_bounds__(B) real(float* y) {}\n";
  const auto blocks = find_marked_blocks(src, "m.cu");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].mark.to_string(), "m.cu:4:5");
  EXPECT_EQ(blocks[0].yaml_first_line, 5);
  EXPECT_EQ(blocks[0].yaml, "kernel: real\n");
  EXPECT_FALSE(blocks[0].guarded);
  EXPECT_EQ(blocks[0].kernel_line, 8);
  EXPECT_EQ(blocks[0].kernel_name, "real");
}

TEST(SpecYaml, DefaultsAndInference) {
  MarkedBlock b;
  b.mark = {"d.cu", 3, 4};
  b.yaml_first_line = 4;
  b.guarded = true;
  b.kernel_line = 12;
  b.kernel_name = "inferred";
  b.yaml =
      "params: {T: [float, half], N: [1, 2]}\n"
      "args:\n"
      "  - {name: idx, type: \"int32 *\", count: 16}\n"
      "  - {name: w, type: \"const bfloat16*\", count: 16, init_value: 0.5}\n"
      "  - {name: eps, type: float, value: 1e-5}\n"
      "  - {name: k, type: uint64, value: \"N * 2\"}\n"
      "  - {name: s, type: \"double*\", count: 4, scratch: true, init: {randint: [0, 3]}}\n"
      "launch: {grid: 1, block: \"32 * N\", cluster: N}\n"
      "include_dirs: [include]\n"
      "defines: [USE_FAST=1]\n"
      "flags: -lineinfo\n"
      "arch: sm_90a\n";
  const SpecParse p = parse_marked_block(b, "d.cu");
  ASSERT_TRUE(p.errors.empty()) << p.errors.front().to_string();
  ASSERT_EQ(p.specs.size(), 1u);
  const KernelSpec& s = p.specs[0];
  EXPECT_EQ(s.kernel, "inferred");
  EXPECT_EQ(s.id, "inferred");
  EXPECT_EQ(s.reference, "default");
  EXPECT_EQ(s.kernel_line, 12);
  EXPECT_EQ(s.params[0].values,
            (std::vector<Value>{Value(std::string("float")), Value(std::string("half"))}));
  EXPECT_EQ(s.args[0].init, InitKind::randint);  // integer buffers default to small integers
  EXPECT_EQ(s.args[0].init_low, -8.0);
  EXPECT_EQ(s.args[1].type, ScalarType::bf16);
  EXPECT_EQ(s.args[1].init, InitKind::constant);
  EXPECT_EQ(s.args[1].init_value, 0.5);
  ASSERT_TRUE(s.args[2].float_value.has_value());
  EXPECT_DOUBLE_EQ(*s.args[2].float_value, 1e-5);
  EXPECT_FALSE(s.args[2].value_expr.has_value());
  EXPECT_EQ(s.args[3].type, ScalarType::u64);
  EXPECT_EQ(s.args[3].value_expr->origin().to_string(), "d.cu:9:37");  // after the quote
  EXPECT_TRUE(s.args[4].scratch);
  EXPECT_EQ(s.args[4].init, InitKind::randint);
  EXPECT_EQ(s.args[4].init_value, 3.0);
  EXPECT_EQ(s.launch.block[0].text(), "32 * N");
  ASSERT_TRUE(s.launch.cluster.has_value());
  EXPECT_EQ(s.launch.cluster->text(), "N");
  EXPECT_EQ(s.include_dirs, std::vector<std::string>{"include"});
  EXPECT_EQ(s.defines, std::vector<std::string>{"USE_FAST=1"});
  EXPECT_EQ(s.flags, std::vector<std::string>{"-lineinfo"});
  EXPECT_EQ(s.arch, "sm_90a");
}

TEST(SpecYaml, TemplateKernelGetsItsBaseNameAsId) {
  MarkedBlock b;
  b.mark = {"t.cu", 1, 4};
  b.yaml_first_line = 2;
  b.guarded = true;
  b.yaml =
      "kernel: \"scan<SCAN_BLOCK>\"\nparams: {SCAN_BLOCK: [128]}\nargs: [{name: n, type: int, "
      "value: 1}]\nlaunch: {grid: 1, block: SCAN_BLOCK}\n";
  const SpecParse p = parse_marked_block(b, "t.cu");
  ASSERT_EQ(p.specs.size(), 1u);
  EXPECT_EQ(p.specs[0].kernel, "scan<SCAN_BLOCK>");
  EXPECT_EQ(p.specs[0].id, "scan");
}

MarkedBlock block_of(const std::string& yaml) {
  MarkedBlock b;
  b.mark = {"t.cu", 1, 4};
  b.yaml_first_line = 2;
  b.guarded = true;
  b.yaml = yaml;
  return b;
}

TEST(SpecYaml, LetNamesAnExpressionForTheOthers) {
  const SpecParse p = parse_marked_block(
      block_of("kernel: k\nparams: {VEC: [1, 4], MAX_RT: [256]}\n"
               "let:\n  RT: \"min(MAX_RT, 32 * ceil_div(cols, 32 * VEC))\"\n"
               "  PER_BLOCK: \"max(64, RT) / RT\"\n"
               "constraints: [\"RT >= 32\"]\nproblems: [{rows: 8, cols: 1000}]\n"
               "args: [{name: n, type: int, value: RT}]\n"
               "launch: {grid: \"ceil_div(rows, PER_BLOCK)\", block: \"PER_BLOCK * RT\"}\n"),
      "t.cu");
  ASSERT_TRUE(p.errors.empty()) << p.errors.front().to_string();
  ASSERT_EQ(p.specs.size(), 1u);
  const KernelSpec& s = p.specs[0];
  const std::string rt = "(min(MAX_RT, 32 * ceil_div(cols, 32 * VEC)))";
  EXPECT_EQ(s.launch.block[0].text(), "(max(64, " + rt + ") / " + rt + ") * " + rt);
  EXPECT_EQ(s.launch.grid[0].text(), "ceil_div(rows, (max(64, " + rt + ") / " + rt + "))");
  EXPECT_TRUE(s.constraints[0].mentions("cols"));  // checked per problem, as written out
  const auto lookup = [](std::string_view n) -> std::optional<std::int64_t> {
    if (n == "MAX_RT") return 256;
    if (n == "VEC") return 4;
    if (n == "cols") return 1000;
    if (n == "rows") return 8;
    return std::nullopt;
  };
  EXPECT_EQ(s.args[0].value_expr->eval(lookup).value(), 256);  // 8 warps of 4-float loads
  EXPECT_EQ(s.launch.block[0].eval(lookup).value(), 256);      // one row per block
  EXPECT_EQ(s.launch.grid[0].eval(lookup).value(), 8);
  const auto short_rows = [&](std::string_view n) -> std::optional<std::int64_t> {
    return n == "cols" ? std::optional<std::int64_t>(100) : lookup(n);
  };
  EXPECT_EQ(s.launch.block[0].eval(short_rows).value(), 64);  // one warp a row, two rows
  EXPECT_EQ(s.launch.grid[0].eval(short_rows).value(), 4);
}

TEST(SpecYaml, BrokenLetsNameTheirLine) {
  const SpecParse p = parse_marked_block(
      block_of("kernel: k\nparams: {VEC: [1]}\nlet:\n  A: \"VEC +\"\n  VEC: \"2\"\n"
               "  min: \"1\"\n  cols: \"3\"\n  sm_count: \"4\"\nproblems: [{cols: 8}]\n"
               "args: [{name: n, type: int, value: 1}]\nlaunch: {grid: 1, block: 1}\n"),
      "t.cu");
  std::vector<std::string> errors;
  for (const auto& e : p.errors) errors.push_back(e.to_string());
  EXPECT_EQ(errors,
            (std::vector<std::string>{
                "t.cu:5:12: error: unexpected end of expression in expression \"VEC +\"; "
                "expected a number, a name, '(', '-' or '!'",
                "t.cu:7:3: error: let name 'min' must be an identifier other than min, max, "
                "ceil_div and sm_count",
                "t.cu:9:3: error: let name 'sm_count' must be an identifier other than min, max, "
                "ceil_div and sm_count",
                "t.cu:6:3: error: let 'VEC' has the name of a parameter; rename it",
                "t.cu:8:3: error: let 'cols' has the name of a problem dimension; rename it"}));
}

TEST(SpecYaml, LetsThatDoubleAtEachStepStopAtALimit) {
  std::string lets = "let:\n  L0: \"VEC + VEC\"\n";
  for (int i = 1; i < 40; ++i)
    lets += "  L" + std::to_string(i) + ": \"L" + std::to_string(i - 1) + " + L" +
            std::to_string(i - 1) + "\"\n";
  const SpecParse p = parse_marked_block(
      block_of("kernel: k\nparams: {VEC: [1]}\n" + lets +
               "args: [{name: n, type: int, value: L39}]\nlaunch: {grid: 1, block: 1}\n"),
      "t.cu");
  ASSERT_FALSE(p.errors.empty());
  EXPECT_NE(
      p.errors.front().message.find("is longer than 16384 characters with its lets written out"),
      std::string::npos)
      << p.errors.front().to_string();
}

TEST(SpecYaml, ALongValueListIsCheckedForRepeatsInLinearTime) {
  std::string values = "[";
  for (int i = 0; i < 200000; ++i) values += std::to_string(i) + ", ";
  values += "2.5, 2.50, 7]";  // 2.50 repeats 2.5, 7 repeats 7
  const test_support::ThreadCpuTimer timer;
  const SpecParse p = parse_marked_block(
      block_of("kernel: k\nparams:\n  B: " + values +
               "\nargs: [{name: n, type: int, value: 1}]\nlaunch: {grid: 1, block: 1}\n"),
      "t.cu");
  const double seconds = timer.seconds();
  std::vector<std::string> errors;
  for (const auto& e : p.errors) errors.push_back(e.to_string());
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("error: parameter 'B' lists 2.50 twice"), std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("error: parameter 'B' lists 7 twice"), std::string::npos) << errors[1];
  EXPECT_LT(seconds, 2.0);  // mostly YAML parsing; repeats were once found in quadratic time
}

TEST(SpecYaml, WarnsWhenTheFormatGuardIsMissing) {
  const SpecLoad load = load_specs({kFixtures + "/specs/project/src/unguarded.cu"});
  ASSERT_TRUE(load.errors.empty());
  ASSERT_EQ(load.warnings.size(), 1u);
  EXPECT_EQ(load.warnings[0].where.to_string(), kFixtures + "/specs/project/src/unguarded.cu:6:4");
  EXPECT_EQ(load.warnings[0].message,
            "@kernelevo block is not wrapped in '// clang-format off' and '// clang-format on'; a "
            "formatter may reflow its YAML");
  ASSERT_EQ(load.specs.size(), 1u);
  EXPECT_FALSE(load.specs[0].has_format_guard);
  EXPECT_TRUE(load.specs[0].args[1].inout);
  EXPECT_EQ(load.specs[0].launch.grid[0].text(), "ceil_div(n, ADD_BLOCK)");
}

TEST(SpecYaml, ProjectFileAsMapOrList) {
  const SpecLoad load = load_specs({kFixtures + "/specs/project/kernelevo.yaml"});
  ASSERT_TRUE(load.errors.empty()) << load.errors.front().to_string();
  ASSERT_EQ(load.specs.size(), 1u);
  const KernelSpec& s = load.specs[0];
  EXPECT_EQ(s.id, "scale_f32");
  EXPECT_EQ(s.source, kFixtures + "/specs/project/src/scale.cu");
  EXPECT_EQ(s.where.to_string(), kFixtures + "/specs/project/kernelevo.yaml:3:5");
  EXPECT_EQ(s.kernel_line, 10);
  ASSERT_TRUE(s.args[2].float_value.has_value());
  EXPECT_DOUBLE_EQ(*s.args[2].float_value, 0.5);

  const SpecParse list = parse_project_yaml(
      "- source: a.cu\n  kernel: a\n  params: {A: [1]}\n  args: [{name: n, type: int, value: A}]\n"
      "  launch: {grid: 1, block: A}\n",
      "proj/kernelevo.yaml");
  ASSERT_TRUE(list.errors.empty()) << list.errors.front().to_string();
  ASSERT_EQ(list.specs.size(), 1u);
  EXPECT_EQ(list.specs[0].source, "proj/a.cu");
}

TEST(SpecYaml, DirectoryScanReadsProjectFileAndSkipsBuildTrees) {
  namespace fs = std::filesystem;
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  fs::create_directories(dir / "build");
  fs::create_directories(dir / "src");
  fs::copy_file(kFixtures + "/specs/project/kernelevo.yaml", dir / "kernelevo.yaml");
  fs::copy_file(kFixtures + "/specs/project/src/scale.cu", dir / "src/scale.cu");
  fs::copy_file(kFixtures + "/specs/softmax.cu", dir / "src/softmax.cu");
  std::ofstream(dir / "build/CMakeCache.txt") << "";
  fs::copy_file(kFixtures + "/specs/softmax.cu", dir / "build/copy.cu");  // would be a duplicate id
  const SpecLoad load = load_specs({dir.string()});
  ASSERT_TRUE(load.errors.empty()) << load.errors.front().to_string();
  ASSERT_EQ(load.specs.size(), 2u);
  EXPECT_EQ(load.specs[0].id, "softmax_rows");
  EXPECT_EQ(load.specs[1].id, "scale_f32");
}

// A project holding a vendored copy of another project, a build folder and folders named
// as vendored code usually is: a directory walk reads only the project's own sources, and
// says which directories it left out; naming a skipped file or directory reads it.
TEST(SpecYaml, DirectoryScanSkipsOtherProjectsAndVendoredTrees) {
  namespace fs = std::filesystem;
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  const auto put = [&](const fs::path& rel, const std::string& text) {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel) << text;
  };
  fs::create_directories(dir / "src");
  fs::copy_file(kFixtures + "/specs/softmax.cu", dir / "src/softmax.cu");
  const std::string broken = "/* @kernelevo\nkernel: nope\n*/\n__global__ void f() {}\n";
  put("CMakeLists.txt", "cmake_minimum_required(VERSION 3.24)\nproject(app CUDA)\n");
  put("libs/kev/CMakeLists.txt", "# a vendored copy\nPROJECT (kev LANGUAGES CXX)\n");
  put("libs/kev/templates/a.cu", broken);
  put("mod/.git", "gitdir: ../.git/modules/mod\n");  // a submodule
  put("mod/b.cu", broken);
  put("out/CMakeCache.txt", "");
  put("out/c.cu", broken);
  for (const char* name : {"third_party", "external", "vendor", "_deps", "build-release"})
    put(fs::path(name) / "d.cu", broken);
  // A subdirectory of the project with its own CMakeLists.txt but no project() is walked.
  put("kernels/CMakeLists.txt", "add_library(kernels STATIC k.cu)  # project(not this)\n");
  fs::copy_file(std::string(KERNELEVO_SOURCE_DIR) + "/templates/sum.cu", dir / "kernels/sum.cu");

  for (const std::string& root : {dir.string(), dir.string() + "/", (dir / "src/..").string()}) {
    const SpecLoad load = load_specs({root});
    for (const auto& e : load.errors) ADD_FAILURE() << root << ": " << e.to_string();
    ASSERT_EQ(load.specs.size(), 2u) << root;
    EXPECT_EQ(load.specs[0].id, "sum_reduce");
    EXPECT_EQ(load.specs[1].id, "softmax_rows");
    std::vector<std::string> skipped;
    for (const auto& s : load.skipped) skipped.push_back(fs::path(s).filename().string());
    EXPECT_EQ(skipped, (std::vector<std::string>{"_deps", "build-release", "external", "kev", "mod",
                                                 "out", "third_party", "vendor"}))
        << root;
  }
  // Named on the command line, a skipped file or directory is read.
  EXPECT_FALSE(load_specs({(dir / "third_party/d.cu").string()}).errors.empty());
  EXPECT_FALSE(load_specs({(dir / "libs/kev").string()}).errors.empty());
}

TEST(SpecYaml, AcceptsTheShippedTemplates) {
  const std::string dir = std::string(KERNELEVO_SOURCE_DIR) + "/templates";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no templates/";
  const SpecLoad load = load_specs({dir});
  for (const auto& e : load.errors) ADD_FAILURE() << e.to_string();
  EXPECT_TRUE(load.warnings.empty());
  EXPECT_GE(load.specs.size(), 2u);
}

TEST(SpecYaml, MissingPathIsAnError) {
  const SpecLoad load = load_specs({"/nonexistent/kernels"});
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_EQ(load.errors[0].to_string(), "error: no such file or directory: '/nonexistent/kernels'");
}

}  // namespace
}  // namespace kev
