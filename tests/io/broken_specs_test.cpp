// Every broken spec yields its exact message, naming file:line:column in the .cu file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/spec_loader.h"
#include "support/temp_dir.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

// Lines 1-2 of every generated source; the YAML starts on line 3.
const char* kHead = "// clang-format off\n/* @kernelevo\n";
const char* kTail = "*/\n// clang-format on\n__global__ void k(float* y, int n) {}\n";

// A valid spec, line by line (file lines 3 to 10), that the cases below break.
const char* kValid =
    "kernel: k\n"
    "params:\n"
    "  B: [64, 128]\n"
    "problems: [{n: 1024}]\n"
    "args:\n"
    "  - {name: y, type: \"float*\", count: n, output: true}\n"
    "  - {name: n, type: int, value: n}\n"
    "launch: {grid: [\"ceil_div(n, B)\"], block: [B]}\n";

std::string block(const std::string& yaml) { return kHead + yaml + kTail; }

std::string replace(std::string s, const std::string& from, const std::string& to) {
  for (auto pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

struct Case {
  const char* name;
  std::vector<std::pair<std::string, std::string>> files;  // relative path, content
  std::vector<std::string> expected;                       // Error::to_string(), relative paths
};

std::vector<Case> cases() {
  const std::string v = kValid;
  return {
      {"unknown_key",
       {{"k.cu", block(v + "paramz: {A: [1]}\n")}},
       {"k.cu:11:1: error: unknown key 'paramz' in kernel spec; expected one of id, kernel, "
        "params, let, "
        "constraints, problems, validate, args, launch, reference, tolerance, metrics, arch, "
        "include_dirs, defines, flags, dispatch, objectives, timing"}},
      {"missing_params",
       {{"k.cu", block(replace(v, "params:\n  B: [64, 128]\n", ""))}},
       {"k.cu:2:4: error: missing required key 'params' (the tunable parameters)"}},
      {"missing_args",
       {{"k.cu", block(replace(v,
                               "args:\n  - {name: y, type: \"float*\", count: n, output: true}\n  "
                               "- {name: n, type: int, value: n}\n",
                               ""))}},
       {"k.cu:2:4: error: missing required key 'args' (the kernel's arguments, in order)"}},
      {"missing_launch",
       {{"k.cu", block(replace(v, "launch: {grid: [\"ceil_div(n, B)\"], block: [B]}\n", ""))}},
       {"k.cu:2:4: error: missing required key 'launch' ({grid: [...], block: [...]})"}},
      {"missing_launch_block",
       {{"k.cu", block(replace(v, ", block: [B]", ""))}},
       {"k.cu:2:4: error: missing required key 'launch.block'"}},
      {"empty_params",
       {{"k.cu", block(replace(v, "params:\n  B: [64, 128]\n", "params: {}\n"))}},
       {"k.cu:4:9: error: 'params' is empty; expected at least one tunable parameter"}},
      {"empty_value_list",
       {{"k.cu", block(replace(v, "B: [64, 128]", "B: []"))}},
       {"k.cu:5:6: error: parameter 'B' must list at least one value, e.g. [128, 256]"}},
      {"duplicate_value",
       {{"k.cu", block(replace(v, "B: [64, 128]", "B: [64, 64]"))}},
       {"k.cu:5:11: error: parameter 'B' lists 64 twice"}},
      {"bad_param_name",
       {{"k.cu", block(replace(v, "  B: [64, 128]\n", "  B: [64, 128]\n  2X: [1]\n"))}},
       {"k.cu:6:3: error: parameter name '2X' is not a valid C identifier"}},
      {"bad_scalar_type",
       {{"k.cu", block(replace(v, "\"float*\"", "\"flot*\""))}},
       {"k.cu:8:22: error: unknown type 'flot*'; expected float, double, half, bfloat16, "
        "fp8_e4m3, int8..int64, uint8..uint64 or a pointer to one (\"const float*\")"}},
      {"output_without_count",
       {{"k.cu", block(replace(v, "count: n, ", ""))}},
       {"k.cu:8:5: error: pointer argument 'y' needs 'count' (the number of elements)"}},
      {"scalar_without_value",
       {{"k.cu", block(replace(v, ", value: n}", "}"))}},
       {"k.cu:9:5: error: scalar argument 'n' needs 'value' (an integer expression)"}},
      {"output_on_scalar",
       {{"k.cu", block(replace(v, "value: n}", "value: n, output: true}"))}},
       {"k.cu:9:5: error: 'output' applies to pointer arguments only; argument 'n' is a scalar"}},
      {"two_roles",
       {{"k.cu", block(replace(v, "output: true}", "output: true, inout: true}"))}},
       {"k.cu:8:5: error: argument 'y' can be only one of output, inout and scratch"}},
      {"const_output",
       {{"k.cu", block(replace(v, "\"float*\"", "\"const float*\""))}},
       {"k.cu:8:5: error: argument 'y' points to const and cannot be an output"}},
      {"unknown_init",
       {{"k.cu", block(replace(v, "output: true}", "init: gauss}"))}},
       {"k.cu:8:47: error: unknown init 'gauss'; expected normal, uniform, constant, iota, randint "
        "or zeros"}},
      {"unknown_arg_key",
       {{"k.cu", block(replace(v, "output: true}", "outptu: true}"))}},
       {"k.cu:8:41: error: unknown key 'outptu' in argument; expected one of name, type, count, "
        "init, "
        "init_value, output, inout, scratch, value, tensor_map"}},
      {"duplicate_arg",
       {{"k.cu", block(replace(v, "{name: n, type: int", "{name: y, type: int"))}},
       {"k.cu:9:5: error: argument 'y' is listed twice (first at k.cu:8:5)"}},
      {"float_for_int_scalar",
       {{"k.cu", block(replace(v, "value: n}", "value: 1.5}"))}},
       {"k.cu:9:33: error: invalid number '1.5' in expression \"1.5\"; expected an integer"}},
      {"too_many_launch_dims",
       {{"k.cu", block(replace(v, "block: [B]", "block: [B, 1, 1, 1]"))}},
       {"k.cu:10:43: error: 'launch.block' has 4 expressions; expected 1 to 3 (x, y, z)"}},
      {"constraint_parse_error",
       {{"k.cu", block(v + "constraints: [\"B <= \"]\n")}},
       {"k.cu:11:21: error: unexpected end of expression in expression \"B <= \"; expected a "
        "number, a name, '(', '-' or '!'"}},
      {"undefined_name_in_count",
       {{"k.cu", block(replace(v, "count: n,", "count: n * m,"))}},
       {"k.cu:8:42: error: undefined name 'm' in expression \"n * m\"; expected a parameter or a "
        "dimension of every problem (n)"}},
      {"undefined_name_without_problems",
       {{"k.cu", block(replace(v, "problems: [{n: 1024}]\n", ""))}},
       {"k.cu:7:38: error: undefined name 'n' in expression \"n\"; expected a parameter (no "
        "problems are listed)",
        "k.cu:8:33: error: undefined name 'n' in expression \"n\"; expected a parameter (no "
        "problems are listed)",
        "k.cu:9:27: error: undefined name 'n' in expression \"ceil_div(n, B)\"; expected a "
        "parameter (no problems are listed)"}},
      {"empty_space",
       {{"k.cu", block(v + "constraints: [\"B > 1000\"]\n")}},
       {"k.cu:11:16: error: no valid configuration: the constraints exclude all 2 points of the "
        "space"}},
      {"empty_space_for_one_problem",
       {{"k.cu", block(replace(v, "problems: [{n: 1024}]", "problems: [{n: 1024}, {n: 1000}]") +
                       "constraints: [\"n % B == 0\"]\n")}},
       {"k.cu:6:23: error: no valid configuration for problem n=1000: the constraints exclude all "
        "2 points of the space"}},
      {"dimension_not_integer",
       {{"k.cu", block(replace(v, "{n: 1024}", "{n: lots}"))}},
       {"k.cu:6:16: error: dimension 'n' must be an integer, got 'lots'"}},
      {"dimension_named_like_parameter",
       {{"k.cu", block(replace(v, "{n: 1024}", "{n: 1024, B: 2}"))}},
       {"k.cu:6:12: error: problem dimension 'B' has the name of a parameter"}},
      {"negative_tolerance",
       {{"k.cu", block(v + "tolerance: {rtol: -1}\n")}},
       {"k.cu:11:19: error: 'tolerance.rtol' must be a non-negative number"}},
      {"bad_arch",
       {{"k.cu", block(v + "arch: sm90\n")}},
       {"k.cu:11:7: error: 'arch' must name an architecture such as sm_90 or sm_90a, got 'sm90'"}},
      {"yaml_syntax",
       {{"k.cu", block(replace(v, "block: [B]}", "block: [B}"))}},
       {"k.cu:10:45: error: invalid YAML in @kernelevo block: illegal flow end"}},
      {"block_is_a_list",
       {{"k.cu", block("- kernel: k\n")}},
       {"k.cu:3:1: error: a kernel spec must be a YAML map with keys such as kernel, params, args, "
        "launch"}},
      {"string_param_in_expression",
       {{"k.cu", block(replace(v, "B: [64, 128]", "B: [64, wide]"))}},
       {"k.cu:10:30: error: parameter 'B' has non-integer values and cannot be used in expression "
        "\"ceil_div(n, B)\"",
        "k.cu:10:44: error: parameter 'B' has non-integer values and cannot be used in expression "
        "\"B\""}},
      {"parameter_reused_in_file",
       {{"k.cu",
         block(v) + replace(block(replace(v, "kernel: k", "kernel: k2")), "void k(", "void k2(")}},
       {"k.cu:18:3: error: parameter 'B' is already used by kernel 'k' in this file (at k.cu:5:3); "
        "parameter names must be unique within a source file"}},
      {"kernel_not_in_source",
       {{"k.cu", block(replace(v, "kernel: k", "kernel: kk"))}},
       {"k.cu:2:4: error: kernel `kk` is not defined in k.cu (no __global__ function of that "
        "name with a body)"}},
      {"kernel_not_global",
       {{"k.cu", replace(block(v), "__global__", "__device__")}},
       {"k.cu:2:4: error: kernel `k` (defined at k.cu:13) is not a __global__ function"}},
      {"args_count_differs",
       {{"k.cu", block(replace(v, "  - {name: n, type: int, value: n}\n", ""))}},
       {"k.cu:8:5: error: the spec lists 1 argument but kernel `k` (k.cu:12) takes 2 "
        "parameters"}},
      {"arg_kind_differs",
       {{"k.cu", block(replace(v, "{name: n, type: int, value: n}",
                               "{name: n, type: \"const int*\", count: n}"))}},
       {"k.cu:9:5: error: argument 'n' is a pointer but parameter 2 of kernel `k` (`int n`, "
        "k.cu:13) is a scalar"}},
      {"tensor_map_of_a_scalar",
       {{"k.cu", block(replace(v, "{name: n, type: int, value: n}",
                               "{name: n, tensor_map: {of: n, dims: [n], box: [4]}}"))}},
       {"k.cu:9:27: error: tensor map 'n' is of 'n', which is not a pointer argument of the "
        "kernel"}},
      {"tensor_map_with_a_type",
       {{"k.cu", block(replace(v, "{name: n, type: int, value: n}",
                               "{name: n, type: int, tensor_map: {of: y, dims: [n], box: [4]}}"))}},
       {"k.cu:9:21: error: argument 'n' is a tensor map; 'type' does not apply (the map's "
        "element type is its buffer's)"}},
      {"tensor_map_swizzle",
       {{"k.cu",
         block(replace(v, "{name: n, type: int, value: n}",
                       "{name: n, tensor_map: {of: y, dims: [n], box: [4], swizzle: 16}}"))}},
       {"k.cu:9:65: error: 'tensor_map.swizzle' must be 0, 32, 64 or 128 (bytes)"}},
      {"tensor_map_dims_and_box_differ",
       {{"k.cu", block(replace(v, "{name: n, type: int, value: n}",
                               "{name: n, tensor_map: {of: y, dims: [n, B], box: [4]}}"))}},
       {"k.cu:9:27: error: 'tensor_map' of argument 'n' has 2 dims and 1 box sizes; they must "
        "have one each per dimension"}},
      {"no_output_argument",
       {{"k.cu", block(replace(v, ", output: true", ""))}},
       {"k.cu:8:5: error: no output argument: mark the pointer the kernel writes its result to "
        "`output: true` (or `inout: true`), so that its result can be verified"}},
      {"duplicate_id_across_files",
       {{"a.cu", block(v)},
        {"b.cu", block(replace(replace(v, "B", "C"), "kernel: k", "kernel: k\nid: k"))}},
       {"b.cu:2:4: error: duplicate kernel id 'k' (first defined at a.cu:2:4); ids must be unique "
        "in the project"}},
      {"mark_in_header",
       {{"k.cuh", block(v)}},
       {"k.cuh:2:4: error: @kernelevo marks belong in .cu sources, not headers; move the mark and "
        "its kernel into a .cu file"}},
      {"project_entry_without_source",
       {{"kernelevo.yaml",
         "kernels:\n  - kernel: k\n    params: {B: [1]}\n    args: [{name: n, type: int, value: "
         "B}]\n    launch: {grid: 1, block: B}\n"}},
       {"kernelevo.yaml:2:5: error: missing required key 'source' (the .cu file holding the "
        "kernel)"}},
      {"project_source_missing",
       {{"kernelevo.yaml",
         "- source: nowhere.cu\n  kernel: k\n  params: {B: [1]}\n  args: [{name: n, type: int, "
         "value: B}]\n  launch: {grid: 1, block: B}\n"}},
       {"kernelevo.yaml:1:3: error: source 'nowhere.cu' of kernel 'k' does not exist"}},
  };
}

class BrokenSpecs : public ::testing::TestWithParam<Case> {};

TEST_P(BrokenSpecs, ReportsExactMessage) {
  const Case& c = GetParam();
  const kev::test_support::TempDir tmp;
  const fs::path dir = tmp.path();
  for (const auto& [name, content] : c.files) std::ofstream(dir / name) << content;
  const SpecLoad load = load_specs({dir.string()});
  std::vector<std::string> actual;
  for (const auto& e : load.errors)
    actual.push_back(replace(e.to_string(), dir.string() + "/", ""));
  EXPECT_EQ(actual, c.expected);
  EXPECT_TRUE(load.specs.empty() || c.files.size() > 1 ||
              c.name == std::string("parameter_reused_in_file"));
}

INSTANTIATE_TEST_SUITE_P(Table, BrokenSpecs, ::testing::ValuesIn(cases()),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

TEST(BrokenSpecs, TableHasAtLeastTwentyCases) { EXPECT_GE(cases().size(), 20u); }

TEST(BrokenSpecs, EveryErrorIsCollectedNotJustTheFirst) {
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  fs::create_directories(dir);
  std::ofstream(dir / "a.cu") << block(replace(kValid, "\"float*\"", "\"flot*\"") +
                                       "colour: red\n");
  std::ofstream(dir / "b.cu") << block(std::string(kValid) + "constraints: [\"B >\"]\n");
  const SpecLoad load = load_specs({dir.string()});
  std::vector<std::string> actual;
  for (const auto& e : load.errors)
    actual.push_back(replace(e.to_string(), dir.string() + "/", ""));
  EXPECT_EQ(
      actual,
      (std::vector<std::string>{
          "a.cu:8:22: error: unknown type 'flot*'; expected float, double, half, bfloat16, "
          "fp8_e4m3, int8..int64, uint8..uint64 or a pointer to one (\"const float*\")",
          "a.cu:11:1: error: unknown key 'colour' in kernel spec; expected one of id, kernel, "
          "params, let, constraints, problems, validate, args, launch, reference, tolerance, "
          "metrics, arch, include_dirs, defines, flags, dispatch, objectives, timing",
          "b.cu:2:4: error: duplicate kernel id 'k' (first defined at a.cu:2:4); ids must be "
          "unique in the project",
          "b.cu:11:19: error: unexpected end of expression in expression \"B >\"; expected a "
          "number, a name, '(', '-' or '!'"}));
  EXPECT_TRUE(load.specs.empty());
}

}  // namespace
}  // namespace kev
