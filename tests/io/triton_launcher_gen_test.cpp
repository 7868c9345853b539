// The C++ a build links for a Triton kernel compiled ahead of time: its images, and with the
// spec's `dispatch` the image of each bucket, picked by the size argument at launch.
#include "io/triton_launcher_gen.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/spec_loader.h"
#include "support/temp_dir.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

const char* kSource =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "# @kernelevo\n"
    "# params:\n"
    "#   BLOCK: [256, 1024]\n"
    "#   num_warps: [4, 8]\n"
    "# problems: [{n: 4096}, {n: 65536}]\n"
    "# args:\n"
    "#   - {name: x, type: \"const float*\", count: n}\n"
    "#   - {name: y, type: \"float*\", count: n, output: true}\n"
    "#   - {name: n, type: int, value: n}\n"
    "# launch: {grid: [\"ceil_div(n, BLOCK)\"]}\n"
    "# dispatch: {by: [n], buckets: [[0, 16384], [16384, null]]}\n"
    "@triton.jit\n"
    "def copy(x, y, n, BLOCK: tl.constexpr):\n"
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)\n";

class TritonLauncherGen : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path();
    std::ofstream(dir_ / "k.py") << kSource;
    load_ = load_specs({(dir_ / "k.py").string()});
    ASSERT_TRUE(load_.errors.empty()) << load_.errors.front().to_string();
    ASSERT_EQ(load_.specs.size(), 1u);
  }

  static TritonBuiltImage image(const std::string& arch, const std::string& bytes, int block,
                                std::optional<BucketRange> range) {
    TritonBuiltImage im;
    im.arch = arch;
    im.image = bytes;
    im.function = "copy";
    im.params = {{"BLOCK", Value(block)}, {"num_warps", Value(4)}};
    im.range = range;
    return im;
  }

  const kev::test_support::TempDir tmp_;
  fs::path dir_;
  SpecLoad load_;
};

TEST_F(TritonLauncherGen, OneImagePerArchitectureWithoutBuckets) {
  const auto part = generate_triton_launcher(
      load_.specs[0], {image("sm_80", "AB", 256, std::nullopt), image("sm_90", "CD", 1024, {})});
  ASSERT_TRUE(part.ok()) << part.error().to_string();
  EXPECT_NE(
      part->source.find("{80, kImage0, \"copy\", 128u, 0u, 1u, \"BLOCK=256 num_warps=4 (sm_80)\", "
                        "false, 0LL, 0LL, false},"),
      std::string::npos)
      << part->source;
  EXPECT_NE(
      part->source.find("{90, kImage1, \"copy\", 128u, 0u, 1u, \"BLOCK=1024 num_warps=4 (sm_90)\", "
                        "false, 0LL, 0LL, false},"),
      std::string::npos);
  EXPECT_NE(part->source.find("CUresult r = load(0, &f, &image);"), std::string::npos);
}

TEST_F(TritonLauncherGen, ABucketsImageIsPickedByTheSizeArgument) {
  const BucketRange small{0, 16384}, large{16384, std::nullopt};
  // sm_80 has one winner for every size; sm_90 one per bucket.
  const auto part = generate_triton_launcher(
      load_.specs[0], {image("sm_80", "AB", 256, std::nullopt), image("sm_90", "CD", 256, small),
                       image("sm_90", "EF", 1024, large)});
  ASSERT_TRUE(part.ok()) << part.error().to_string();
  const std::string& s = part->source;
  const std::string both =
      "\"n [0, 16384): BLOCK=256 num_warps=4; n [16384, inf): BLOCK=1024 "
      "num_warps=4 (sm_90)\"";
  EXPECT_NE(
      s.find("{90, kImage1, \"copy\", 128u, 0u, 1u, " + both + ", true, 0LL, 16384LL, true},"),
      std::string::npos)
      << s;
  EXPECT_NE(
      s.find("{90, kImage2, \"copy\", 128u, 0u, 1u, " + both + ", true, 16384LL, 0LL, false},"),
      std::string::npos);
  EXPECT_NE(s.find("CUresult r = load(static_cast<long long>(n), &f, &image);"), std::string::npos);
  // The grid uses BLOCK, which differs per bucket: it is read off the image picked.
  EXPECT_NE(s.find("if (image == &kImages[2]) P_BLOCK = 1024;"), std::string::npos);
  EXPECT_NE(part->header.find("e.g. \"BLOCK=256 num_warps=4 (sm_80)\""), std::string::npos)
      << part->header;
}

