#pragma once
// The model of a marked kernel (DESIGN.md section 2), independent of YAML.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/buckets.h"
#include "core/expr.h"
#include "core/objectives.h"
#include "core/result.h"
#include "core/value.h"

namespace kev {

// New types go at the end: the enumerator order is the worker protocol's and the helper
// kernels' type code. fp8_e4m3 is CUDA's __nv_fp8_e4m3 (OCP E4M3: no infinities, 448 at most).
enum class ScalarType { f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, fp8_e4m3 };
[[nodiscard]] std::size_t size_of(ScalarType t);
[[nodiscard]] const char* cuda_name(ScalarType t);  // "float", "__half", "int32_t"...
// Parses "float", "half", "bfloat16", "fp8_e4m3", "int32", "int", "uint8", ... (no pointer).
[[nodiscard]] std::optional<ScalarType> parse_scalar_type(std::string_view text);

enum class InitKind { normal, uniform, constant, iota, randint, zeros };
[[nodiscard]] const char* init_name(InitKind kind);  // "normal", "uniform", ... as specs write it

struct ParamSpec {
  std::string name;
  std::vector<Value> values;
  SourceLocation where;
};

// A problem shape: dimension name -> value, e.g. {rows: 4096, cols: 8192}.
struct Problem {
  std::map<std::string, std::int64_t> dims;
  SourceLocation where;
  [[nodiscard]] std::string to_string() const;  // "rows=4096,cols=8192"
};

// A TMA tensor map over a pointer argument's buffer, encoded by the runner for the buffer it
// passes (cuTensorMapEncodeTiled) and passed by value: the kernel takes it as a
// `const __grid_constant__` 128-byte, 64-byte aligned parameter. The tensor is dense:
// `dims` innermost first (elements), each dimension's stride the product of those before.
// `box` is the tile one copy moves (elements, innermost first); `swizzle` the shared-memory
// swizzle span in bytes (0: none, 32, 64, 128). Elements outside the tensor read as zeros.
struct TensorMapSpec {
  std::string of;  // the pointer argument
  std::vector<Expr> dims;
  std::vector<Expr> box;
  int swizzle = 0;
  SourceLocation where;
};

struct ArgSpec {
  std::string name;
  ScalarType type = ScalarType::f32;
  bool pointer = false;
  bool is_const = false;  // "const float*"
  // pointers
  std::optional<Expr> count;  // elements
  InitKind init = InitKind::normal;
  double init_value = 0.0;  // constant value / uniform or randint upper bound
  double init_low = 0.0;    // uniform or randint lower bound
  bool output = false;
  bool inout = false;
  bool scratch = false;
  // scalars: an integer expression, or a float literal
  std::optional<Expr> value_expr;
  std::optional<double> float_value;
  // set: the argument is a tensor map (not a pointer, no value); `type` is unused
  std::optional<TensorMapSpec> tensor_map;
  SourceLocation where;
};

struct LaunchSpec {
  std::vector<Expr> grid;   // 1 to 3 expressions
  std::vector<Expr> block;  // 1 to 3 expressions
  std::optional<Expr> shared_bytes;
  // CTAs per thread-block cluster along x (1, 2, 4 or 8); the grid still counts CTAs, so its
  // x must be a multiple. Absent: no cluster.
  std::optional<Expr> cluster;
};

struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-6;
};

// `dispatch`: one winner per bucket of a problem dimension instead of one for all problems
// (core/buckets.h). The build calls the bucket's winner from the problem's dimension.
struct DispatchSpec {
  std::string by;  // the problem dimension the buckets split
  std::vector<BucketRange> buckets;
  std::vector<SourceLocation> bucket_where;  // each bucket's place in the spec
  bool per_problem = false;  // `buckets: per_problem`: one bucket per listed value of `by`
  // Functions with external linkage in a macro-parameterised source besides the kernel and
  // the reference: compiled once per distinct winner, each copy is renamed (NAME_kev<i>).
  std::vector<std::string> entries;
  SourceLocation where;
};

// What a marked source is written in: CUDA C++ (.cu, compiled by NVRTC or nvcc) or Triton
// (a `@triton.jit` function of a .py file, compiled by Triton in a Python child process).
enum class SourceLanguage { cuda, triton };

