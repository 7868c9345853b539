// The generated dispatchers (io/dispatch_gen.h) against golden files, for a macro-
// parameterised kernel (variant sources with renamed entries) and a template kernel (one
// source, a variant struct per distinct winner). After an intended change:
// KERNELEVO_UPDATE_GOLDEN=1 ./kernelevo_io_tests --gtest_filter='DispatchGen*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/header_gen.h"

namespace kev {
namespace {

const std::string kGolden = std::string(KERNELEVO_FIXTURES) + "/golden/";

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = kGolden + name;
  if (std::getenv("KERNELEVO_UPDATE_GOLDEN") != nullptr) std::ofstream(path) << actual;
  std::ifstream in(path);
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(actual, want.str()) << "golden file " << path;
}

KernelSpec spec_of(const std::string& kernel) {
  KernelSpec spec;
  spec.id = "rows";
  spec.kernel = kernel;
  spec.source = "src/rows.cu";
  spec.where = {"src/rows.cu", 8, 4};
  spec.reference = "rows_naive";
  spec.params.push_back({"BLOCK", {64, 128, 256, 512}, {"src/rows.cu", 12, 3}});
  spec.params.push_back({"VEC", {1, 2, 4}, {"src/rows.cu", 13, 3}});
  DispatchSpec d;
  d.by = "cols";
  d.buckets = {{0, 2048}, {2048, std::nullopt}};
  d.entries = {"rows_launch"};
  spec.dispatch = d;
  return spec;
}

const char* kSource =
    "#ifndef BLOCK\n#define BLOCK 256\n#endif\n#ifndef VEC\n#define VEC 4\n#endif\n";

// sm_90: two buckets; sm_80: one entry for every problem (the second bucket's winner).
Lockfile lock() {
  Lockfile lock;
  set_bucket(lock, "rows", "src/rows.cu", "sha256:abc", "sm_90", "NVIDIA H200", "cols",
             {{0, 2048}, {{"BLOCK", Value(64)}, {"VEC", Value(2)}}, 5.0, 6.0}, "test");
  set_bucket(lock, "rows", "src/rows.cu", "sha256:abc", "sm_90", "NVIDIA H200", "cols",
             {{2048, std::nullopt}, {{"BLOCK", Value(512)}, {"VEC", Value(4)}}, 50.0, 60.0},
             "test");
  LockEntry plain;
  plain.params = {{"BLOCK", Value(512)}, {"VEC", Value(4)}};
  set_entry(lock, "rows", "src/rows.cu", "sha256:abc", "sm_80", "NVIDIA A100", plain);
  return lock;
}

HeaderOptions options(std::vector<std::string> archs) {
  HeaderOptions o;
  o.source_name = "src/rows.cu";
  o.source_text = kSource;
  o.source_hash = "sha256:abc";
  o.lockfile_name = "kernelevo.lock.json";
  o.archs = std::move(archs);
  return o;
}

TEST(DispatchGen, MacroKernelGetsVariantSourcesAndADispatcher) {
  const std::vector<KernelSpec> specs{spec_of("rows")};
  const Lockfile l = lock();
  auto header = generate_params_header(specs, &l, options({"sm_80", "sm_90"}));
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  ASSERT_EQ(header->dispatch.size(), 1u);
  EXPECT_EQ(header->dispatch[0].variants.size(), 2u);  // sm_80 shares sm_90's second winner
  expect_golden("dispatch_macro.params.h", header->text);
  std::string slots;
  for (std::size_t k = 0; k < 3; ++k) {
    auto slot = variant_slot_text(header->dispatch, k, 3, "/build/rows.cu", "src/rows.cu", kSource);
    ASSERT_TRUE(slot.ok()) << slot.error().to_string();
    slots += *slot + "----\n";
  }
  expect_golden("dispatch_macro.slots.txt", slots);
  auto too_few =
      variant_slot_text(header->dispatch, 0, 1, "/build/rows.cu", "src/rows.cu", kSource);
  ASSERT_FALSE(too_few.ok());
  EXPECT_EQ(too_few.error().to_string(),
            "src/rows.cu:8:4: error: src/rows.cu: kernel rows has 2 distinct winners for the "
            "built architectures but the build compiles 1 variants of it; set "
            "KERNELEVO_DISPATCH_SLOTS to 2 or more and reconfigure");
}

TEST(DispatchGen, TemplateKernelGetsOneVariantStructPerWinner) {
  const std::vector<KernelSpec> specs{spec_of("rows_t<BLOCK, VEC>")};
  Lockfile l = lock();
  auto header = generate_params_header(specs, &l, options({"sm_90"}));
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  expect_golden("dispatch_template.params.h", header->text);
  auto slot = variant_slot_text(header->dispatch, 0, 2, "/build/rows.cu", "src/rows.cu", kSource);
  ASSERT_TRUE(slot.ok());
  EXPECT_NE(slot->find("#include \"/build/rows.cu\""), std::string::npos) << *slot;
  EXPECT_EQ(slot->find("#define"), std::string::npos) << *slot;
}

TEST(DispatchGen, WithoutBucketsInTheLockfileOneVariantAsToday) {
  const std::vector<KernelSpec> specs{spec_of("rows")};
  Lockfile plain;
  LockEntry e;
  e.params = {{"BLOCK", Value(128)}};
  set_entry(plain, "rows", "src/rows.cu", "sha256:abc", "sm_90", "G", e);
  auto header = generate_params_header(specs, &plain, options({"sm_90"}));
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  ASSERT_EQ(header->dispatch[0].variants.size(), 1u);
  EXPECT_NE(header->text.find("#define KERNELEVO_VARIANTS_rows(X) X(0)\n"), std::string::npos);
  auto slot = variant_slot_text(header->dispatch, 0, 2, "/b/rows.cu", "src/rows.cu", kSource);
  ASSERT_TRUE(slot.ok());
  EXPECT_NE(slot->find("#define BLOCK 128\n#define VEC (4)\n"), std::string::npos) << *slot;
}

// A second macro kernel of the same source (gemm_sm90.cu marks three), with parameters of its
// own, split by another dimension into three buckets; it shares rows' reference kernel.
KernelSpec cols_spec() {
  KernelSpec spec;
  spec.id = "cols";
  spec.kernel = "cols";
  spec.source = "src/rows.cu";
  spec.where = {"src/rows.cu", 30, 4};
  spec.reference = "rows_naive";
  spec.params.push_back({"CBLOCK", {32, 64, 128}, {"src/rows.cu", 33, 3}});
  DispatchSpec d;
  d.by = "rows";
  d.buckets = {{0, 16}, {16, 256}, {256, std::nullopt}};
  spec.dispatch = d;
  return spec;
}

Lockfile lock_with_cols() {
  Lockfile l = lock();
  const std::vector<std::pair<BucketRange, int>> buckets = {
      {{0, 16}, 32}, {{16, 256}, 64}, {{256, std::nullopt}, 128}};
  for (const auto& [range, block] : buckets)
    set_bucket(l, "cols", "src/rows.cu", "sha256:abc", "sm_90", "NVIDIA H200", "rows",
               {range, {{"CBLOCK", Value(block)}}, 5.0, 6.0}, "test");
  return l;
}

const std::string kTwoSource = std::string(kSource) + "#ifndef CBLOCK\n#define CBLOCK 64\n#endif\n";

TEST(DispatchGen, SeveralMacroKernelsShareTheSlots) {
  const std::vector<KernelSpec> specs{spec_of("rows"), cols_spec()};
  const Lockfile l = lock_with_cols();
  HeaderOptions o = options({"sm_90"});
  o.source_text = kTwoSource;
  auto header = generate_params_header(specs, &l, o);
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  ASSERT_EQ(header->dispatch.size(), 2u);
  EXPECT_EQ(header->dispatch[0].variants.size(), 2u);
  EXPECT_EQ(header->dispatch[1].variants.size(), 3u);
  EXPECT_NE(header->text.find("#define KERNELEVO_VARIANTS_cols(X) X(0) X(1) X(2)\n"),
            std::string::npos);
  // Slot 2 holds cols' third winner and an unused copy of rows' first, both renamed; slot 3
  // is empty. The shared reference is renamed once.
  std::string slots;
  for (std::size_t k = 0; k < 4; ++k) {
    auto slot =
        variant_slot_text(header->dispatch, k, 4, "/build/rows.cu", "src/rows.cu", kTwoSource);
    ASSERT_TRUE(slot.ok()) << slot.error().to_string();
    slots += *slot + "----\n";
  }
  expect_golden("dispatch_two_macro.slots.txt", slots);
  auto too_few =
      variant_slot_text(header->dispatch, 0, 2, "/build/rows.cu", "src/rows.cu", kTwoSource);
  ASSERT_FALSE(too_few.ok());
  EXPECT_NE(too_few.error().message.find("kernel cols has 3 distinct winners"), std::string::npos)
      << too_few.error().message;
}

// `per_problem` buckets: each holds one size, which its winner is compiled with
// (bucket_size_define), so one parameter set winning two of them is two variants.
Lockfile one_size_lock(const std::string& id, const std::string& param, const std::string& by,
                       const std::vector<std::int64_t>& sizes, int value) {
  Lockfile l;
  for (const std::int64_t size : sizes)
    set_bucket(l, id, "src/rows.cu", "sha256:abc", "sm_90", "NVIDIA H200", by,
               {{size, size + 1}, {{param, Value(value)}}, 5.0, 6.0}, "test");
  return l;
}

// Buckets of 1024 and 8192 columns, both won by BLOCK = 64 on sm_90, which sm_80 builds for
// every size.
Lockfile two_sizes_and_a_plain_entry() {
  Lockfile l = one_size_lock("rows", "BLOCK", "cols", {1024, 8192}, 64);
  LockEntry plain;
  plain.params = {{"BLOCK", Value(64)}};
  set_entry(l, "rows", "src/rows.cu", "sha256:abc", "sm_80", "NVIDIA A100", plain);
  return l;
}

TEST(DispatchGen, AOneSizeBucketsWinnerIsCompiledWithItsSize) {
  KernelSpec spec = spec_of("rows");
  spec.dispatch->buckets = {{1024, 1025}, {8192, 8193}};
  const Lockfile l = two_sizes_and_a_plain_entry();
  const std::vector<KernelSpec> specs{spec};  // the plan points into it
  auto header = generate_params_header(specs, &l, options({"sm_80", "sm_90"}));
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  const KernelDispatch& d = header->dispatch[0];
  ASSERT_EQ(d.variants.size(), 3u);  // one parameter set: two sizes, and every size on sm_80
  EXPECT_EQ(d.size_defines[0], "KERNELEVO_SIZE_cols=1024");
  EXPECT_EQ(d.size_defines[1], "KERNELEVO_SIZE_cols=8192");
  EXPECT_EQ(d.size_defines[2], std::nullopt);
  EXPECT_NE(header->text.find("BLOCK=64, VEC=default, compiled with KERNELEVO_SIZE_cols=8192; "
                              "serves sm_90 cols [8192, 8193)"),
            std::string::npos)
      << header->text;
  std::vector<std::string> slots;
  for (std::size_t k = 0; k < 3; ++k) {
    auto slot = variant_slot_text(header->dispatch, k, 3, "/b/rows.cu", "src/rows.cu", kSource);
    ASSERT_TRUE(slot.ok()) << slot.error().to_string();
    slots.push_back(*slot);
  }
  EXPECT_NE(slots[0].find("#define VEC (4)\n#define KERNELEVO_SIZE_cols 1024\n"), std::string::npos)
      << slots[0];
  EXPECT_NE(slots[1].find("#define KERNELEVO_SIZE_cols 8192\n"), std::string::npos) << slots[1];
  EXPECT_EQ(slots[2].find("KERNELEVO_SIZE"), std::string::npos) << slots[2];
}

// A one-size bucket tune found faster without its size define ("sized": false) is built
// without it: the same parameters as the sm_80 entry's, so one variant serves both.
TEST(DispatchGen, AnUnsizedBucketsWinnerIsCompiledWithoutItsSize) {
  KernelSpec spec = spec_of("rows");
  spec.dispatch->buckets = {{1024, 1025}, {8192, 8193}};
  Lockfile l = two_sizes_and_a_plain_entry();
  l.kernels["rows"].targets["sm_90"]["NVIDIA H200"].buckets[1].sized = false;
  const std::vector<KernelSpec> specs{spec};  // the plan points into it
  auto header = generate_params_header(specs, &l, options({"sm_80", "sm_90"}));
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  const KernelDispatch& d = header->dispatch[0];
  ASSERT_EQ(d.variants.size(), 2u);
  EXPECT_EQ(d.size_defines[0], "KERNELEVO_SIZE_cols=1024");
  EXPECT_EQ(d.size_defines[1], std::nullopt);
  auto slot = variant_slot_text(header->dispatch, 1, 2, "/b/rows.cu", "src/rows.cu", kSource);
  ASSERT_TRUE(slot.ok()) << slot.error().to_string();
  EXPECT_EQ(slot->find("KERNELEVO_SIZE"), std::string::npos) << *slot;
}

TEST(DispatchGen, KernelsOfOneSlotThatNeedTwoSizesOfOneNameGetNeither) {
  KernelSpec rows = spec_of("rows");
  rows.dispatch->buckets = {{1024, 1025}};
  KernelSpec cols = cols_spec();
  cols.dispatch->by = "cols";
  cols.dispatch->buckets = {{4096, 4097}};
  Lockfile l = one_size_lock("rows", "BLOCK", "cols", {1024}, 64);
  set_bucket(l, "cols", "src/rows.cu", "sha256:abc", "sm_90", "NVIDIA H200", "cols",
             {{4096, 4097}, {{"CBLOCK", Value(32)}}, 5.0, 6.0}, "test");
  HeaderOptions o = options({"sm_90"});
  o.source_text = kTwoSource;
  const std::vector<KernelSpec> specs{rows, cols};  // the plan points into it
  auto header = generate_params_header(specs, &l, o);
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  auto slot = variant_slot_text(header->dispatch, 0, 1, "/b/rows.cu", "src/rows.cu", kTwoSource);
  ASSERT_TRUE(slot.ok()) << slot.error().to_string();
  EXPECT_EQ(slot->find("#define KERNELEVO_SIZE"), std::string::npos) << *slot;
  EXPECT_NE(slot->find("// KERNELEVO_SIZE_cols: the slot's kernels need different sizes, so it "
                       "is not defined\n"),
            std::string::npos)
      << *slot;
}

// A source compiled per winner holds only macro kernels with dispatch: another kernel would
// be defined (or instantiated) once per slot.
TEST(DispatchGen, AMacroDispatchingSourceMarksOnlyMacroDispatchingKernels) {
  KernelSpec plain = cols_spec();
  plain.dispatch.reset();
  auto header = generate_params_header({spec_of("rows"), plain}, nullptr, options({"sm_90"}));
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().to_string(),
            "src/rows.cu:30:4: error: src/rows.cu: kernel cols has no `dispatch`, but the source "
            "is compiled once per winner of its macro-parameterised kernels with `dispatch`, so "
            "every kernel it marks needs `dispatch` and macro parameters; move cols to a "
            "source of its own");
  KernelSpec templated = cols_spec();
  templated.kernel = "cols_t<CBLOCK>";
  header = generate_params_header({spec_of("rows"), templated}, nullptr, options({"sm_90"}));
  ASSERT_FALSE(header.ok());
  EXPECT_NE(header.error().message.find("kernel cols is a template kernel, but"), std::string::npos)
      << header.error().message;
}

TEST(DispatchGen, BucketValuesOutsideTheSpecAreRefused) {
  const std::vector<KernelSpec> specs{spec_of("rows")};
  Lockfile l = lock();
  l.kernels["rows"].targets["sm_90"]["NVIDIA H200"].buckets[1].params["BLOCK"] = Value(1000);
  auto header = generate_params_header(specs, &l, options({"sm_90"}));
  ASSERT_FALSE(header.ok());
  EXPECT_NE(header.error().message.find("bucket cols [2048, inf)"), std::string::npos)
      << header.error().message;
  EXPECT_NE(header.error().message.find("BLOCK = '1000' is not one of the values"),
            std::string::npos)
      << header.error().message;
}

}  // namespace
}  // namespace kev
