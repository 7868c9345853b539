#include "cuda/compile_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "compile_test_support.h"
#include "cuda/files.h"
#include "cuda/nvrtc_compiler.h"
#include "support/fakes.h"

namespace kev::cuda {
namespace {

using kev::testing::FakeCompiler;
using testing::TempDir;

class CompileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("inc/dep.h", "#define A 1\n");
    request_.source_path = dir_.file("k.cu");
    request_.source_text = "kernel text";
    request_.kernel_names = {"k"};
    request_.defines = {{"BLOCK", "256"}};
    request_.include_dirs = {dir_.file("inc")};
  }
  TempDir dir_;
  FakeCompiler inner_;
  CompileRequest request_;
  [[nodiscard]] CompileCache cache() const { return CompileCache(dir_.file("cache")); }
};

TEST_F(CompileCacheTest, SecondCompileIsAHit) {
  CachingCompiler compiler(inner_, cache());
  const auto first = compiler.compile(request_);
  const auto second = compiler.compile(request_);
  ASSERT_TRUE(first.ok && second.ok);
  EXPECT_EQ(inner_.calls, 1);
  EXPECT_FALSE(first.cached);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(second.image, first.image);
  EXPECT_EQ(second.lowered_names, first.lowered_names);
  EXPECT_EQ(second.log, first.log);
  EXPECT_EQ(second.dependencies, first.dependencies);
}

TEST_F(CompileCacheTest, TheCompilersLaunchIsCachedWithTheImage) {
  inner_.launch.block_threads = 256;
  inner_.launch.shared_bytes = 9000;
  inner_.launch.trailing_null_pointers = 2;
  inner_.launch.cluster_ctas = 2;
  CachingCompiler compiler(inner_, cache());
  (void)compiler.compile(request_);
  const auto hit = compiler.compile(request_);
  ASSERT_TRUE(hit.cached);
  EXPECT_EQ(hit.launch.block_threads, 256u);
  EXPECT_EQ(hit.launch.shared_bytes, 9000u);
  EXPECT_EQ(hit.launch.trailing_null_pointers, 2u);
  EXPECT_EQ(hit.launch.cluster_ctas, 2u);
}

TEST_F(CompileCacheTest, SurvivesANewProcess) {
  {
    CachingCompiler compiler(inner_, cache());
    (void)compiler.compile(request_);
  }
  FakeCompiler other;
  CachingCompiler compiler(other, cache());
  EXPECT_TRUE(compiler.compile(request_).cached);
  EXPECT_EQ(other.calls, 0);
}

TEST_F(CompileCacheTest, ADefineChangeIsAMiss) {
  CachingCompiler compiler(inner_, cache());
  (void)compiler.compile(request_);
  request_.defines = {{"BLOCK", "512"}};
  const auto out = compiler.compile(request_);
  EXPECT_FALSE(out.cached);
  EXPECT_EQ(inner_.calls, 2);
  EXPECT_EQ(out.image, "IMAGE:kernel text;BLOCK=512");
}

TEST_F(CompileCacheTest, EveryKeyInputMatters) {
  const auto base = CompileCache::key(request_, "nvrtc 13.0");
  ASSERT_TRUE(base.has_value());
  auto changed = [&](auto mutate, const std::string& identity = "nvrtc 13.0") {
    CompileRequest r = request_;
    mutate(r);
    return CompileCache::key(r, identity) != base;
  };
  EXPECT_TRUE(changed([](CompileRequest&) {}, "nvrtc 13.1"));
  EXPECT_TRUE(changed([](CompileRequest& r) { r.arch = "sm_80"; }));
  EXPECT_TRUE(changed([](CompileRequest& r) { r.source_text += " "; }));
  EXPECT_TRUE(changed([](CompileRequest& r) { r.flags.push_back("-lineinfo"); }));
  EXPECT_TRUE(changed([](CompileRequest& r) { r.include_dirs.push_back("/x"); }));
  EXPECT_TRUE(changed([](CompileRequest& r) { r.kernel_names.push_back("k2"); }));
  EXPECT_TRUE(changed([](CompileRequest& r) { r.defines.emplace_back("EXTRA", ""); }));
  EXPECT_TRUE(changed([](CompileRequest& r) { r.source_path += "x"; }));
  EXPECT_TRUE(changed([](CompileRequest& r) { r.host_code = true; }));
  // Field boundaries count: "BLOCK"="256" is not "BLOCK2"="56".
  EXPECT_TRUE(changed([](CompileRequest& r) { r.defines = {{"BLOCK2", "56"}}; }));
  EXPECT_FALSE(changed([](CompileRequest&) {}));
}

