#include "io/header_gen.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "support/temp_dir.h"

namespace kev {
namespace {

KernelSpec softmax_spec(std::string kernel = "softmax_rows") {
  KernelSpec spec;
  spec.id = "softmax_rows";
  spec.kernel = std::move(kernel);
  spec.source = "src/softmax.cu";
  spec.where = {"src/softmax.cu", 12, 1};
  spec.params.push_back({"SOFTMAX_BLOCK", {128, 256, 512, 1024}, {"src/softmax.cu", 16, 3}});
  spec.params.push_back({"SOFTMAX_VEC", {1, 2, 4}, {"src/softmax.cu", 17, 3}});
  return spec;
}

const char* kSource =
    "#ifndef SOFTMAX_BLOCK\n#define SOFTMAX_BLOCK 256  // default\n#endif\n"
    "#ifndef SOFTMAX_VEC\n#define SOFTMAX_VEC 1\n#endif\n";

Lockfile lock_with(const std::string& arch, const std::string& device, ParamSet params,
                   const std::string& hash = "sha256:abc") {
  Lockfile lock;
  LockEntry entry;
  entry.params = std::move(params);
  set_entry(lock, "softmax_rows", "src/softmax.cu", hash, arch, device, entry);
  return lock;
}

HeaderOptions options(std::vector<std::string> archs) {
  HeaderOptions o;
  o.source_name = "src/softmax.cu";
  o.source_text = kSource;
  o.source_hash = "sha256:abc";
  o.lockfile_name = "kernelevo.lock.json";
  o.archs = std::move(archs);
  return o;
}

// The part of the header after "#else" (host code), or before it (device code).
std::string host_part(const std::string& text) { return text.substr(text.find("\n#else\n")); }
std::string device_part(const std::string& text) { return text.substr(0, text.find("\n#else\n")); }

TEST(HeaderGen, SingleArchitectureGivesPlainConstantsToDeviceAndHost) {
  const Lockfile lock =
      lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 512}, {"SOFTMAX_VEC", 4}});
  auto h = generate_params_header({softmax_spec()}, &lock, options({"sm_90"}));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  const std::string& text = h->text;
  EXPECT_NE(device_part(text).find("#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1000"),
            std::string::npos);
  EXPECT_NE(
      device_part(text).find(
          "#define SOFTMAX_BLOCK 512  // softmax_rows / sm_90 / \"NVIDIA H200\" (only device)"),
      std::string::npos)
      << text;
  EXPECT_NE(host_part(text).find("#define SOFTMAX_BLOCK 512"), std::string::npos) << text;
  EXPECT_NE(host_part(text).find("#define SOFTMAX_VEC 4"), std::string::npos);
  EXPECT_EQ(text.find("probe"), std::string::npos) << "no run-time lookup when one arch is built";
  EXPECT_NE(text.find("static_assert(built_as_generated()"), std::string::npos);
  EXPECT_TRUE(h->warnings.empty());
}

TEST(HeaderGen, WritesTheSpecsTextNotTheLockfiles) {
  const Lockfile lock = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 512.0}});
  auto h = generate_params_header({softmax_spec()}, &lock, options({"sm_90"}));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_NE(h->text.find("#define SOFTMAX_BLOCK 512 "), std::string::npos) << h->text;
  EXPECT_EQ(h->text.find("512.0"), std::string::npos);
}

TEST(HeaderGen, DisagreeingArchitecturesGetARunTimeLookupOnTheHost) {
  Lockfile lock = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 512}, {"SOFTMAX_VEC", 4}});
  LockEntry a100;
  a100.params = {{"SOFTMAX_BLOCK", 128}, {"SOFTMAX_VEC", 4}};
  set_entry(lock, "softmax_rows", "src/softmax.cu", "sha256:abc", "sm_80", "NVIDIA A100", a100);
  auto h = generate_params_header({softmax_spec()}, &lock, options({"sm_80", "sm_90"}));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  const std::string& text = h->text;
  EXPECT_NE(device_part(text).find("#define SOFTMAX_BLOCK 128"), std::string::npos);
  EXPECT_NE(device_part(text).find("#define SOFTMAX_BLOCK 512"), std::string::npos);
  EXPECT_NE(
      host_part(text).find("#define SOFTMAX_BLOCK (::kernelevo_params::SOFTMAX_BLOCK_value())"),
      std::string::npos)
      << text;
  EXPECT_NE(host_part(text).find("if (arch >= 900 && arch < 1000) return 512;"), std::string::npos)
      << text;
  EXPECT_NE(host_part(text).find("if (arch >= 800 && arch < 900) return 128;"), std::string::npos);
  EXPECT_NE(host_part(text).find("return (256);  // source default"), std::string::npos);
  EXPECT_NE(host_part(text).find("#define SOFTMAX_VEC 4  // every built architecture"),
            std::string::npos)
      << "agreeing values stay plain constants";
  EXPECT_NE(text.find("cudaFuncGetAttributes(&attr, probe)"), std::string::npos);
  EXPECT_NE(text.find("attr.ptxVersion * 10"), std::string::npos);
}

