#include "cuda/toolkit.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "cuda/compile_test_support.h"

namespace kev::cuda {
namespace {
using testing::TempDir;

// Sets an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

bool has_runtime_header(const std::string& dir) {
  return std::filesystem::exists(std::filesystem::path(dir) / "cuda_runtime.h");
}

TEST(Toolkit, TheIncludeDirectoryHoldsTheRuntimeHeaders) {
  EXPECT_TRUE(has_runtime_header(toolkit_include_dir())) << toolkit_include_dir();
}

// CI machines put a wrapper script `exec /opt/cuda/bin/nvcc "$@"` in /usr/local/bin, so
// the directory beside nvcc is not the toolkit's; nvcc itself knows where its toolkit is.
TEST(Toolkit, AWrapperNvccElsewhereStillLeadsToTheToolkitsHeaders) {
  const std::string real = toolkit_include_dir();
  if (!has_runtime_header(real)) GTEST_SKIP() << "no toolkit headers";
  TempDir dir;
  const std::string wrapper =
      dir.write("bin/nvcc", "#!/bin/sh\nexec '" + nvcc_path() + "' \"$@\"\n");
  ASSERT_EQ(::chmod(wrapper.c_str(), 0755), 0);
  ScopedEnv env("KERNELEVO_NVCC", wrapper);
  const std::string found = toolkit_include_dir();
  EXPECT_TRUE(has_runtime_header(found)) << found;
  EXPECT_EQ(std::filesystem::weakly_canonical(found), std::filesystem::weakly_canonical(real));
}

TEST(Toolkit, AnNvccThatDoesNotAnswerFallsBackToTheDirectoryBesideIt) {
  TempDir dir;
  const std::string fake = dir.write("cuda/bin/nvcc", "#!/bin/sh\nexit 1\n");
  ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
  ScopedEnv env("KERNELEVO_NVCC", fake);
  EXPECT_EQ(std::filesystem::path(toolkit_include_dir()),
            std::filesystem::path(dir.path()) / "cuda/include");
}

}  // namespace
}  // namespace kev::cuda
