// The package `kernelevo export --torch` writes (io/torch_package.h) and the operator's
// signature (core/torch_signature.h): kernel.json and __init__.py of a small spec against
// golden files (fake cubins, so no compiler is needed), the signature of every template's
// kind of argument, names that cannot be Python, and the rule for replacing a package.
// After an intended change: KERNELEVO_UPDATE_GOLDEN=1 ./kernelevo_io_tests
// --gtest_filter='TorchPackage*'
#include "io/torch_package.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/torch_signature.h"
#include "io/spec_loader.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

const std::string kGolden = std::string(KERNELEVO_FIXTURES) + "/golden/";
const std::string kGated = std::string(KERNELEVO_FIXTURES) + "/torch_export/gated.cu";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = kGolden + name;
  if (std::getenv("KERNELEVO_UPDATE_GOLDEN") != nullptr) std::ofstream(path) << actual;
  EXPECT_EQ(actual, read(path)) << "golden file " << path;
}

KernelSpec gated_spec() {
  const SpecLoad load = load_specs({kGated});
  EXPECT_TRUE(load.errors.empty()) << (load.errors.empty() ? "" : load.errors[0].to_string());
  EXPECT_EQ(load.specs.size(), 1u);
  KernelSpec spec = load.specs.at(0);
  spec.source = "gated.cu";  // as a project names it
  return spec;
}

std::vector<TorchArch> gated_archs() {
  TorchArch sm90;
  sm90.arch = "sm_90";
  sm90.choice = "kernelevo.lock.json: sm_90 NVIDIA H200 (only_device)";
  sm90.by = "hidden";
  TorchVariant small;
  small.params = {{"GATED_BLOCK", Value(64)}, {"GATED_UNROLL", Value(2)}};
  small.bucket = BucketRange{0, 512};
  small.time_us = 4.0;
  small.baseline_us = 5.0;
  small.image = {"cubin-a", "gated"};
  TorchVariant large;
  large.params = {{"GATED_BLOCK", Value(256)}, {"GATED_UNROLL", Value(1)}};
  large.bucket = BucketRange{512, std::nullopt};
  large.image = {"cubin-b", "gated"};
  sm90.variants = {small, large};
  sm90.reference = {"cubin-ref", "gated_naive"};
  TorchArch sm80;
  sm80.arch = "sm_80";
  sm80.choice = "source defaults (no entry in kernelevo.lock.json)";
  TorchVariant defaults;
  defaults.params = {{"GATED_BLOCK", Value(128)}, {"GATED_UNROLL", Value(1)}};
  defaults.image = {"cubin-c", "gated"};
  sm80.variants = {defaults};
  sm80.reference = {"cubin-ref80", "gated_naive"};
  return {sm80, sm90};
}

TorchPackageOptions gated_options() {
  TorchPackageOptions o;
  o.package = "gated";
  o.lockfile_name = "kernelevo.lock.json";
  o.source_hash = "sha256:0000";
  o.defaults = {{"GATED_BLOCK", Value(128)}, {"GATED_UNROLL", Value(1)}};
  return o;
}

TEST(TorchSignature, MapsEveryKindOfArgument) {
  const KernelSpec spec = gated_spec();
  auto sig = torch_signature(spec);
  ASSERT_TRUE(sig.ok()) << sig.error().to_string();
  std::vector<std::string> roles;
  for (const auto& a : sig->args) roles.push_back(a.name + ":" + to_string(a.role));
  EXPECT_EQ(roles, (std::vector<std::string>{"x:input", "w:input", "y:output", "acc:inout",
                                             "tmp:scratch", "rows:dim", "hidden:dim",
                                             "total:computed", "steps:dim", "scale:keyword"}));
  EXPECT_EQ(sig->args[0].groups, (std::vector<AxisGroup>{{"rows", 1}, {"hidden", 2}}));
  EXPECT_TRUE(sig->args[4].groups.empty());  // GATED_BLOCK is a parameter, not a dimension
  ASSERT_EQ(sig->dims.size(), 3u);
  EXPECT_EQ(sig->dims[0].dim, "hidden");  // the problems' order (a map's: by name)
  EXPECT_EQ(sig->dims[0].arg, "x");
  EXPECT_EQ(sig->dims[0].group, 1u);
  EXPECT_EQ(sig->dims[1].dim, "rows");
  EXPECT_EQ(sig->dims[1].arg, "x");
  EXPECT_EQ(sig->dims[2].dim, "steps");
  EXPECT_EQ(sig->dims[2].arg, "");  // no tensor gives it: a keyword argument
  EXPECT_EQ(sig->args[9].float_default, 0.5);
}