TEST(HeaderGen, ArchitectureWithoutEntryUsesTheSourceDefaultOnTheHost) {
  const Lockfile lock = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 512}});
  auto h = generate_params_header({softmax_spec()}, &lock, options({"sm_80", "sm_90"}));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_NE(h->text.find("if (arch >= 800 && arch < 900) return (256);"), std::string::npos)
      << h->text;
  EXPECT_NE(h->text.find("sm_80: softmax_rows: nothing locked for sm_80; source defaults"),
            std::string::npos);
}

TEST(HeaderGen, TemplateArgumentThatDiffersFailsTheHostCompile) {
  Lockfile lock = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 512}});
  auto h = generate_params_header({softmax_spec("softmax<SOFTMAX_BLOCK>")}, &lock,
                                  options({"sm_80", "sm_90"}));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_NE(
      h->text.find("static_assert(SOFTMAX_BLOCK_agrees(), \"kernelevo: SOFTMAX_BLOCK is a template "
                   "argument of softmax<SOFTMAX_BLOCK>"),
      std::string::npos)
      << h->text;
  EXPECT_NE(h->text.find("(sm_80: 256, sm_90: 512)"), std::string::npos);
}

TEST(HeaderGen, UnknownArchitecturesDecideAtRunTime) {
  const Lockfile lock = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 512}});
  auto h = generate_params_header({softmax_spec()}, &lock, options({}));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_NE(host_part(h->text).find("SOFTMAX_BLOCK_value()"), std::string::npos) << h->text;
  EXPECT_EQ(h->text.find("built_as_generated"), std::string::npos);
}

TEST(HeaderGen, NamedDeviceIsChosenAndSaidSo) {
  Lockfile lock = lock_with("sm_90", "NVIDIA H100", {{"SOFTMAX_BLOCK", 256}});
  LockEntry h200;
  h200.params = {{"SOFTMAX_BLOCK", 1024}};
  set_entry(lock, "softmax_rows", "src/softmax.cu", "sha256:abc", "sm_90", "NVIDIA H200", h200);
  auto o = options({"sm_90"});
  o.device = "NVIDIA H200";
  auto h = generate_params_header({softmax_spec()}, &lock, o);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_NE(
      h->text.find(
          "#define SOFTMAX_BLOCK 1024  // softmax_rows / sm_90 / \"NVIDIA H200\" (named device)"),
      std::string::npos)
      << h->text;
}

TEST(HeaderGen, CodeInAValueIsRefusedNamingTheEntry) {
  const Lockfile lock = lock_with(
      "sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", std::string("512\n#include \"/etc/passwd\"")}});
  auto h = generate_params_header({softmax_spec()}, &lock, options({"sm_90"}));
  ASSERT_FALSE(h.ok());
  const std::string message = h.error().to_string();
  EXPECT_NE(
      message.find(
          "kernelevo.lock.json: kernel softmax_rows, sm_90, device 'NVIDIA H200': SOFTMAX_BLOCK"),
      std::string::npos)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(HeaderGen, ValueOutsideTheSpecIsRefused) {
  const Lockfile lock = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 2048}});
  auto h = generate_params_header({softmax_spec()}, &lock, options({"sm_90"}));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find(
                "SOFTMAX_BLOCK = '2048' is not one of the values [128, 256, 512, 1024]"),
            std::string::npos)
      << h.error().message;
}

TEST(HeaderGen, UnknownParameterAndHugeStringAreRefusedWithShortMessages) {
  const Lockfile unknown = lock_with("sm_90", "NVIDIA H200", {{"EVIL", 1}});
  EXPECT_FALSE(generate_params_header({softmax_spec()}, &unknown, options({"sm_90"})).ok());
  const Lockfile huge =
      lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_VEC", std::string(1 << 20, 'x')}});
  auto h = generate_params_header({softmax_spec()}, &huge, options({"sm_90"}));
  ASSERT_FALSE(h.ok());
  EXPECT_LT(h.error().message.size(), 400u);
}

