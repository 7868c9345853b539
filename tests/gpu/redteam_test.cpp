// The red-team suite (DESIGN.md section 3): planted kernels that cheat in every way we know,
// each of which must be rejected with the right disposition, while the same worker carries
// on to the next variant. Runs through worker processes, as the tuner does.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cuda/worker_client.h"
#include "gpu_test_support.h"

namespace kev {
namespace {

using gpu_test::compile_kernel;
using gpu_test::elementwise_spec;

constexpr const char* kPrelude = R"(
#include <cuda_fp16.h>
#define IDX const int i = blockIdx.x * blockDim.x + threadIdx.x
)";

// name -> body of `extern "C" __global__ void name(const float* x, float* y, int n)`.
const std::map<std::string, std::string>& variants() {
  static const std::map<std::string, std::string> v{
      {"reference", "IDX; if (i < n) y[i] = 2.0f * x[i] + 1.0f;"},
      {"a_nothing", "(void)x; (void)y; (void)n;"},
      {"b_partial", "IDX; if (i < n / 2) y[i] = 2.0f * x[i] + 1.0f;"},
      {"c_constant", "IDX; if (i < n) y[i] = 1.0f;"},
      {"d_first_launch_only",
       "IDX; if (i >= n) return; if (atomicAdd(&kev_tickets, 1ull) >= (unsigned long long)n) "
       "return;"
       " y[i] = 2.0f * x[i] + 1.0f;"},
      {"e_writes_const_input",
       "IDX; if (i < n) { y[i] = 2.0f * x[i] + 1.0f; const_cast<float*>(x)[i] = 0.0f; }"},
      {"f_fp16_math",
       "IDX; if (i < n) { __half h = __float2half(x[i]); y[i] = "
       "__half2float(__hadd(__hmul(__float2half(2.0f), h), __float2half(1.0f))); }"},
      {"g_reads_out_of_bounds", "IDX; if (i < n) y[i] = 2.0f * x[i] + 1.0f + 0.0f * x[i + 1];"},
      {"h_illegal_address", "IDX; if (i < n) y[i + (1ll << 40)] = 1.0f;"},
      {"i_never_terminates", "IDX; volatile float* v = y; if (i < n) while (v[0] != 12345.0f) {}"},
      {"j_only_where_poisoned", "IDX; if (i < n && isnan(y[i])) y[i] = 2.0f * x[i] + 1.0f;"},
      {"k_writes_past_end", "IDX; if (i <= n) y[i] = 2.0f * x[i < n ? i : 0] + 1.0f;"},
  };
  return v;
}

std::string source_of(const std::string& name) {
  return std::string(kPrelude) + "__device__ unsigned long long kev_tickets;\n" +
         "extern \"C\" __global__ void " + name + "(const float* x, float* y, int n) { " +
         variants().at(name) + " }\n";
}

class RedTeam : public ::testing::Test {
 protected:
  void SetUp() override {
    KEV_REQUIRE_GPU();
    arch_ = gpu_test::device_arch();
    reference_ = compile_kernel(source_of("reference"), "reference", arch_);
  }
  RunRequest request_for(const std::string& name) {
    RunRequest r;
    r.spec = elementwise_spec();
    r.candidate = compile_kernel(source_of(name), name, arch_);
    r.reference = reference_;
    r.timing.timeout_seconds = 5.0;
    r.timing.min_seconds = 0.01;
    return r;
  }
  std::string arch_;
  KernelImage reference_;
};

TEST_F(RedTeam, EveryCheatIsRejectedAndTheWorkerCarriesOn) {
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 30.0);
  const std::vector<std::pair<std::string, Disposition>> expected{
      {"a_nothing", Disposition::incorrect},
      {"b_partial", Disposition::incorrect},
      {"c_constant", Disposition::incorrect},
      {"d_first_launch_only", Disposition::incorrect},
      {"e_writes_const_input", Disposition::incorrect},
      {"f_fp16_math", Disposition::incorrect},
      {"g_reads_out_of_bounds", Disposition::incorrect},
      {"h_illegal_address", Disposition::crashed},
      {"i_never_terminates", Disposition::timeout},
      {"j_only_where_poisoned", Disposition::incorrect},
      {"k_writes_past_end", Disposition::incorrect},
  };
  for (const auto& [name, want] : expected) {
    SCOPED_TRACE(name);
    RunReport report = worker.run(request_for(name));
    std::printf("[red-team] %-24s -> %-14s %s\n", name.c_str(),
                to_string(report.outcome.disposition), report.outcome.detail.c_str());
    EXPECT_EQ(to_string(report.outcome.disposition), std::string(to_string(want)))
        << report.outcome.detail;
    EXPECT_FALSE(report.outcome.detail.empty());
    // The next variant in the same run: an honest kernel still passes.
    RunReport honest = worker.run(request_for("reference"));
    EXPECT_EQ(to_string(honest.outcome.disposition), std::string("passed"))
        << honest.outcome.detail;
  }
  EXPECT_GE(worker.restarts(), 2);  // after the fault and after the hang
}