TEST(TorchSignature, AxisGroups) {
  const std::vector<std::string> dims{"rows", "cols", "hidden", "n"};
  EXPECT_EQ(axis_groups("rows*cols", dims), (std::vector<AxisGroup>{{"rows", 1}, {"cols", 1}}));
  EXPECT_EQ(axis_groups("rows * 2 * hidden", dims),
            (std::vector<AxisGroup>{{"rows", 1}, {"hidden", 2}}));
  EXPECT_EQ(axis_groups("(n)", dims), (std::vector<AxisGroup>{{"n", 1}}));
  EXPECT_EQ(axis_groups("cols*4", dims), (std::vector<AxisGroup>{{"cols", 4}}));
  EXPECT_EQ(axis_groups("1", dims), (std::vector<AxisGroup>{{"", 1}}));
  EXPECT_TRUE(axis_groups("4096*(cols/2)", dims).empty());
  EXPECT_TRUE(axis_groups("rows+cols", dims).empty());
  EXPECT_TRUE(axis_groups("BLOCK*rows", dims).empty());
}

TEST(TorchSignature, RefusesNamesPythonCannotTake) {
  EXPECT_TRUE(is_python_identifier("softmax_rows"));
  EXPECT_TRUE(is_python_identifier("type"));
  EXPECT_FALSE(is_python_identifier("lambda"));
  EXPECT_FALSE(is_python_identifier("import"));
  EXPECT_FALSE(is_python_identifier("a-b"));
  EXPECT_FALSE(is_python_identifier("__init__"));
  EXPECT_FALSE(is_python_identifier("x\"); import os; (\""));
  EXPECT_FALSE(is_python_identifier(""));

  KernelSpec spec = gated_spec();
  spec.args[9].name = "lambda";
  auto sig = torch_signature(spec);
  ASSERT_FALSE(sig.ok());
  EXPECT_NE(sig.error().message.find("argument 'lambda' of gated cannot be a Python argument"),
            std::string::npos);

  spec = gated_spec();
  spec.args[9].name = "steps";  // the keyword dimension's name
  sig = torch_signature(spec);
  ASSERT_FALSE(sig.ok());
  EXPECT_NE(sig.error().message.find("problem dimension 'steps' of gated"), std::string::npos);
}

// What the generated launcher cannot do yet is refused by name, before anything is written.
TEST(TorchSignature, RefusesTensorMapsClustersAndSmCount) {
  KernelSpec spec = gated_spec();
  ArgSpec map;
  map.name = "map_x";
  map.tensor_map = TensorMapSpec{spec.args[0].name, {}, {}, 128, SourceLocation{"g.cu", 4, 2}};
  map.where = SourceLocation{"g.cu", 4, 2};
  spec.args.push_back(map);
  auto sig = torch_signature(spec);
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.error().message,
            "argument 'map_x' of gated is a tensor map, which export --torch does not encode yet");
  EXPECT_EQ(sig.error().where.line, 4);

  spec = gated_spec();
  auto two = Expr::parse("2", SourceLocation{"g.cu", 9, 7});
  ASSERT_TRUE(two.ok());
  spec.launch.cluster = std::move(two).value();
  sig = torch_signature(spec);
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.error().message,
            "gated launches thread-block clusters (launch.cluster), which export --torch does "
            "not launch yet");
  EXPECT_EQ(sig.error().where.line, 9);

  spec = gated_spec();
  auto persistent = Expr::parse("min(n, sm_count)", SourceLocation{"g.cu", 11, 9});
  ASSERT_TRUE(persistent.ok());
  spec.launch.grid = {std::move(persistent).value()};
  sig = torch_signature(spec);
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.error().message,
            "gated uses sm_count (the device's multiprocessor count), which export --torch does "
            "not evaluate yet");
  EXPECT_EQ(sig.error().where.line, 11);
}

TEST(TorchPackage, KernelJsonMatchesGolden) {
  const KernelSpec spec = gated_spec();
  auto sig = torch_signature(spec);
  ASSERT_TRUE(sig.ok());
  expect_golden("torch_export_gated.kernel.json",
                torch_kernel_json(spec, *sig, gated_archs(), gated_options()));
}

