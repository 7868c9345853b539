// The whole evolve path without a GPU: the scripted OpenAI-compatible server (real HTTP on
// loopback) answers in turn with a faster variant, one that does not compile, a cheating
// one, prose, a /proc/self/environ include, a 429 then success, and a timeout. A fake GPU
// evaluator stands in for compile + verify + time (the real verifier is tested with
// planted cheating kernels on the GPU). Checks what the loop does with each answer, that
// the key reaches no prompt and no file, and that only the verified faster variant lands.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "core/candidate_builder.h"
#include "core/evolve.h"
#include "core/response_parser.h"
#include "io/hash.h"
#include "io/lockfile_json.h"
#include "io/spec_loader.h"
#include "llm/chat_client.h"
#include "llm/evolve_output.h"
#include "llm/prompts.h"
#include "scripted_server.h"
#include "support/temp_dir.h"

namespace kev::llm {
namespace {

using nlohmann::json;

constexpr const char* kKey = "sk-live-TOPSECRET-9f8e7d6c5b4a";

std::string fixture(const std::string& name) {
  return test::read_text(std::string(KERNELEVO_FIXTURES) + "/" + name);
}

json say(const std::string& content) {
  return {{"content", content}, {"usage", {{"prompt_tokens", 1000}, {"completion_tokens", 200}}}};
}

const std::string kFast = R"(Vectorised with float4 and a scalar tail:
```cuda
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, float a, int n) {
  const int stride = gridDim.x * blockDim.x;
  const int n4 = n / 4;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 xv = reinterpret_cast<const float4*>(x)[i];
    const float4 yv = reinterpret_cast<const float4*>(y)[i];
    reinterpret_cast<float4*>(out)[i] =
        make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);
  }
  for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = a * x[i] + y[i];
}
```
)";
const std::string kBroken =
    "```cuda\nextern \"C\" __global__ void saxpy(const float* x, const "
    "float* y, float* out, float a, int n) {\n  float4 v = ;\n}\n```\n";
const std::string kCheat = R"(```cuda
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, float a, int n) {
  __shared__ int skip;
  static __device__ int launches = 0;
  if (threadIdx.x == 0) skip = atomicAdd(&launches, 1) > 0;
  __syncthreads();
  if (skip) return;  // the output is already there from the first launch
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
```)";
const std::string kProse =
    "You should vectorise the loads with float4 and use a grid-stride "
    "loop. This will improve memory throughput considerably.";
const std::string kEnviron =
    "```cuda\n#include \"/proc/self/environ\"\n" + kFast.substr(kFast.find("extern"));
const std::string kFma = R"(```cuda
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaf(a, x[i], y[i]);
}
```)";

class FakeGpu : public VariantEvaluator {
 public:
  std::vector<std::string> seen;
  VariantMeasurement evaluate(const std::string& source) override {
    seen.push_back(source);
    VariantMeasurement m;
    m.params = {{"SAXPY_BLOCK", Value(256)}};
    if (source.find("float4 v = ;") != std::string::npos) {
      m.outcome.disposition = Disposition::compile_failed;
      m.outcome.detail = "saxpy.cu(41): error: expected an expression";
    } else if (source.find("launches") != std::string::npos) {
      m.outcome.disposition = Disposition::incorrect;
      m.outcome.detail = "verification after timing: output 0 still holds the poison value";
    } else if (source.find("float4") != std::string::npos) {
      m.outcome = {Disposition::passed, 41.0, 40.5, 41.5, {}, "", std::nullopt};
    } else if (source.find("fmaf") != std::string::npos) {
      m.outcome = {Disposition::passed, 99.0, 98.0, 100.0, {}, "", std::nullopt};
    } else {
      m.outcome = {Disposition::passed, 100.0, 99.5, 100.5, {}, "", std::nullopt};
    }
    return m;
  }
};

std::string all_text_under(const std::filesystem::path& dir) {
  std::string all;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) all += test::read_text(e.path());
  return all;
}

TEST(EvolveScripted, EachAnswerMeetsItsFateAndOnlyTheVerifiedFasterVariantLands) {
  const json script = json::array({
      say("1. float4 loads\n2. fused multiply-add\n3. grid-stride loop\n4. streaming stores"),
      say(kFast),
      say(kBroken),
      say(kCheat),
      say(kProse),
      say("1. keep float4 and add __ldg\n2. two elements per thread\n3. fmaf\n4. unroll"),
      say(kEnviron),
      {{"status", 429}, {"headers", {{"Retry-After", "1"}}}},
      say(kFma),
      {{"delay", 4}, {"content", "too late"}},
      say(kProse),
  });
  const test_support::TempDir temp;
  const std::filesystem::path dir = temp.path();
  test::ScriptedServer server(script, dir / "server");
  if (!server.ok()) GTEST_SKIP() << "python3 not available to run the scripted server";
  setenv("KERNELEVO_LLM_API_KEY", kKey, 1);  // as a user would have it

  ChatConfig config;
  config.base_url = server.base_url();
  config.model = "scripted";
  config.timeout_s = 1.5;
  config.initial_backoff_s = 0.05;
  auto client = ChatClient::create(config, take_api_key_from_environment());
  ASSERT_TRUE(client.ok());
  ASSERT_EQ(std::getenv("KERNELEVO_LLM_API_KEY"), nullptr);

  EvolveTarget target;
  target.kernel_id = "saxpy";
  target.names = {"src/saxpy.cu", "saxpy", "saxpy_naive"};
  target.source = fixture("evolve/saxpy.cu");
  target.spec_text = "id: saxpy\nkernel: saxpy\n";
  target.device = {"NVIDIA H200", "sm_90", 132, 60 << 20, 3900.0, 4200.0};
  ChatPrompts prompts;
  FakeGpu gpu;
  EvolveOptions options;
  options.budget.generations = 2;
  options.budget.candidates = 4;
  std::string progress;
  options.progress = [&](const std::string& line) { progress += line + "\n"; };

  auto result = evolve(target, **client, prompts, gpu, options);
  ASSERT_TRUE(result.ok()) << result.error().to_string();
  const auto& r = *result;
  std::vector<std::string> statuses;
  for (const auto& c : r.candidates) statuses.push_back(c.status());
  EXPECT_EQ(statuses, (std::vector<std::string>{"passed", "compile_failed", "incorrect", "no_code",
                                                "rejected", "passed", "no_response", "no_code"}));
  EXPECT_NE(r.candidates[4].reason.find("refused #include of \"/proc/self/environ\""),
            std::string::npos);
  EXPECT_NE(r.candidates[6].reason.find("no answer from the LLM endpoint"), std::string::npos);
  ASSERT_TRUE(r.winner.has_value());
  EXPECT_EQ(r.candidates[*r.winner].label, "g1c1");
  EXPECT_EQ((*client)->retries(), 1);  // the 429
  EXPECT_EQ(r.summary.requests, 10);
  EXPECT_EQ(r.summary.tokens.prompt_tokens, 9 * 1000);
  EXPECT_EQ(r.summary.tokens.completion_tokens, 9 * 200);
  EXPECT_EQ(r.summary.counts.at("passed"), 2);
  // The environ include and the prose never reached the GPU: original + 4 built variants.
  EXPECT_EQ(gpu.seen.size(), 5u);
  for (const auto& s : gpu.seen) EXPECT_EQ(s.find("/proc/self/environ"), std::string::npos);

  // Generation 2 heard about generation 1's failures.
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 11u);  // the 429 was a request too
  const std::string second_ideas = json::parse(requests[5])["messages"][1]["content"];
  EXPECT_NE(second_ideas.find("g1c2: compile_failed: saxpy.cu(41): error: expected an expression"),
            std::string::npos);
  EXPECT_NE(second_ideas.find("g1c3: incorrect: verification after timing"), std::string::npos);
  EXPECT_NE(second_ideas.find("g1c4: no code in response"), std::string::npos);
  EXPECT_NE(second_ideas.find("1. float4 loads"), std::string::npos);  // ideas tried

  // Winner written next to the lockfile, recorded with its hash.
  const auto project = dir / "project";
  std::filesystem::create_directories(project / "src");
  const auto lockfile = project / "kernelevo.lock.json";
  const auto& winner = r.candidates[*r.winner];
  auto files = write_variant(lockfile, "saxpy", "src/saxpy.cu", target.source, winner.source);
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  ASSERT_TRUE(record_variant(lockfile,
                             {"saxpy", "src/saxpy.cu", target.source, "sm_90", "NVIDIA H200",
                              winner.measurement, *r.baseline.outcome.time_us, winner.label, ""},
                             *files)
                  .ok());
  const std::string variant = test::read_text(project / "kernelevo-variants/saxpy.cu");
  EXPECT_EQ(variant, winner.source);
  EXPECT_EQ(files->sha256, sha256_of(variant));
  EXPECT_NE(variant.find("float4"), std::string::npos);
  auto lock = read_lockfile(lockfile);
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  const auto& k = lock->kernels.at("saxpy");
  ASSERT_TRUE(k.variant.has_value());
  EXPECT_EQ(k.variant->file, "kernelevo-variants/saxpy.cu");
  EXPECT_EQ(k.variant->hash, sha256_of(variant));
  EXPECT_EQ(k.variant->base_source_hash, sha256_of(target.source));
  EXPECT_EQ(lock->schema_version, 2);
  EXPECT_EQ(k.source_hash, sha256_of(target.source));
  const auto& entry = k.targets.at("sm_90").at("NVIDIA H200");
  EXPECT_EQ(*entry.time_us, 41.0);
  EXPECT_EQ(*entry.baseline_us, 100.0);
  EXPECT_NE(entry.tuned_with.find("variant " + files->sha256), std::string::npos);
  EXPECT_EQ(test::read_text(lockfile).find("launches"), std::string::npos);

  // The diff turns the original into the variant.
  { std::ofstream(project / "src/saxpy.cu") << target.source; }
  if (std::system("patch --version > /dev/null 2>&1") == 0) {
    const std::string cmd =
        "cd " + project.string() + " && patch -s -p1 < kernelevo-variants/saxpy.cu.diff";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_EQ(test::read_text(project / "src/saxpy.cu"), variant);
  }

  const std::string report = evolve_report_json(target, r, &files.value());
  const auto rj = json::parse(report);
  EXPECT_EQ(rj["summary"]["total_tokens"], 9 * 1200);
  EXPECT_EQ(rj["summary"]["requests"], 10);
  EXPECT_EQ(rj["summary"]["counts"]["rejected"], 1);
  EXPECT_EQ(rj["winner"]["variant_hash"], files->sha256);

  // The key reached no request, no file, no message.
  for (const auto& body : requests) EXPECT_EQ(body.find(kKey), std::string::npos);
  EXPECT_EQ(all_text_under(dir).find(kKey), std::string::npos);
  EXPECT_EQ(report.find(kKey), std::string::npos);
  EXPECT_EQ(progress.find(kKey), std::string::npos);
  for (const auto& c : r.candidates) EXPECT_EQ(c.reason.find(kKey), std::string::npos);
}

}  // namespace
}  // namespace kev::llm

namespace kev::llm {
namespace {

// bench/evolve/run.sh (the GPU demonstration) must keep working: its kernel's spec loads
// and each scripted answer becomes a candidate that reaches the GPU's gates.
TEST(EvolveScripted, TheGpuDemonstrationScriptBuildsItsCandidates) {
  const std::string dir = std::string(KERNELEVO_SOURCE_DIR) + "/bench/evolve";
  const SpecLoad load = load_specs({dir + "/chunked_scale.cu"});
  ASSERT_TRUE(load.errors.empty()) << load.errors.front().to_string();
  ASSERT_EQ(load.specs.size(), 1u);
  const KernelSpec& spec = load.specs.front();
  const KernelNames names{spec.source, spec.kernel, spec.reference};
  const std::string original = test::read_text(spec.source);
  const auto script = json::parse(test::read_text(dir + "/script.json"));
  ASSERT_EQ(script.size(), 4u);
  EXPECT_FALSE(parse_response(script[0]["content"].get<std::string>()).has_code());  // ideas
  for (int i = 1; i <= 3; ++i) {
    const auto parsed = parse_response(script[i]["content"].get<std::string>());
    auto c = build_candidate(original, original, parsed, names);
    ASSERT_TRUE(c.ok()) << i << ": " << c.error().to_string();
    EXPECT_EQ(c->kind, CandidateKind::rewrite);
  }
}

// A variant timed another way than the default (evolve --l2 dirty or clean+write-back) is
// recorded so: `check` then times it the same way, and its provenance says how.
TEST(EvolveOutput, AVariantTimedWithItsWriteBackChargedIsRecordedSo) {
  const test_support::TempDir temp;
  const std::filesystem::path project = temp.path();
  std::filesystem::create_directories(project / "src");
  const auto lockfile = project / "kernelevo.lock.json";
  const std::string original = fixture("evolve/saxpy.cu");
  const std::string variant = original + "\n// the variant\n";
  auto files = write_variant(lockfile, "saxpy", "src/saxpy.cu", original, variant);
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  VariantMeasurement m;
  m.outcome.disposition = Disposition::passed;
  m.outcome.time_us = 41.0;
  ASSERT_TRUE(record_variant(lockfile,
                             {"saxpy", "src/saxpy.cu", original, "sm_90", "NVIDIA H200", m, 100.0,
                              "g1c1", "cold-l2+write-back"},
                             *files)
                  .ok());
  auto lock = read_lockfile(lockfile);
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  const auto& entry = lock->kernels.at("saxpy").targets.at("sm_90").at("NVIDIA H200");
  EXPECT_EQ(entry.timing, "cold-l2+write-back");
  EXPECT_NE(entry.tuned_with.find(", write-back charged"), std::string::npos) << entry.tuned_with;
  EXPECT_EQ(entry.flush, kFlushRevision);
}

}  // namespace
}  // namespace kev::llm
