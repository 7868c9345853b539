// The Triton compiler's side of its protocol with the Python helper, against fake
// interpreters (canned answers, garbage, too much output, a hang, a failure), and the real
// compile of the templates where an interpreter with triton is at hand (else skipped).
#include "cuda/triton_compiler.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/arg_layout.h"
#include "cuda/auto_compiler.h"
#include "cuda/compile_request.h"
#include "cuda/cubin.h"
#include "cuda/nvrtc_compiler.h"
#include "cuda/worker_protocol.h"
#include "io/spec_loader.h"
#include "support/temp_dir.h"

namespace kev::cuda {
namespace {

namespace fs = std::filesystem;

const std::string kTemplates = std::string(KERNELEVO_SOURCE_DIR) + "/templates";

class FakePython : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path();
    std::ofstream(dir_ / "k.py") << "import triton\n@triton.jit\ndef k(y):\n    pass\n";
  }
  // A "python" that answers --version as Triton 3.6.0 would and runs `compile_body` (sh) for
  // a compile; $4 is the request's path.
  std::string python(const std::string& compile_body) {
    const fs::path p = dir_ / "python";
    std::ofstream(p)
        << "#!/bin/sh\n"
           "if [ \"$4\" = --version ]; then\n"
           "  echo '{\"ok\": true, \"triton_version\": \"3.6.0\", \"python\": \"3\"}'\n"
           "  exit 0\n"
           "fi\n"
        << compile_body << "\n";
    ::chmod(p.c_str(), 0755);
    return p.string();
  }

  // An answer with a real CUBIN (NVRTC's, of a kernel named k) and the given fields.
  std::string answer(const std::string& extra = "") {
    NvrtcCompiler nvrtc;
    CompileRequest r;
    r.source_path = (dir_ / "k.cu").string();
    r.source_text = "extern \"C\" __global__ void k(float* y) { y[0] = 1.f; }\n";
    r.kernel_names = {"k"};
    const CompileOutput out = nvrtc.compile(r);
    EXPECT_TRUE(out.ok) << out.log;
    const fs::path file = dir_ / "answer.json";
    std::ofstream(file) << "{\"ok\": true, \"name\": \"k\", \"cubin\": \""
                        << base64_encode(out.image)
                        << "\", \"shared\": 64, \"num_warps\": 8, \"num_ctas\": 1, "
                           "\"global_scratch_size\": 0, \"profile_scratch_size\": 0, "
                           "\"trailing_pointers\": 2, \"triton_version\": \"3.6.0\""
                        << extra << "}\n";
    return "cat '" + file.string() + "'";
  }

  CompileOutput compile(const std::string& python_path, double timeout = 20.0) {
    TritonOptions o;
    o.python = python_path;
    o.helper = std::string(KERNELEVO_SOURCE_DIR) + "/tool/cuda/triton_compile.py";
    o.timeout_seconds = timeout;
    o.max_stdout_bytes = 1u << 20;
    o.max_stderr_bytes = 1u << 16;
    TritonCompiler triton(o);
    CompileRequest r;
    r.source_path = (dir_ / "k.py").string();
    r.kernel_names = {"k"};
    r.signature = {{"y", "*fp32"}};
    r.defines = {{"num_warps", "8"}};
    return triton.compile(r);
  }

  const kev::test_support::TempDir tmp_;
  fs::path dir_;
};

TEST_F(FakePython, ACannedAnswerBecomesAnImageAndItsLaunch) {
  const CompileOutput out = compile(python(answer()));
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.lowered_names.at("k"), "k");
  EXPECT_EQ(out.launch.block_threads, 256u);
  EXPECT_EQ(out.launch.shared_bytes, 64u);
  EXPECT_EQ(out.launch.trailing_null_pointers, 2u);
  EXPECT_TRUE(read_cubin(out.image).has_value());
}

TEST_F(FakePython, TheRequestCarriesTheConfigurationAndSignature) {
  const CompileOutput out =
      compile(python("cp \"$4\" '" + (dir_ / "seen.json").string() + "'\n" + answer()));
  ASSERT_TRUE(out.ok) << out.log;
  std::ifstream in(dir_ / "seen.json");
  const std::string seen((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(seen.find("\"options\":{\"num_warps\":8}"), std::string::npos) << seen;
  EXPECT_NE(seen.find("\"signature\":[[\"y\",\"*fp32\"]]"), std::string::npos) << seen;
  EXPECT_NE(seen.find("\"arch\":90"), std::string::npos) << seen;
}

TEST_F(FakePython, GarbageOnStdoutIsAFailureNamingFileAndKernel) {
  const CompileOutput out = compile(python("echo 'not json {'; echo 'some noise' >&2"));
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("k.py: error: kernel 'k': the Triton compile (exit code 0) gave no "
                         "readable answer on stdout"),
            std::string::npos)
      << out.log;
  EXPECT_NE(out.log.find("some noise"), std::string::npos);
}

TEST_F(FakePython, TooMuchOutputIsKilled) {
  const CompileOutput out = compile(python("yes xxxxxxxxxxxxxxxx"));
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("wrote more than its output limit"), std::string::npos) << out.log;
}

