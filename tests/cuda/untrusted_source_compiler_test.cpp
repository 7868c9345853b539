// Model-written source on the real file system: which files the compiler may read (a git
// repository made here), and the nvcc -M audit in front of every compile.
#include "cuda/untrusted_source_compiler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "compile_test_support.h"
#include "cuda/include_policy.h"
#include "cuda/toolkit.h"
#include "io/subprocess.h"
#include "support/fakes.h"

namespace kev::cuda {
namespace {

using kev::testing::FakeCompiler;
using testing::TempDir;

constexpr const char* kCanary = "CANARY_7f3a91_DOT_ENV";

// A project: src/kernel.cu (tracked), src/vec.cuh (tracked), src/new.cuh (untracked, not
// ignored), src/gen.h (ignored), src/.env (ignored), and a file outside the project.
class Project : public ::testing::Test {
 protected:
  TempDir dir;
  TempDir outside;
  std::string kernel;
  void SetUp() override {
    kernel = dir.write("src/kernel.cu",
                       "#include \"vec.cuh\"\n"
                       "extern \"C\" __global__ void k(float* y) { y[0] = kVec; }\n");
    dir.write("src/vec.cuh", "constexpr float kVec = 4.f;\n");
    dir.write("src/new.cuh", "constexpr float kNew = 2.f;\n");
    dir.write("src/gen.h", "constexpr float kGen = 1.f;\n");
    dir.write("src/.env", std::string("OPENAI_API_KEY=") + kCanary + "\n");
    dir.write(".gitignore", "gen.h\n.env\n");
    outside.write("secret.h", std::string("// ") + kCanary + "\n");
    const std::string git = "git -C " + dir.path();
    ASSERT_EQ(
        std::system(
            (git + " init -q && " + git + " add .gitignore src/kernel.cu src/vec.cuh").c_str()),
        0);
  }
  ProjectIncludePolicy policy(std::vector<std::string> original_reads = {}) const {
    IncludePolicyOptions o;
    o.source = kernel;
    o.original_reads = std::move(original_reads);
    return ProjectIncludePolicy(o);
  }
};

TEST_F(Project, TrackedAndUnignoredFilesToolkitAndSystemHeadersAreAllowed) {
  const auto p = policy();
  ASSERT_FALSE(p.project_root().empty());
  EXPECT_EQ(p.check_include("vec.cuh", false), "");
  EXPECT_EQ(p.check_include("new.cuh", false), "");
  EXPECT_EQ(p.check_include("cuda_fp16.h", true), "");  // found in no project folder
  EXPECT_EQ(p.check_file(toolkit_include_dir() + "/cuda_fp16.h"), "");
  EXPECT_EQ(p.check_file("/usr/include/stdio.h"), "");
}

TEST_F(Project, IgnoredHiddenAndOutsideFilesAreRefused) {
  const auto p = policy();
  EXPECT_NE(p.check_include(".env", false), "");
  EXPECT_NE(p.check_include("gen.h", false), "");
  EXPECT_NE(p.check_file(dir.file("src/.env")), "");
  EXPECT_NE(p.check_file(dir.file(".git/config")), "");
  EXPECT_NE(p.check_file(outside.file("secret.h")), "");
  EXPECT_NE(p.check_file("/etc/passwd"), "");
  EXPECT_NE(p.check_file("/proc/self/environ"), "");
  // A tracked symlink to a file outside is judged by where it leads.
  ASSERT_EQ(::symlink(outside.file("secret.h").c_str(), dir.file("src/link.cuh").c_str()), 0);
  ASSERT_EQ(std::system(("git -C " + dir.path() + " add src/link.cuh").c_str()), 0);
  EXPECT_NE(policy().check_include("link.cuh", false), "");
  // What the original reads stays allowed, ignored or not.
  EXPECT_EQ(policy({dir.file("src/gen.h")}).check_include("gen.h", false), "");
}

TEST(ProjectIncludePolicy, WithoutARepositoryOnlyTheOriginalsReadsAndSystemHeaders) {
  TempDir dir;
  const std::string k = dir.write("k.cu", "extern \"C\" __global__ void k() {}\n");
  dir.write("h.cuh", "\n");
  IncludePolicyOptions o;
  o.source = k;
  ProjectIncludePolicy p(o);
  EXPECT_TRUE(p.project_root().empty());
  EXPECT_NE(p.check_include("h.cuh", false), "");
  EXPECT_EQ(p.check_file("/usr/include/stdio.h"), "");
}

TEST_F(Project, TheAuditStopsACompileThatWouldReadAFileThePolicyRefuses) {
  NvccCompiler nvcc;
  const auto p = policy();
  FakeCompiler inner;
  UntrustedSourceCompiler compiler(nvcc, inner, p);
  const auto request = [&](const std::string& text) {
    CompileRequest r;
    r.source_path = kernel;
    r.source_text = text;
    r.kernel_names = {"k"};
    r.arch = "sm_90";
    return r;
  };
  // Spellings the lexical rules miss would still be seen by the compiler: the audit asks it.
  for (const std::string& text :
       {std::string("#include \"vec.cuh\"\n#include \".env\"\n"),
        std::string("#include \"vec.cuh\"\n#ifdef __CUDA_ARCH__\n#include \"gen.h\"\n#endif\n"),
        "#include \"vec.cuh\"\n#include \"" + outside.file("secret.h") + "\"\n"}) {
    const auto out =
        compiler.compile(request(text + "extern \"C\" __global__ void k(float* y) {}\n"));
    EXPECT_FALSE(out.ok) << text;
    EXPECT_NE(out.log.find("refused before compiling: it makes the compiler read"),
              std::string::npos)
        << out.log;
    EXPECT_EQ(out.log.find(kCanary), std::string::npos) << out.log;
  }
  EXPECT_EQ(inner.calls, 0);
  // A failed preprocessor shows nothing it printed.
  const auto broken =
      compiler.compile(request("#include \"no_such.h\"\n#error " + std::string(kCanary) + "\n"));
  EXPECT_FALSE(broken.ok);
  EXPECT_EQ(broken.log.find(kCanary), std::string::npos) << broken.log;
  EXPECT_EQ(inner.calls, 0);
  // What the policy allows is compiled.
  const auto fine = compiler.compile(
      request("#include \"vec.cuh\"\n#include \"new.cuh\"\n#include <cuda_fp16.h>\n"
              "extern \"C\" __global__ void k(float* y) { y[0] = kVec + kNew; }\n"));
  EXPECT_TRUE(fine.ok) << fine.log;
  EXPECT_EQ(inner.calls, 1);
}

}  // namespace
}  // namespace kev::cuda