TEST(TorchPackage, InitPyMatchesGolden) {
  const KernelSpec spec = gated_spec();
  auto sig = torch_signature(spec);
  ASSERT_TRUE(sig.ok());
  TorchPackageOptions o = gated_options();
  o.equivalent_text = "def torch_equivalent(kernel, a, d):\n    return None\n";
  o.equivalent_name = "mine.py";
  expect_golden("torch_export_gated.__init__.py", torch_init_py(spec, *sig, gated_archs(), o));
}

TEST(TorchPackage, FilesHoldTheModulesAndCubins) {
  const KernelSpec spec = gated_spec();
  auto sig = torch_signature(spec);
  ASSERT_TRUE(sig.ok());
  auto files = torch_package_files(spec, *sig, gated_archs(), gated_options());
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  std::vector<std::string> names;
  for (const auto& f : *files) names.push_back(f.path);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "kernel.json", "__init__.py", "_runtime.py", "test.py", "bench.py",
                       "_spec_expr.py", "_cuda_launch.py", "_buckets.py", "cubins/sm_80.0.cubin",
                       "cubins/sm_80.reference.cubin", "cubins/sm_90.0.cubin",
                       "cubins/sm_90.1.cubin", "cubins/sm_90.reference.cubin"}));
  EXPECT_EQ(files->at(10).bytes, "cubin-a");
  EXPECT_NE(files->at(2).bytes.find("def load_package"), std::string::npos);
}

TEST(TorchPackage, UntrustedStringsStayData) {
  KernelSpec spec = gated_spec();
  spec.source = "x.cu\"\"\"\nimport os; os.system('id')\n\"\"\"";
  auto sig = torch_signature(spec);
  ASSERT_TRUE(sig.ok());
  std::vector<TorchArch> archs = gated_archs();
  archs[0].choice = "\"\"\"; import os";
  archs[0].variants[0].params["GATED_BLOCK"] = Value(std::string("'; import os; '"));
  const std::string init = torch_init_py(spec, *sig, archs, gated_options());
  EXPECT_EQ(init.find("import os"), std::string::npos);
  const std::string json = torch_kernel_json(spec, *sig, archs, gated_options());
  EXPECT_NE(json.find("\"source\": \"x.cu\\\"\\\"\\\"\\nimport os"), std::string::npos) << json;

  archs[0].arch = "sm_90; import os";
  auto files = torch_package_files(spec, *sig, archs, gated_options());
  ASSERT_FALSE(files.ok());
  EXPECT_NE(files.error().message.find("is not a GPU architecture"), std::string::npos);

  spec.id = "bad-id";
  files = torch_package_files(spec, *sig, gated_archs(), gated_options());
  ASSERT_FALSE(files.ok());
  EXPECT_NE(files.error().message.find("kernel id 'bad-id' is not a Python identifier"),
            std::string::npos);
}

class TorchPackageWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kev_torch_pkg_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(TorchPackageWrite, ReplacesItsOwnPackageOnly) {
  const std::vector<PackageFile> v1 = {
      {"kernel.json", "{\n  \"generator\": \"kernelevo export --torch\"\n}\n"},
      {"cubins/a.cubin", "one"}};
  ASSERT_TRUE(write_torch_package(dir_ / "pkg", v1).ok());
  EXPECT_EQ(read(dir_ / "pkg" / "cubins" / "a.cubin"), "one");
  const std::vector<PackageFile> v2 = {
      {"kernel.json", "{\n  \"generator\": \"kernelevo export --torch\"\n}\n"},
      {"cubins/b.cubin", "two"}};
  ASSERT_TRUE(write_torch_package(dir_ / "pkg", v2).ok());
  EXPECT_FALSE(fs::exists(dir_ / "pkg" / "cubins" / "a.cubin"));  // the old package is gone
  EXPECT_EQ(read(dir_ / "pkg" / "cubins" / "b.cubin"), "two");

  fs::create_directories(dir_ / "mine");
  std::ofstream(dir_ / "mine" / "notes.txt") << "keep";
  auto refused = write_torch_package(dir_ / "mine", v1);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("exists and is not a package kernelevo exported"),
            std::string::npos);
  EXPECT_EQ(read(dir_ / "mine" / "notes.txt"), "keep");

  auto no_parent = write_torch_package(dir_ / "absent" / "pkg", v1);
  ASSERT_FALSE(no_parent.ok());
  EXPECT_NE(no_parent.error().message.find("is not a directory"), std::string::npos);
}

}  // namespace
}  // namespace kev