TEST_F(FakePython, AHangIsStoppedByTheTimeLimit) {
  const auto start = std::chrono::steady_clock::now();
  const CompileOutput out = compile(python("sleep 30"), 1.0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("did not finish within 1 s"), std::string::npos) << out.log;
}

TEST_F(FakePython, ANonZeroExitWithoutAnAnswerIsAFailure) {
  const CompileOutput out = compile(python("echo 'Traceback: boom' >&2; exit 3"));
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("(exit code 3) gave no readable answer"), std::string::npos) << out.log;
  EXPECT_NE(out.log.find("Traceback: boom"), std::string::npos);
}

TEST_F(FakePython, TritonsOwnErrorIsShown) {
  const CompileOutput out =
      compile(python("echo '{\"ok\": false, \"error\": \"CompilationError: at 3:4\"}'; exit 1"));
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("kernel 'k': Triton failed:\nCompilationError: at 3:4"), std::string::npos)
      << out.log;
}

TEST_F(FakePython, AnswersOutOfRangeOrNeedingScratchAreRefused) {
  // A second "num_warps" key: refused as a duplicate before its value (64) is looked at.
  EXPECT_FALSE(compile(python(answer(", \"num_warps\": 64"))).ok);
  (void)answer();
  const std::string file = "'" + (dir_ / "answer.json").string() + "'";
  const CompileOutput scratch =
      compile(python("sed 's/\"global_scratch_size\": 0/\"global_scratch_size\": 128/' " + file));
  EXPECT_FALSE(scratch.ok);
  EXPECT_NE(scratch.log.find("needs Triton's global or profile scratch memory"), std::string::npos)
      << scratch.log;
  const CompileOutput wrong_symbol =
      compile(python("sed 's/\"name\": \"k\"/\"name\": \"q\"/' " + file));
  EXPECT_FALSE(wrong_symbol.ok);
  EXPECT_NE(wrong_symbol.log.find("the CUBIN has no entry 'q'"), std::string::npos);
  const CompileOutput warps =
      compile(python("sed 's/\"num_warps\": 8/\"num_warps\": 64/' " + file));
  EXPECT_FALSE(warps.ok);
  EXPECT_NE(warps.log.find("out of range"), std::string::npos);
  for (const char* ctas : {"3", "16", "32", "0"}) {  // 16: beyond the portable clusters
    const CompileOutput bad =
        compile(python("sed 's/\"num_ctas\": 1/\"num_ctas\": " + std::string(ctas) + "/' " + file));
    EXPECT_FALSE(bad.ok) << ctas;
    EXPECT_NE(bad.log.find("num_ctas a power of two up to 8"), std::string::npos) << bad.log;
  }
}

// The answer comes from a process that imported the kernel's module, model-written code in
// evolve: a launch flag that is not a boolean (which ended the tuner with an uncaught
// type_error) is a refused compile, and a true one is refused as before.
TEST_F(FakePython, LaunchFlagsThatAreNotBooleansAreRefused) {
  for (const char* flag : {"launch_cooperative_grid", "launch_pdl"}) {
    for (const char* value : {"\"yes\"", "1", "[]", "true"}) {
      const CompileOutput out =
          compile(python(answer(", \"" + std::string(flag) + "\": " + value)));
      EXPECT_FALSE(out.ok) << flag << " " << value;
      EXPECT_NE(out.log.find("cooperative or programmatic-dependent launch"), std::string::npos)
          << flag << " " << value << ": " << out.log;
    }
    EXPECT_TRUE(compile(python(answer(", \"" + std::string(flag) + "\": false"))).ok) << flag;
  }
}

TEST_F(FakePython, NumCtasBecomesAClusterOfThatManyCtas) {
  (void)answer();
  const std::string file = "'" + (dir_ / "answer.json").string() + "'";
  const CompileOutput out = compile(python("sed 's/\"num_ctas\": 1/\"num_ctas\": 4/' " + file));
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.launch.cluster_ctas, 4u);
  EXPECT_EQ(compile(python(answer())).launch.cluster_ctas, 1u);
}

TEST_F(FakePython, NoInterpreterSaysTritonIsNotFound) {
  const CompileOutput out = compile((dir_ / "no-such-python").string());
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find(kTritonNotFound), std::string::npos) << out.log;
  TritonOptions o;
  o.python = (dir_ / "no-such-python").string();
  EXPECT_TRUE(TritonCompiler(o).unavailable().has_value());
}