TEST(HeaderGen, EntriesOfArchitecturesNotBuiltAreCheckedToo) {
  Lockfile lock = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 512}});
  LockEntry bad;
  bad.params = {{"SOFTMAX_BLOCK", 3}};
  set_entry(lock, "softmax_rows", "src/softmax.cu", "sha256:abc", "sm_75", "Tesla T4", bad);
  EXPECT_FALSE(generate_params_header({softmax_spec()}, &lock, options({"sm_90"})).ok());
}

TEST(HeaderGen, DeviceNameCannotBreakOutOfItsComment) {
  const Lockfile lock =
      lock_with("sm_90", "H200\\\n#define SOFTMAX_VEC 999\n//", {{"SOFTMAX_BLOCK", 512}});
  auto h = generate_params_header({softmax_spec()}, &lock, options({"sm_90"}));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->text.find("\n#define SOFTMAX_VEC 999"), std::string::npos) << h->text;
  EXPECT_EQ(h->text.find("\n//\n"), std::string::npos);
  EXPECT_EQ(h->text.find('\\'), std::string::npos);
}

TEST(HeaderGen, StaleEntryWarnsAndKeepsAllowedValues) {
  const Lockfile lock = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 512}}, "sha256:old");
  auto h = generate_params_header({softmax_spec()}, &lock, options({"sm_90"}));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  ASSERT_EQ(h->warnings.size(), 1u);
  EXPECT_NE(h->warnings[0].find("kernel softmax_rows"), std::string::npos) << h->warnings[0];
  EXPECT_NE(h->warnings[0].find("kernelevo tune src/softmax.cu --kernel softmax_rows"),
            std::string::npos);
  EXPECT_NE(h->text.find("#define SOFTMAX_BLOCK 512"), std::string::npos);
}

TEST(HeaderGen, StaleEntryDropsValuesTheSpecNoLongerLists) {
  const Lockfile lock = lock_with("sm_90", "NVIDIA H200",
                                  {{"SOFTMAX_BLOCK", 2048}, {"SOFTMAX_VEC", 4}}, "sha256:old");
  auto h = generate_params_header({softmax_spec()}, &lock, options({"sm_90"}));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->warnings.size(), 2u);
  EXPECT_EQ(h->text.find("2048"), std::string::npos);
  EXPECT_NE(h->text.find("#define SOFTMAX_VEC 4"), std::string::npos);
}

KernelSpec constrained_spec() {
  KernelSpec spec = softmax_spec();
  spec.constraints.push_back(
      *Expr::parse("SOFTMAX_BLOCK >= 128 * SOFTMAX_VEC", {"src/softmax.cu", 19, 5}));
  return spec;
}

// Values each listed but together excluded by a constraint (a lockfile from a pull request,
// say) were compiled as they came; the build now refuses them, naming the constraint.
TEST(HeaderGen, AnEntryBreakingAConstraintIsRefused) {
  const Lockfile lock =
      lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 256}, {"SOFTMAX_VEC", 4}});
  auto h = generate_params_header({constrained_spec()}, &lock, options({"sm_90"}));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().to_string(),
            "src/softmax.cu:19:5: error: kernelevo.lock.json: kernel softmax_rows, sm_90, device "
            "'NVIDIA H200': SOFTMAX_BLOCK=256, SOFTMAX_VEC=4 break the constraint "
            "\"SOFTMAX_BLOCK >= 128 * SOFTMAX_VEC\"");
  // With the source default for what it leaves out (SOFTMAX_BLOCK 256).
  const Lockfile partial = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_VEC", 4}});
  h = generate_params_header({constrained_spec()}, &partial, options({"sm_90"}));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("SOFTMAX_BLOCK=256, SOFTMAX_VEC=4 break the constraint"),
            std::string::npos)
      << h.error().message;
  const Lockfile fine = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_VEC", 2}});
  EXPECT_TRUE(generate_params_header({constrained_spec()}, &fine, options({"sm_90"})).ok());
}

TEST(HeaderGen, AStaleEntryBreakingAConstraintFallsBackToTheDefaults) {
  const Lockfile lock = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_VEC", 4}}, "sha256:old");
  auto h = generate_params_header({constrained_spec()}, &lock, options({"sm_90"}));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->text.find("#define SOFTMAX_VEC 4"), std::string::npos) << h->text;
  ASSERT_EQ(h->warnings.size(), 2u);
  EXPECT_NE(h->warnings[1].find("break the constraint"), std::string::npos) << h->warnings[1];
  EXPECT_NE(h->warnings[1].find("the source defaults apply"), std::string::npos) << h->warnings[1];
}