TEST_F(RedTeam, SpecificMessages) {
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 30.0);
  EXPECT_NE(worker.run(request_for("a_nothing")).outcome.detail.find("never written"),
            std::string::npos);
  EXPECT_NE(worker.run(request_for("e_writes_const_input"))
                .outcome.detail.find("const input 'x' was modified"),
            std::string::npos);
  EXPECT_NE(worker.run(request_for("k_writes_past_end")).outcome.detail.find("past the end"),
            std::string::npos);
  EXPECT_NE(worker.run(request_for("j_only_where_poisoned")).outcome.detail.find("decoys"),
            std::string::npos);
  EXPECT_NE(worker.run(request_for("g_reads_out_of_bounds")).outcome.detail.find("NaN/Inf"),
            std::string::npos);
}

TEST_F(RedTeam, FasterThanTheMeasuredCeilingIsSuspicious) {
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 30.0);
  RunRequest r = request_for("reference");
  r.spec.metric_bytes = gpu_test::expr("1000 * n");  // claims far more traffic than it moves
  RunReport report = worker.run(r);
  EXPECT_EQ(report.outcome.disposition, Disposition::invalid) << report.outcome.detail;
  EXPECT_NE(report.outcome.detail.find("suspicious"), std::string::npos);
}

TEST_F(RedTeam, AReferenceThatLeavesOutputsUnwrittenIsASpecError) {
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 30.0);
  RunRequest r = request_for("reference");
  r.reference = compile_kernel(source_of("b_partial"), "b_partial", arch_);
  const RunReport report = worker.run(r);
  EXPECT_EQ(report.outcome.disposition, Disposition::invalid) << report.outcome.detail;
  EXPECT_NE(report.outcome.detail.find("spec error: the reference kernel leaves 2097152 of "
                                       "4194304 elements of output 'y' unwritten"),
            std::string::npos)
      << report.outcome.detail;
  std::printf("[red-team] %-24s -> %-14s %s\n", "reference_partial",
              to_string(report.outcome.disposition), report.outcome.detail.c_str());
}

// The runner fills outputs with a poison pattern (one byte, 0xA5, for 8-bit integers) to find
// elements a kernel never writes. A reference that writes that very value as data writes it
// about once in 256 elements of a u8 output: it is not "unwritten" (found on an H100 by
// Fp8Args.TheRunnersDeviceConversionsAgreeWithTheHardware, whose E4M3 codes include 0xA5).
TEST_F(RedTeam, AReferenceWritingThePoisonValueAsDataIsNotUnwritten) {
  const char* source = R"(
extern "C" __global__ void bytes(unsigned char* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (unsigned char)(i * 37);  // every byte value, 0xA5 among them
}
)";
  RunRequest r;
  r.spec.id = "bytes";
  r.spec.kernel = "bytes";
  r.spec.source = "bytes.cu";
  r.spec.args = {gpu_test::buffer_arg("y", ScalarType::u8, "n", true), gpu_test::int_arg("n", "n")};
  r.spec.launch.grid = {gpu_test::expr("ceil_div(n, 256)")};
  r.spec.launch.block = {gpu_test::expr("256")};
  r.spec.tolerance = {0.0, 0.0};
  r.spec.metric_bytes = gpu_test::expr("n");
  Problem p;
  p.dims["n"] = 1 << 20;
  r.spec.problems = {p};
  r.candidate = compile_kernel(source, "bytes", arch_);
  r.reference = r.candidate;
  r.timing.timeout_seconds = 10.0;
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 30.0);
  const RunReport report = worker.run(r);
  EXPECT_EQ(report.outcome.disposition, Disposition::passed) << report.outcome.detail;
}

TEST_F(RedTeam, ImpossibleLaunchesAreRejectedAndTheNextVariantRuns) {
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 30.0);
  RunRequest r = request_for("reference");
  r.spec.launch.block = {gpu_test::expr("B")};
  r.spec.launch.grid = {gpu_test::expr("ceil_div(n, B)")};
  r.reference_params = {{"B", Value(256)}, {"S", Value(0)}};
  // A block larger than CUDA allows is rejected before running.
  r.params = {{"B", Value(2048)}, {"S", Value(0)}};
  RunReport report = worker.run(r);
  EXPECT_EQ(report.outcome.disposition, Disposition::invalid) << report.outcome.detail;
  EXPECT_NE(report.outcome.detail.find("block"), std::string::npos) << report.outcome.detail;
  // More shared memory than the device has: the driver refuses the launch.
  r.spec.launch.shared_bytes = gpu_test::expr("S");
  r.params = {{"B", Value(256)}, {"S", Value(4 << 20)}};
  report = worker.run(r);
  EXPECT_EQ(report.outcome.disposition, Disposition::launch_failed) << report.outcome.detail;
  r.params = {{"B", Value(512)}, {"S", Value(0)}};
  report = worker.run(r);
  EXPECT_EQ(report.outcome.disposition, Disposition::passed) << report.outcome.detail;
}

}  // namespace
}  // namespace kev