TEST_F(FakePython, AnInterpreterWithoutTritonSaysSo) {
  const fs::path p = dir_ / "python";
  std::ofstream(p)
      << "#!/bin/sh\necho '{\"ok\": false, \"error\": \"no module named triton\"}'\nexit 1\n";
  ::chmod(p.c_str(), 0755);
  TritonOptions o;
  o.python = p.string();
  const auto why = TritonCompiler(o).unavailable();
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(why->rfind(kTritonNotFound, 0), 0u) << *why;
}

// Without a temporary directory Triton is unavailable, and is not run: its cache would have
// gone to /triton-cache.
TEST_F(FakePython, AnUnusableTmpdirMakesTritonUnavailableWithoutRunningIt) {
  const fs::path ran = dir_ / "ran";
  TritonOptions o;
  o.python = python("true");
  o.helper = std::string(KERNELEVO_SOURCE_DIR) + "/tool/cuda/triton_compile.py";
  std::ofstream(o.python) << "#!/bin/sh\ntouch '" << ran.string() << "'\nexit 1\n";
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", (dir_ / "missing").c_str(), 1);
  const auto why = TritonCompiler(o).unavailable();
  if (old != nullptr)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("cannot create a temporary directory"), std::string::npos) << *why;
  EXPECT_FALSE(fs::exists(ran));
}

TEST(AutoCompiler, SendsPythonSourcesToTriton) {
  NvrtcCompiler nvrtc;
  AutoCompiler without(nvrtc, nvrtc);
  CompileRequest r;
  r.source_path = "k.py";
  r.kernel_names = {"k"};
  const CompileOutput out = without.compile(r);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find(kTritonNotFound), std::string::npos);
}

// The interpreter with triton: KERNELEVO_PYTHON, else the repository's .venv-triton.
std::string real_python() {
  if (const char* p = std::getenv("KERNELEVO_PYTHON"); p != nullptr && *p != '\0') return p;
  const std::string venv = std::string(KERNELEVO_SOURCE_DIR) + "/.venv-triton/bin/python";
  return fs::exists(venv) ? venv : "";
}

class RealTriton : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string python = real_python();
    if (python.empty()) GTEST_SKIP() << "no interpreter with triton (set KERNELEVO_PYTHON)";
    TritonOptions o;
    o.python = python;
    o.helper = std::string(KERNELEVO_SOURCE_DIR) + "/tool/cuda/triton_compile.py";
    triton_ = std::make_unique<TritonCompiler>(o);
    if (auto why = triton_->unavailable()) GTEST_SKIP() << *why;
  }
  std::unique_ptr<TritonCompiler> triton_;
};

TEST_F(RealTriton, CompilesEachTemplateToACubinWithoutAGpu) {
  const SpecLoad load =
      load_specs({kTemplates + "/softmax_triton.py", kTemplates + "/rmsnorm_triton.py"});
  ASSERT_TRUE(load.errors.empty());
  ASSERT_EQ(load.specs.size(), 2u);
  for (const KernelSpec& spec : load.specs) {
    ParamSet params{{"BLOCK", Value(2048)}, {"num_warps", Value(8)}, {"num_stages", Value(2)}};
    const CompileRequest r = compile_request_for(spec, "", params, "sm_90", true);
    ASSERT_EQ(r.signature.size(), spec.args.size());
    const CompileOutput out = triton_->compile(r);
    ASSERT_TRUE(out.ok) << out.log;
    EXPECT_EQ(out.launch.block_threads, 256u);
    EXPECT_EQ(out.launch.trailing_null_pointers, 2u);  // Triton 3.6: global and profile scratch
    const auto info = read_cubin(out.image);
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(out.lowered_names.at(spec.kernel), spec.kernel);
    EXPECT_NE(std::find(info->kernels.begin(), info->kernels.end(), spec.kernel),
              info->kernels.end());
  }
}

TEST_F(RealTriton, ABrokenKernelFailsWithTritonsMessage) {
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  fs::create_directories(dir);
  std::ofstream(dir / "bad.py") << "import triton\nimport triton.language as tl\n\n"
                                   "@triton.jit\ndef bad(y, B: tl.constexpr):\n"
                                   "    tl.store(y + tl.arange(0, B), undefined_name)\n";
  CompileRequest r;
  r.source_path = (dir / "bad.py").string();
  r.kernel_names = {"bad"};
  r.signature = {{"y", "*fp32"}};
  r.defines = {{"B", "128"}};
  const CompileOutput out = triton_->compile(r);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("bad.py: error: kernel 'bad': Triton failed"), std::string::npos)
      << out.log;
  EXPECT_NE(out.log.find("undefined_name"), std::string::npos) << out.log;
}

}  // namespace
}  // namespace kev::cuda