TEST_F(TritonLauncherGen, BucketsWithTheSameWinnerShareOneImage) {
  const auto part = generate_triton_launcher(
      load_.specs[0], {image("sm_90", "CD", 256, BucketRange{0, 16384}),
                       image("sm_90", "CD", 256, BucketRange{16384, std::nullopt})});
  ASSERT_TRUE(part.ok()) << part.error().to_string();
  EXPECT_NE(part->source.find("const unsigned char kImage0["), std::string::npos);
  EXPECT_EQ(part->source.find("const unsigned char kImage1["), std::string::npos);
  EXPECT_NE(part->source.find("true, 16384LL, 0LL, false},"), std::string::npos);
}

TEST_F(TritonLauncherGen, NumCtasLaunchesClustersOfThatManyCtas) {
  TritonBuiltImage clustered = image("sm_90", "CD", 1024, std::nullopt);
  clustered.cluster_ctas = 2;
  const auto part = generate_triton_launcher(load_.specs[0], {clustered});
  ASSERT_TRUE(part.ok()) << part.error().to_string();
  const std::string& s = part->source;
  EXPECT_NE(s.find("{90, kImage0, \"copy\", 128u, 0u, 2u, "), std::string::npos) << s;
  EXPECT_NE(s.find("attrs[0].value.clusterDim.x = image->cluster;"), std::string::npos);
  EXPECT_NE(s.find("config.gridDimX = static_cast<unsigned>(gx) * image->cluster;"),
            std::string::npos);
  EXPECT_NE(s.find("return cuLaunchKernelEx(&config, f, params, nullptr);"), std::string::npos);
}

// A grid past the driver's limits is refused on every path: without clusters the casts to
// unsigned would otherwise wrap an x of 2^32 + 1 programs into a launch of one.
TEST_F(TritonLauncherGen, EveryLaunchChecksTheGridAgainstTheDriversLimits) {
  const auto part =
      generate_triton_launcher(load_.specs[0], {image("sm_90", "CD", 256, std::nullopt)});
  ASSERT_TRUE(part.ok()) << part.error().to_string();
  const std::string& s = part->source;
  const auto check = s.find("if (gx > 0x7fffffffLL / image->cluster || gy > 65535 || gz > 65535)");
  ASSERT_NE(check, std::string::npos) << s;
  EXPECT_LT(check, s.find("if (image->cluster > 1) {"));
  EXPECT_LT(check, s.find("return cuLaunchKernel(f,"));
}

TEST_F(TritonLauncherGen, BucketsNeedTheSizeAsAnArgument) {
  KernelSpec spec = load_.specs[0];
  spec.dispatch->by = "rows";
  const auto part =
      generate_triton_launcher(spec, {image("sm_90", "CD", 256, BucketRange{0, 16384})});
  ASSERT_FALSE(part.ok());
  EXPECT_NE(part.error().message.find("a winner per bucket of 'rows', which no scalar argument "
                                      "carries"),
            std::string::npos)
      << part.error().message;
}

TEST_F(TritonLauncherGen, AGridOfSmCountIsRefusedByName) {
  KernelSpec spec = load_.specs[0];
  auto grid = Expr::parse("min(rows, sm_count)", SourceLocation{"k.py", 12, 9});
  ASSERT_TRUE(grid.ok());
  spec.launch.grid = {std::move(grid).value()};
  const auto part = generate_triton_launcher(spec, {image("sm_90", "CD", 256, std::nullopt)});
  ASSERT_FALSE(part.ok());
  EXPECT_EQ(part.error().message,
            "the launch grid of kernel " + spec.id +
                " uses sm_count (the device's multiprocessor count), which Triton kernels' "
                "launchers do not evaluate yet");
  EXPECT_EQ(part.error().where.line, 12);
}

}  // namespace
}  // namespace kev