TEST(HeaderGen, StaleEntryIsAnErrorWhenStrict) {
  const Lockfile lock = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 512}}, "sha256:old");
  auto o = options({"sm_90"});
  o.strict = true;
  auto h = generate_params_header({softmax_spec()}, &lock, o);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("kernel softmax_rows was tuned on another version"),
            std::string::npos);
  EXPECT_NE(h.error().message.find("kernelevo tune src/softmax.cu --kernel softmax_rows"),
            std::string::npos);
}

TEST(HeaderGen, NoLockfileDefinesNothing) {
  auto h = generate_params_header({softmax_spec()}, nullptr, options({"sm_80", "sm_90"}));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->text.find("#define SOFTMAX"), std::string::npos) << h->text;
  EXPECT_NE(h->text.find("absent: every kernel builds with its source defaults"),
            std::string::npos);
}

TEST(HeaderGen, TwoKernelsOfOneSourceMayNotShareAParameter) {
  KernelSpec other = softmax_spec();
  other.id = "softmax_other";
  auto h = generate_params_header({softmax_spec(), other}, nullptr, options({"sm_90"}));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().to_string().find("src/softmax.cu:16:3"), std::string::npos)
      << h.error().to_string();
}

TEST(CudaArchitectures, ParsesCMakeLists) {
  auto a = parse_cuda_architectures("90;80-real;90a-virtual;80");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, (std::vector<std::string>{"sm_80", "sm_90", "sm_90a"}));
  EXPECT_TRUE(parse_cuda_architectures("native")->empty());
  EXPECT_TRUE(parse_cuda_architectures("all-major")->empty());
  EXPECT_TRUE(parse_cuda_architectures("")->empty());
  EXPECT_FALSE(parse_cuda_architectures("80;banana").ok());
}

TEST(WriteIfChanged, KeepsAnUnchangedFileUntouched) {
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  const std::string path = (dir / "kernelevo" / "params.h").string();
  auto first = write_if_changed(path, "a\n");
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(*first);
  EXPECT_FALSE(*write_if_changed(path, "a\n"));
  EXPECT_TRUE(*write_if_changed(path, "b\n"));
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "b");
}

std::string contents(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(WriteIfChanged, WritesNoFileThroughALinkAndLeavesNoTemporary) {
  namespace fs = std::filesystem;
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  fs::create_directories(dir / "kernelevo");
  std::ofstream(dir / "victim.h") << "victim\n";
  // A link where the old writer put its fixed temporary, and a link as the target itself.
  fs::create_symlink(dir / "victim.h", dir / "kernelevo" / "params.h.tmp");
  fs::create_symlink(dir / "victim.h", dir / "kernelevo" / "params.h");
  auto written = write_if_changed((dir / "kernelevo" / "params.h").string(), "#define X 1\n");
  ASSERT_TRUE(written.ok()) << written.error().to_string();
  EXPECT_TRUE(*written);
  EXPECT_EQ(contents(dir / "victim.h"), "victim\n");
  EXPECT_FALSE(fs::is_symlink(dir / "kernelevo" / "params.h"));
  EXPECT_EQ(contents(dir / "kernelevo" / "params.h"), "#define X 1\n");
  for (const auto& e : fs::directory_iterator(dir / "kernelevo"))
    EXPECT_TRUE(e.path().filename() == "params.h" || e.path().filename() == "params.h.tmp")
        << e.path();
}

TEST(WriteIfChanged, ConcurrentWritersNeverLeaveAPart) {
  namespace fs = std::filesystem;
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  const std::string path = (dir / "params.h").string();
  const std::string a(200000, 'a');
  const std::string b(300000, 'b');
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) ASSERT_TRUE(write_if_changed(path, (i + t) % 2 ? a : b).ok());
    });
  for (auto& w : writers) w.join();
  const std::string last = contents(path);
  EXPECT_TRUE(last == a || last == b) << last.size();
}

}  // namespace
}  // namespace kev

namespace kev {
namespace {

TEST(HeaderGen, ASourceDefaultThatIsAnExpressionIsKeptWhole) {
  Lockfile lock = lock_with("sm_90", "NVIDIA H200", {{"SOFTMAX_BLOCK", 512}, {"SOFTMAX_VEC", 4}});
  HeaderOptions o = options({"sm_80", "sm_90"});
  o.source_text =
      "#ifndef SOFTMAX_BLOCK\n#define SOFTMAX_BLOCK (4 * 32) /* default */\n#endif\n"
      "#ifndef SOFTMAX_VEC\n#define SOFTMAX_VEC \\\n 1\n#endif\n";
  auto h = generate_params_header({softmax_spec()}, &lock, o);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_NE(host_part(h->text).find("return ((4 * 32));  // source default"), std::string::npos)
      << h->text;
}

}  // namespace
}  // namespace kev