struct KernelSpec {
  std::string id;
  SourceLanguage language = SourceLanguage::cuda;
  std::string kernel;    // entry point, possibly a template instance "f<BLOCK>"
  std::string source;    // path of the .cu file as given (relative to the project root)
  SourceLocation where;  // the line of the @kernelevo mark (or the yaml entry)
  int kernel_line = 0;   // line of the kernel definition in the source, 0 if unknown
  std::vector<ParamSpec> params;
  std::vector<Expr> constraints;
  std::vector<Problem> problems;
  std::vector<Problem> validate;
  std::vector<ArgSpec> args;
  LaunchSpec launch;
  std::string reference;  // kernel name, or "default" (the source with no parameter set)
  // Set: the reference kernel is defined in this other source (`reference: {source, kernel}`,
  // the path relative to the spec's source joined to its directory), a .cu kernel (compiled
  // with that source's own defaults) or a Triton function (compiled with this spec's
  // defaults for the constexprs it takes). Empty: it is in `source`.
  std::string reference_source;
  Tolerance tolerance;
  std::optional<Expr> metric_bytes;
  std::optional<Expr> metric_flops;
  std::string arch;  // optional: "sm_90a" when the kernel needs arch-specific features
  std::vector<std::string> include_dirs;
  std::vector<std::string> defines;  // "NAME=VALUE" or "NAME"
  std::vector<std::string> flags;    // extra compiler flags
  bool has_format_guard = true;      // clang-format off/on around the block
  std::optional<DispatchSpec> dispatch;
  std::optional<ObjectivesSpec> objectives;  // resources to keep low besides time
  // `timing: alone`: every timed launch runs alone after an L2 flush however short it is, as
  // a kernel launched between other work runs (cold code and data); by default launches
  // under TimingOptions::batch_below_us are timed back to back in batches.
  bool time_alone = false;

  [[nodiscard]] const ParamSpec* param(std::string_view name) const;
};

// The problems among `problems` whose dimension `dim` lies in `range`.
[[nodiscard]] std::vector<Problem> problems_in(const std::vector<Problem>& problems,
                                               const std::string& dim, const BucketRange& range);

// What a compile of a bucket's winner defines when the bucket holds one size of its
// dimension (a `per_problem` bucket, [v, v + 1)): KERNELEVO_SIZE_<by>=<v>, the dimension
// spelled as the spec spells it ("KERNELEVO_SIZE_cols=1024"); nothing for a wider bucket.
// A source may compile that size as a constant (fewer instructions, no masks), behind a
// check at run time: the build serves sizes outside every bucket with the nearest one's
// winner, so the winner must stay correct at every size. Tune, check, compare, the build's
// variants and export --torch compile every one-size bucket's winner with it; not a template
// kernel's (the build instantiates its variants in one source) nor a Triton kernel's.
inline constexpr const char* kBucketSizeMacroPrefix = "KERNELEVO_SIZE_";
[[nodiscard]] std::optional<std::string> bucket_size_define(const std::string& by,
                                                            const BucketRange& range);

// The size define `spec`'s winner of the bucket `range` of `by` is compiled with:
// bucket_size_define's when `sized` (the lock's LockBucket::sized; a bucket's search compiles
// its points sized), except for a template kernel or a Triton kernel (none). The one rule
// spec_for_bucket and the build's dispatch variants follow.
[[nodiscard]] std::optional<std::string> bucket_compile_define(const KernelSpec& spec,
                                                               const std::string& by,
                                                               const BucketRange& range,
                                                               bool sized);

// `spec` restricted to the problems whose `by` lies in `range`, without dispatch, compiled
// with the bucket's size define (bucket_compile_define) in place of any define of that name.
[[nodiscard]] KernelSpec spec_for_bucket(const KernelSpec& spec, const std::string& by,
                                         const BucketRange& range, bool sized);

// `spec` restricted to bucket `bucket` of its dispatch (spec_for_bucket): what each bucket's
// search tunes.
[[nodiscard]] KernelSpec bucket_spec(const KernelSpec& spec, std::size_t bucket);

// `kernel: f<P...>`: a template instantiated per configuration, rather than a kernel whose
// parameters are macros.
[[nodiscard]] inline bool is_template_kernel(const KernelSpec& spec) {
  return spec.kernel.find('<') != std::string::npos;
}

}  // namespace kev
