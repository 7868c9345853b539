// Response parsing, frozen regions and include safety for model-written kernel variants.
#include "core/candidate_builder.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/device_only_rules.h"
#include "core/kernel_regions.h"
#include "core/response_parser.h"
#include "core/source_lexer.h"
#include "core/source_safety.h"

namespace kev {
namespace {

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(KERNELEVO_FIXTURES) + "/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const KernelNames kNames{"saxpy.cu", "saxpy", "saxpy_naive"};

class CandidateTest : public ::testing::Test {
 protected:
  std::string original = read_fixture("evolve/saxpy.cu");
  Result<Candidate> build(const std::string& answer) {
    return build_candidate(original, original, parse_response(answer), kNames);
  }
};

TEST(ResponseParser, FindsEditsAndFencedBlocks) {
  const auto parsed = parse_response(
      "Idea: vectorise.\n```cuda\n<<<<<<< SEARCH\nint i = 0;\n=======\nint i = 1;\n>>>>>>> "
      "REPLACE\n```\nand a rewrite:\n```cpp\nvoid f() {}\n```\n");
  ASSERT_EQ(parsed.edits.size(), 1u);
  EXPECT_EQ(parsed.edits[0].search, "int i = 0;\n");
  EXPECT_EQ(parsed.edits[0].replace, "int i = 1;\n");
  EXPECT_EQ(parsed.edits[0].line, 3);
  ASSERT_EQ(parsed.code_blocks.size(), 1u);  // the fence holding the edit is not a rewrite
  EXPECT_EQ(parsed.code_blocks[0].language, "cpp");
  EXPECT_EQ(parsed.code_blocks[0].code, "void f() {}\n");
}

TEST(ResponseParser, ProseHasNoCode) {
  const auto parsed = parse_response("You could use float4 loads and unroll the loop.\n");
  EXPECT_FALSE(parsed.has_code());
}

TEST(ResponseParser, TruncatedEditIsIgnoredButUnclosedFenceCounts) {
  EXPECT_FALSE(parse_response("<<<<<<< SEARCH\nx\n=======\ny\n").has_code());
  const auto parsed = parse_response("```cuda\nint x;\n");
  ASSERT_EQ(parsed.code_blocks.size(), 1u);
  EXPECT_EQ(parsed.code_blocks[0].code, "int x;\n");
}

TEST(KernelRegions, LocatesSpecReferenceSignatureAndBody) {
  const std::string src = read_fixture("evolve/saxpy.cu");
  auto r = locate_kernel_regions(src, kNames);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->spec_block.has_value());
  EXPECT_NE(src.substr(r->spec_block->begin, 20).find("/* @kernelevo"), std::string::npos);
  EXPECT_EQ(src.substr(r->spec_block->end - 18, 18), "// clang-format on");
  ASSERT_TRUE(r->reference.has_value());
  EXPECT_EQ(src.substr(r->reference->begin, 10), "extern \"C\"");
  EXPECT_LT(r->reference->end, r->spec_block->begin);
  EXPECT_EQ(
      normalize_whitespace(src.substr(r->signature.begin, r->signature.end - r->signature.begin)),
      "extern \"C\" __global__ void saxpy(const float* x, const float* y, float* out, "
      "float a, int n)");
  EXPECT_EQ(src[r->body.begin], '{');
  EXPECT_EQ(src[r->body.end - 1], '}');
  EXPECT_EQ(r->editable.begin, r->spec_block->end);
  EXPECT_EQ(r->editable.end, r->body.end);
}

TEST(KernelRegions, IgnoresNamesInCommentsStringsAndCalls) {
  const std::string src =
      "// k(int a) { fake }\nconst char* s = \"k(int) {\";\nvoid g() { k(1); }\n"
      "template <int B>\n__global__ void k(int a) { if (a) { return; } }\n";
  auto r = locate_kernel_regions(src, {"f.cu", "k<256>", ""});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(src.substr(r->signature.begin, 16), "template <int B>");
  EXPECT_EQ(src.substr(r->body.end - 1), "}\n");
}

TEST_F(CandidateTest, SearchReplaceInsideTheBodyIsApplied) {
  auto c = build(
      "```cuda\n<<<<<<< SEARCH\n  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < "
      "n) "
      "out[i] = a * x[i] + y[i];\n=======\n  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = __fmaf_rn(a, x[i], y[i]);\n>>>>>>> REPLACE\n```\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->kind, CandidateKind::edits);
  EXPECT_NE(c->source.find("__fmaf_rn(a, x[i], y[i]);\n}\n\n// Host-side"), std::string::npos);
  EXPECT_EQ(c->source.size(), original.size() + 9);
}

TEST_F(CandidateTest, EditReachingPastTheKernelIsRefused) {
  auto c = build(
      "<<<<<<< SEARCH\n  if (i < n) out[i] = a * x[i] + y[i];\n}\n\n// Host-side helper that is "
      "not part of the kernel's region.\n=======\nx\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("outside the kernel's own code"), std::string::npos)
      << c.error().message;
}

TEST_F(CandidateTest, EditMatchingTwoPlacesIsRefused) {
  // The reference kernel has the same body line.
  auto c = build(
      "<<<<<<< SEARCH\n  if (i < n) out[i] = a * x[i] + y[i];\n=======\n  if (i < n) "
      "out[i] = 0;\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("matches 2 places"), std::string::npos) << c.error().message;
}

TEST_F(CandidateTest, EditsOfTheSignatureAreRefusedAndIndentationDriftIsTolerated) {
  auto c = build(
      "<<<<<<< SEARCH\nextern \"C\" __global__ void saxpy(const float* x, const float* y, float* "
      "out, float a, int n) {\n=======\nextern \"C\" __global__ void saxpy(const float* x, const "
      "float* y, float* out, float a, long n) {\n  // changed\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(c.ok());  // the edit changes a parameter's type
  EXPECT_NE(c.error().message.find("signature of kernel `saxpy`"), std::string::npos)
      << c.error().message;

  // Indentation drift: matched line by line, applied to whole lines.
  c = build(
      "<<<<<<< SEARCH\n    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "=======\n  const int i = (blockIdx.x * blockDim.x + threadIdx.x);\n>>>>>>> REPLACE\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_NE(c->source.find("{\n  const int i = (blockIdx.x"), std::string::npos);
}

TEST_F(CandidateTest, EditOfTheSpecBlockIsRefused) {
  auto c = build(
      "<<<<<<< SEARCH\n  SAXPY_BLOCK: [128, 256, 512]\n=======\n  SAXPY_BLOCK: [1024]\n"
      ">>>>>>> REPLACE\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("frozen spec comment block"), std::string::npos);
}

TEST_F(CandidateTest, EditOfTheReferenceIsRefused) {
  auto c = build(
      "<<<<<<< SEARCH\nextern \"C\" __global__ void saxpy_naive(const float* x, const "
      "float* y, float* out, float a, int n) {\n  int i = blockIdx.x * blockDim.x + "
      "threadIdx.x;\n=======\nextern \"C\" __global__ void saxpy_naive(const float* x, "
      "const float* y, float* out, float a, int n) {\n  int i = 0;\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("frozen reference kernel `saxpy_naive`"), std::string::npos)
      << c.error().message;
}

TEST_F(CandidateTest, SearchTextNotFoundIsRefused) {
  auto c = build("<<<<<<< SEARCH\nthis is not there\n=======\nx\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("SEARCH text not found"), std::string::npos);
}

const char* kVectorised = R"(```cuda
__device__ __forceinline__ float4 axpy4(float a, float4 x, float4 y) {
  return make_float4(a * x.x + y.x, a * x.y + y.y, a * x.z + y.z, a * x.w + y.w);
}
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, float a, int n) {
  const int stride = gridDim.x * blockDim.x;
  const int n4 = n / 4;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride)
    reinterpret_cast<float4*>(out)[i] = axpy4(a, reinterpret_cast<const float4*>(x)[i],
                                              reinterpret_cast<const float4*>(y)[i]);
  for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = a * x[i] + y[i];
}
```)";

TEST_F(CandidateTest, RewriteReplacesOnlyTheKernelRegion) {
  auto c = build(std::string("Here is a faster version:\n") + kVectorised);
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->kind, CandidateKind::rewrite);
  EXPECT_NE(c->source.find("axpy4"), std::string::npos);
  EXPECT_NE(c->source.find("// Host-side helper"), std::string::npos);
  EXPECT_NE(c->source.find("SAXPY_BLOCK: [128, 256, 512]"), std::string::npos);
  // Exactly one saxpy definition and the reference untouched.
  EXPECT_EQ(c->source.find("void saxpy("), c->source.rfind("void saxpy("));
  EXPECT_TRUE(check_frozen_parts(original, c->source, kNames).ok());
}

TEST_F(CandidateTest, RewriteChangingTheSignatureIsRefused) {
  auto c = build(
      "```cuda\nextern \"C\" __global__ void saxpy(const float* x, float* y, float* "
      "out, float a, int n) { }\n```\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("signature of kernel `saxpy`"), std::string::npos)
      << c.error().message;
}

TEST_F(CandidateTest, RewriteRenamingTheEntryIsRefused) {
  auto c = build(
      "```cuda\nextern \"C\" __global__ void saxpy_fast(const float* x, const float* "
      "y, float* out, float a, int n) { }\n```\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("does not define kernel `saxpy`"), std::string::npos);
}

TEST_F(CandidateTest, WholeFileRewriteWithChangedSpecIsRefused) {
  std::string whole = original;
  whole.replace(whole.find("rtol") == std::string::npos ? whole.find("SAXPY_BLOCK: [128")
                                                        : whole.find("rtol"),
                17, "SAXPY_BLOCK: [64,");
  auto c = build("```cuda\n" + whole + "```\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("spec comment block"), std::string::npos) << c.error().message;
  EXPECT_EQ(c.error().where.line, 19);  // the changed spec line
}

TEST_F(CandidateTest, WholeFileRewriteKeepingFrozenPartsIsAccepted) {
  std::string whole = original;
  const auto body = whole.rfind("if (i < n) out[i] = a * x[i] + y[i];");
  whole.replace(body, 36, "if (i < n) out[i] = fmaf(a, x[i], y[i]);");
  auto c = build("```cuda\n" + whole + "```\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->kind, CandidateKind::whole_file);
}

TEST_F(CandidateTest, RewriteIncludingProcSelfEnvironIsRefused) {
  auto c = build("```cuda\n#include \"/proc/self/environ\"\n" + std::string(kVectorised).substr(8));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("refused #include of \"/proc/self/environ\": an absolute path"),
            std::string::npos)
      << c.error().message;
}

TEST(SourceSafety, IncludeRules) {
  const std::string original = "#include <cuda_runtime.h>\n#include \"../common/util.cuh\"\n";
  const auto check = [&](const std::string& extra) {
    return check_includes(original + extra, original, "k.cu");
  };
  EXPECT_TRUE(check("").ok());  // the original's own includes stay allowed
  EXPECT_TRUE(check("#include <cuda_fp16.h>\n#include \"detail/vec.cuh\"\n").ok());
  EXPECT_FALSE(check("#include </etc/passwd>\n").ok());
  EXPECT_FALSE(check("#include \"../../secrets.h\"\n").ok());
  EXPECT_FALSE(check("#include \"a/../../b.h\"\n").ok());
  EXPECT_FALSE(check("#include \"~/.ssh/id_rsa\"\n").ok());
  EXPECT_FALSE(check("#include \"proc/self/environ\"\n").ok());
  EXPECT_FALSE(check("#  include \\\n \"/dev/stdin\"\n").ok());
  EXPECT_FALSE(check("%:include \"/proc/self/environ\"\n").ok());
  EXPECT_FALSE(check("#include /* c */ </proc/self/environ>\n").ok());
  EXPECT_FALSE(check("#define P \"/proc/self/environ\"\n#include P\n").ok());
  EXPECT_FALSE(check("#include_next <x.h>\n").ok());
  EXPECT_FALSE(check("#embed \"/etc/shadow\"\n").ok());
  EXPECT_FALSE(check("#if __has_include(\"/proc/self/environ\")\n#endif\n").ok());
  const auto err = check("\n#include \"/proc/self/environ\"\n");
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().to_string(),
            "k.cu:4: error: refused #include of \"/proc/self/environ\": an absolute path");
}

}  // namespace
}  // namespace kev

namespace kev {
namespace {

// Each spelling reached the preprocessor past the earlier line-start-only filter; gcc and
// nvcc read the file named in every one of them.
TEST(SourceSafety, IncludeTricksThatReachThePreprocessorAreAllRefused) {
  const std::string original = "#include <cuda_runtime.h>\n";
  const std::string tricks[] = {
      "/**/#include \"/proc/self/environ\"\n",
      "/* a comment\n   spanning lines */ #include \"/proc/self/environ\"\n",
      "int a;\r#include \"/proc/self/environ\"\n",
      "int a;\r\n#include \"/proc/self/environ\"\r\n",
      "#inc\\ \nlude \"/proc/self/environ\"\n",
      "#include \\\t\n\"/proc/self/environ\"\n",
      "#/**/include \"/proc/self/environ\"\n",
      "?\?=include \"/proc/self/environ\"\n",
      "#if 1 || __has_include(<cuda_fp16.h>) || __has_include(\"/proc/self/environ\")\n#endif\n",
      "#if __has_include_next(<x.h>)\n#endif\n",
      "#if __has_include(SECRET_PATH)\n#endif\n",
      "const char* s = \"#include \\\"/etc/passwd\\\"\";\n",  // conservatively refused too
  };
  for (const auto& trick : tricks) {
    auto st = check_includes(original + trick, original, "k.cu");
    EXPECT_FALSE(st.ok()) << "accepted: " << trick;
  }
}

TEST(SourceSafety, TheErrorNamesTheLineOfTheTrick) {
  const std::string original = "#include <cuda_runtime.h>\n";
  auto st = check_includes(original + "int a;\rint b;\r/**/#include \"/proc/self/environ\"\n",
                           original, "k.cu");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().where.line, 2) << st.error().to_string();  // lines count '\n' only
}

class RefuseDotEnv : public IncludePolicy {
 public:
  std::string check_include(std::string_view path, bool) const override {
    return path == ".env" ? "ignored by git" : "";
  }
  std::string check_file(const std::string&) const override { return {}; }
};

TEST(SourceSafety, APolicyDecidesNewIncludesTheOriginalDoesNotHave) {
  const std::string original = "#include \"common.cuh\"\n";
  RefuseDotEnv policy;
  EXPECT_TRUE(check_includes(original + "#include \"vec.cuh\"\n", original, "k.cu", &policy).ok());
  auto st = check_includes(original + "#include \".env\"\n", original, "k.cu", &policy);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("refused #include of \".env\": ignored by git"),
            std::string::npos)
      << st.error().message;
  // The original's own includes are not asked about.
  EXPECT_TRUE(check_includes(original, original, "k.cu", &policy).ok());
}

TEST(SourceLexer, CommentsAreWhitespaceAndEveryLineEndEndsADirective) {
  const std::string text = "/**/#define A 1\rint x;\n#de\\  \nfine B 2\nint y;";
  std::vector<std::string> directives;
  for (const auto& t : lex_cuda(text))
    if (t.kind == TokenKind::directive) directives.emplace_back(t.text(text));
  ASSERT_EQ(directives.size(), 2u);
  EXPECT_EQ(directives[0], "#define A 1");
  EXPECT_EQ(directives[1], "#de\\  \nfine B 2");
}

}  // namespace
}  // namespace kev

namespace kev {
namespace {

// A candidate whose helpers (the text between the spec block and the kernel) are `helpers`.
std::string with_helpers(const std::string& original, const std::string& helpers) {
  const std::string mark = "// clang-format on\n";
  std::string s = original;
  s.insert(s.find(mark) + mark.size(), helpers);
  return s;
}

TEST(DeviceOnlyHelpers, HostCodeInFrontOfTheKernelIsRefused) {
  const std::string original = read_fixture("evolve/saxpy.cu");
  const std::pair<std::string, std::string> cases[] = {
      {"__attribute__((constructor)) static void steal() { system(\"id\"); }\n",
       "attribute `constructor`"},
      {"struct Init { Init() { printf(\"hi\\n\"); } };\n__device__ int unused;\nstatic Init "
       "init;\n",
       "a function that is not `__device__`"},
      {"static int x = printf(\"static initialiser\\n\");\n", "a host variable"},
      {"asm(\".incbin \\\"/etc/passwd\\\"\");\n", "`asm` outside a function body"},
      {"__asm__(\".section .init_array\");\n", "`asm` outside a function body"},
      {"int host_helper(int n) { return n * 2; }\n", "a function that is not `__device__`"},
      {"__host__ __device__ float both(float v) { return v; }\n", "`__host__`"},
      {"extern \"C\" void exported() {}\n", "linkage specification"},
      {"extern int somewhere;\n", "`extern` declarations"},
      {"__managed__ float m[4];\n", "`__managed__`"},
      {"[[gnu::section(\".init_array\")]] __device__ int s;\n", "attribute `section`"},
      {"namespace { int hidden = 3; }\n", "a host variable"},
      {"const int computed = getpid();\n", "a host variable"},
      {"__global__ void other_kernel() {}\n", "a second kernel"},
      {"struct Holder { static int count; };\n", "a static member needs `constexpr`"},
  };
  for (const auto& [helpers, why] : cases) {
    auto st = check_device_only_helpers(original, with_helpers(original, helpers), kNames);
    ASSERT_FALSE(st.ok()) << "accepted:\n" << helpers;
    EXPECT_NE(st.error().message.find(why), std::string::npos) << helpers << "\n"
                                                               << st.error().to_string();
    EXPECT_EQ(st.error().where.file, "saxpy.cu");
    EXPECT_GT(st.error().where.line, 30);
  }
}

TEST(DeviceOnlyHelpers, DeviceHelpersConstantsAndTypesAreAccepted) {
  const std::string original = read_fixture("evolve/saxpy.cu");
  const std::string helpers =
      "#define UNROLL 4\n"
      "constexpr int kTile = 32;\n"
      "static constexpr float kScale = 0.5f;\n"
      "static const int kBlock = 256 * 2;\n"
      "__constant__ float kCoef[4] = {1.f, 2.f, 3.f, 4.f};\n"
      "__device__ float table[8];\n"
      "extern __shared__ float smem[];\n"
      "typedef float4 vec4;\n"
      "using vec2 = float2;\n"
      "static_assert(kTile % 32 == 0, \"tile\");\n"
      "template <int N> __device__ __forceinline__ float sum(const float* v) {\n"
      "  float s = 0.f;\n#pragma unroll\n  for (int i = 0; i < N; ++i) s += v[i];\n"
      "  asm volatile(\"\" ::: \"memory\");\n  return s;\n}\n"
      "struct __align__(16) Pair {\n  float a, b;\n  Pair() = default;\n"
      "  __device__ float total() const { return a + b; }\n"
      "  static constexpr int kSize = 2;\n};\n"
      "enum class Mode : int { fast = 1, exact = 2 };\n"
      "namespace detail {\n__device__ __forceinline__ float twice(float x) { return 2.f * x; }\n}\n"
      "__device__ __attribute__((always_inline)) inline float id(float x) { return x; }\n";
  auto st = check_device_only_helpers(original, with_helpers(original, helpers), kNames);
  EXPECT_TRUE(st.ok()) << st.error().to_string();
}

TEST(DeviceOnlyHelpers, WhatTheOriginalAlreadyHasIsNotAskedAbout) {
  const std::string original =
      with_helpers(read_fixture("evolve/saxpy.cu"), "static int legacy_counter = 0;\n");
  EXPECT_TRUE(check_device_only_helpers(original, original, kNames).ok());
  auto st = check_device_only_helpers(original, with_helpers(original, "static int another = 1;\n"),
                                      kNames);
  EXPECT_FALSE(st.ok());
}

TEST_F(CandidateTest, ARewriteWithAGlobalConstructorIsRefusedBeforeCompiling) {
  std::string rewrite = std::string(kVectorised).substr(8);
  rewrite = "struct Stealer { Stealer() { printf(\"pwned\"); } };\nstatic Stealer s;\n" + rewrite;
  auto c = build("```cuda\n" + rewrite);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("refused a helper"), std::string::npos) << c.error().message;
}

}  // namespace
}  // namespace kev

namespace kev {
namespace {

TEST(LaunchAbi, RestrictAddedConstAndLaunchBoundsKeepTheAbi) {
  const std::string o = "extern \"C\" __global__ void k(const float* x, float* y, int n)";
  EXPECT_TRUE(same_launch_abi(o, o));
  EXPECT_TRUE(same_launch_abi(
      o,
      "extern \"C\" __global__ void __launch_bounds__(256, 2) k(const float* __restrict__ x, "
      "float* __restrict__ y, const int n)"));
  EXPECT_TRUE(same_launch_abi("extern \"C\" __global__ void __launch_bounds__(128) k(float* x)",
                              "extern \"C\" __global__ void k(float* /* in */ x)"));
  EXPECT_FALSE(same_launch_abi(o, "extern \"C\" __global__ void k(float* x, float* y, int n)"));
  EXPECT_FALSE(
      same_launch_abi(o, "extern \"C\" __global__ void k(const float* x, float* y, long n)"));
  EXPECT_FALSE(same_launch_abi(o, "extern \"C\" __global__ void k(const float* x, float* y)"));
  EXPECT_FALSE(
      same_launch_abi(o, "extern \"C\" __global__ void k(const float* in, float* y, int n)"));
  EXPECT_FALSE(same_launch_abi(o, "__global__ void k(const float* x, float* y, int n)"));
}

TEST_F(CandidateTest, AnEditAddingRestrictAndLaunchBoundsToTheSignatureIsAccepted) {
  auto c = build(
      "<<<<<<< SEARCH\nextern \"C\" __global__ void saxpy(const float* x, const float* y, float* "
      "out, float a, int n) {\n=======\nextern \"C\" __global__ void __launch_bounds__(256) "
      "saxpy(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, "
      "const float a, const int n) {\n>>>>>>> REPLACE\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_NE(c->source.find("__launch_bounds__(256)"), std::string::npos);
}

}  // namespace
}  // namespace kev

namespace kev {
namespace {

TEST(ResponseParser, ReasoningIsNotTheAnswer) {
  EXPECT_EQ(strip_reasoning("<think>maybe float4?\n```cuda\ndraft\n```</think>\n1. float4 loads"),
            "1. float4 loads");
  EXPECT_EQ(strip_reasoning("so the plan is...</think>\nAnswer"), "Answer");
  EXPECT_EQ(strip_reasoning("<thinking>a</thinking>x<reasoning>b</reasoning>y"), "xy");
  EXPECT_EQ(strip_reasoning("<think>cut off mid-thought ```cuda"), "");
  EXPECT_EQ(strip_reasoning("no tags here"), "no tags here");
  EXPECT_FALSE(
      parse_response(strip_reasoning("<think>```cuda\nint x;\n```</think>prose")).has_code());
}

}  // namespace
}  // namespace kev