TEST_F(CompileCacheTest, AHeaderChangeIsAMiss) {
  CachingCompiler compiler(inner_, cache());
  (void)compiler.compile(request_);
  dir_.write("inc/dep.h", "#define A 2\n");
  EXPECT_FALSE(compiler.compile(request_).cached);
  EXPECT_EQ(inner_.calls, 2);
  // ...and the new header content is what the entry now records.
  EXPECT_TRUE(compiler.compile(request_).cached);
  EXPECT_EQ(inner_.calls, 2);
}

TEST_F(CompileCacheTest, ADeletedHeaderIsAMiss) {
  CachingCompiler compiler(inner_, cache());
  (void)compiler.compile(request_);
  std::filesystem::remove(dir_.file("inc/dep.h"));
  EXPECT_FALSE(compiler.compile(request_).cached);
}

TEST_F(CompileCacheTest, ACorruptEntryIsIgnoredAndReplaced) {
  CachingCompiler compiler(inner_, cache());
  const auto first = compiler.compile(request_);
  const auto key = CompileCache::key(request_, inner_.identity());
  ASSERT_TRUE(key.has_value());
  const auto path = cache().entry_path(*key);
  auto entry = read_whole_file(path);
  ASSERT_TRUE(entry.has_value());
  // Flip one byte of the image.
  const auto at = entry->find("IMAGE:");
  ASSERT_NE(at, std::string::npos);
  (*entry)[at] = 'J';
  std::ofstream(path, std::ios::binary | std::ios::trunc) << *entry;
  const auto second = compiler.compile(request_);
  EXPECT_FALSE(second.cached);
  EXPECT_EQ(second.image, first.image);
  // Truncated and empty entries too.
  for (const std::string& damaged : {entry->substr(0, entry->size() / 2), std::string{}}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
    EXPECT_FALSE(compiler.compile(request_).cached);
    EXPECT_TRUE(compiler.compile(request_).cached);  // rewritten
  }
}

TEST_F(CompileCacheTest, FailedCompilesAreNotCached) {
  inner_.fail = true;
  CachingCompiler compiler(inner_, cache());
  EXPECT_FALSE(compiler.compile(request_).ok);
  EXPECT_FALSE(compiler.compile(request_).ok);
  EXPECT_EQ(inner_.calls, 2);
}

TEST_F(CompileCacheTest, AnUnwritableDirectoryOnlyCostsTheCaching) {
  dir_.write("not_a_dir", "file");
  CachingCompiler compiler(inner_, CompileCache(dir_.file("not_a_dir/cache")));
  EXPECT_TRUE(compiler.compile(request_).ok);
  EXPECT_TRUE(compiler.compile(request_).ok);
  EXPECT_EQ(inner_.calls, 2);
}

TEST(CompileCacheDefaults, FollowTheEnvironment) {
  ::setenv("KERNELEVO_CACHE_DIR", "/somewhere/cache", 1);
  EXPECT_EQ(CompileCache::default_directory(), "/somewhere/cache");
  ::unsetenv("KERNELEVO_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(CompileCache::default_directory(), "/xdg/kernelevo");
  ::unsetenv("XDG_CACHE_HOME");
}

// With the real compiler: the headers NVRTC read are found and a change in one is a miss.
TEST(CompileCacheNvrtc, HeaderChangeIsAMissWithARealCompiler) {
  TempDir dir;
  dir.write("inc/value.cuh", "#define VALUE 1.0f\n");
  const auto source = dir.write(
      "k.cu",
      "#include \"value.cuh\"\nextern \"C\" __global__ void k(float* x) { x[0] = VALUE; }\n");
  CompileRequest request;
  request.source_path = source;
  request.kernel_names = {"k"};
  request.include_dirs = {dir.file("inc")};
  NvrtcCompiler nvrtc;
  CachingCompiler compiler(nvrtc, CompileCache(dir.file("cache")));
  const auto first = compiler.compile(request);
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_TRUE(compiler.compile(request).cached);
  dir.write("inc/value.cuh", "#define VALUE 2.0f\n");
  const auto changed = compiler.compile(request);
  ASSERT_TRUE(changed.ok) << changed.log;
  EXPECT_FALSE(changed.cached);
  EXPECT_NE(changed.image, first.image);
}

}  // namespace
}  // namespace kev::cuda
