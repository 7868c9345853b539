// `kernelevo evolve` end to end against a hostile model: the real binary, real HTTP on
// loopback (tests/llm/scripted_server.py), the real compilers, and the fake worker in place
// of a GPU. The model's candidates try every include trick and host code; no byte of the
// key, of a .env beside the source or of /etc/passwd may reach the endpoint, the report,
// the output or any file, and no such candidate may be compiled.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "compile_test_support.h"
#include "llm/scripted_server.h"
#include "support/cli_run.h"

namespace kev::cuda {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kKey = "sk-e2e-CANARY-KEY-5d41402abc4b2a76b9719d911017c592";
constexpr const char* kDotEnv = "DOTENV_CANARY_e3b0c44298fc1c14";
constexpr const char* kPasswd = "root:x:0:0";

const char* kKernel =
    "extern \"C\" __global__ void saxpy(const float* x, const float* y, float* out, float a, "
    "int n) {\n  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = fmaf(a, x[i], y[i]);\n}\n";

std::string rewrite(const std::string& before_kernel) {
  return "Here it is:\n```cuda\n" + before_kernel + kKernel + "```\n";
}

json says(const std::string& content) {
  return {{"content", content}, {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 10}}}};
}

TEST(EvolveAgainstAHostileModel, NothingSecretLeavesAndNoTrickIsCompiled) {
  testing::TempDir project;
  const std::string source = project.write(
      "src/saxpy.cu", kev::test_support::read_text(testing::fixture("evolve/saxpy.cu")));
  project.write("src/.env", std::string("OPENAI_API_KEY=") + kDotEnv + "\n");
  project.write(".gitignore", ".env\n");
  ASSERT_EQ(std::system(("git -C " + project.path() + " init -q && git -C " + project.path() +
                         " add .gitignore src/saxpy.cu")
                            .c_str()),
            0);

  const std::string tricks[] = {
      "/**/#include \"/proc/self/environ\"\n",
      "#inc\\ \nlude \".env\"\n",
      "int pad;\r#include \"/etc/passwd\"\n",
      "#include \".env\"\n",
      "/* spanning\n lines */ #include \"../../../../../../etc/passwd\"\n",
      "#if __has_include(<cuda_fp16.h>) && __has_include(\"/proc/self/environ\")\n#endif\n",
      "struct Steal { Steal() { printf(\"%s\", getenv(\"OPENAI_API_KEY\")); } };\nstatic Steal "
      "s;\n",
      "asm(\".incbin \\\"/etc/passwd\\\"\");\n",
      "__attribute__((constructor)) static void early() {}\n",
  };
  json steps = json::array({says("1. use fmaf\n2. keep it simple")});
  for (const auto& trick : tricks) steps.push_back(says(rewrite(trick)));
  steps.push_back(
      says(rewrite("__device__ __forceinline__ float twice(float v) { return 2.f * v; }\n")));
  const int candidates = static_cast<int>(std::size(tricks)) + 1;
  // Generation 2 is shown generation 1's refusals; its first candidate tries again.
  steps.push_back(says("more ideas"));
  steps.push_back(says(rewrite("#include \".env\"\n")));
  for (int i = 1; i < candidates; ++i) steps.push_back(says("No code this time."));

  const fs::path spy = fs::path(project.path()) / "spy.txt";
  // The evolve process itself (not the shell that starts it): its argv begins so.
  ::setenv("KERNELEVO_SPY_CMDLINE", (std::string(KERNELEVO_BINARY) + " evolve").c_str(), 1);
  ::setenv("KERNELEVO_SPY_OUT", spy.c_str(), 1);
  kev::test::ScriptedServer server(steps, fs::path(project.path()) / "server");
  ::unsetenv("KERNELEVO_SPY_CMDLINE");
  ::unsetenv("KERNELEVO_SPY_OUT");
  if (!server.ok()) GTEST_SKIP() << "python3 not available to run the scripted server";

  const std::string env =
      "KERNELEVO_WORKER_WRAPPER=" + kev::test_support::quoted(KERNELEVO_FAKE_WORKER) +
      " KERNELEVO_FAKE_RUN_MS=1 KERNELEVO_LLM_URL=" + server.base_url() +
      " KERNELEVO_LLM_MODEL=hostile";
  // Inherited, so that no command line holds the key.
  ::setenv("KERNELEVO_LLM_API_KEY", kKey, 1);
  const auto run = kev::test_support::run_kernelevo(
      "evolve " + kev::test_support::quoted(source) + " --generations 2 --candidates " +
          std::to_string(candidates) + " --variant-budget 1 --report report.json",
      project.path(), env);
  ::unsetenv("KERNELEVO_LLM_API_KEY");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  // What the endpoint received, and everything written or printed.
  std::vector<std::pair<std::string, std::string>> seen;
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), steps.size()) << run.err;
  for (std::size_t i = 0; i < requests.size(); ++i)
    seen.emplace_back("request " + std::to_string(i), requests[i]);
  seen.emplace_back("stdout", run.out);
  seen.emplace_back("stderr", run.err);
  for (const auto& entry : fs::recursive_directory_iterator(project.path())) {
    const auto p = entry.path();
    if (!entry.is_regular_file() || p.filename() == ".env" || p == spy ||
        p.string().find("/.git/") != std::string::npos)
      continue;
    seen.emplace_back(p.string(), kev::test_support::read_text(p));
  }
  for (const auto& [where, text] : seen)
    for (const char* secret : {kKey, kDotEnv, kPasswd})
      EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in " << where;

  // While it waited for answers, /proc/<pid>/environ of the evolve process held no key.
  const std::string environ_seen = kev::test_support::read_text(spy);
  EXPECT_NE(environ_seen.find("PATH="), std::string::npos) << "the spy saw no process";
  EXPECT_EQ(environ_seen.find(kKey), std::string::npos) << environ_seen;

  // Every trick was refused before compiling; the honest candidate was compiled and run.
  const json report =
      json::parse(kev::test_support::read_text(fs::path(project.path()) / "report.json"));
  const auto& list = report.at("candidates");
  ASSERT_EQ(list.size(), static_cast<std::size_t>(2 * candidates));
  for (std::size_t i = 0; i < std::size(tricks); ++i)
    EXPECT_EQ(list[i].at("status"), "rejected") << tricks[i] << list[i].dump();
  EXPECT_EQ(list[std::size(tricks)].at("status"), "passed") << list[std::size(tricks)].dump();
  EXPECT_EQ(list[candidates].at("status"), "rejected") << list[candidates].dump();
  EXPECT_NE(list[candidates].value("reason", "").find("hidden file"), std::string::npos)
      << list[candidates].dump();
}

}  // namespace
}  // namespace kev::cuda
