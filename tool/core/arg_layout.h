#pragma once
// A spec's arguments and launch geometry resolved for one problem and one parameter set:
// element counts, byte sizes, scalar values in the kernel's parameter layout, grid and block.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/compiler.h"
#include "core/evaluation.h"
#include "core/result.h"
#include "core/spec.h"

namespace kev {

// A tensor map argument for one problem and parameter set: what cuTensorMapEncodeTiled is
// given besides the buffer's address (the runner encodes it for the buffer it passes).
struct ResolvedTensorMap {
  std::size_t of = 0;  // index of the pointer argument it covers
  ScalarType type = ScalarType::u8;
  unsigned rank = 0;
  std::array<std::uint64_t, 5> dims{};     // elements, innermost first
  std::array<std::uint64_t, 4> strides{};  // bytes, of dimensions 1..rank-1
  std::array<std::uint32_t, 5> box{};
  int swizzle = 0;  // bytes: 0, 32, 64 or 128
  // Empty: the driver can describe the tensor. Otherwise why not (a row not a multiple of 16
  // bytes, an empty dimension): the kernel receives a map of zeros and must not use it, as it
  // must not when the buffer's address is not 16-byte aligned (tensor_map_unusable()).
  std::string unencodable;
};

struct ResolvedArg {
  std::size_t index = 0;              // into KernelSpec::args
  std::int64_t count = 0;             // pointers: elements
  std::size_t bytes = 0;              // pointers: count * element size
  std::vector<unsigned char> scalar;  // scalars: the value as the kernel receives it
  std::optional<ResolvedTensorMap> tensor_map;
};

// Why `map` cannot be encoded for a buffer at `address`, or empty when it can.
[[nodiscard]] std::string tensor_map_unusable(const ResolvedTensorMap& map, std::uint64_t address);

struct ResolvedLaunch {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  unsigned shared_bytes = 0;
  unsigned trailing_null_pointers = 0;  // null pointers passed after the spec's arguments
  unsigned cluster_x = 1;               // CTAs per thread-block cluster along x (1: no cluster)
};

struct ResolvedProblem {
  std::vector<ResolvedArg> args;  // one per spec argument, in order
  ResolvedLaunch launch;
  std::optional<std::int64_t> bytes;               // metrics.bytes
  std::optional<std::int64_t> flops;               // metrics.flops
  [[nodiscard]] std::size_t buffer_bytes() const;  // all pointer arguments (saturating)
};

// `launch` with what an image's compiler decided in place of the spec's (Triton's block,
// dynamic shared memory, trailing null pointers and clusters: a grid of programs becomes
// cluster_ctas times as many blocks along x, as Triton's launcher makes it; a grid that
// no longer fits is left too large for the driver, whose refusal fails the launch);
// unchanged for an empty `image`.
inline void apply_image_launch(const ImageLaunch& image, ResolvedLaunch& launch) {
  if (image.block_threads) launch.block = {*image.block_threads, 1, 1};
  if (image.shared_bytes) launch.shared_bytes = *image.shared_bytes;
  launch.trailing_null_pointers = image.trailing_null_pointers;
  if (image.cluster_ctas > 1) {
    const std::uint64_t x = std::uint64_t{launch.grid[0]} * image.cluster_ctas;
    launch.grid[0] = x > 0xffffffffu ? 0xffffffffu : static_cast<unsigned>(x);
    launch.cluster_x = image.cluster_ctas;
  }
}

// The name an expression uses for the device's multiprocessor count (a persistent grid of a
// CTA per SM): known at launch, on the device that runs the kernel.
inline constexpr std::string_view kSmCountName = "sm_count";

// The first of the spec's argument, launch and metric expressions that uses `sm_count`, or null.
[[nodiscard]] const Expr* first_using_sm_count(const KernelSpec& spec);

// Names resolve to problem dimensions first, then integer parameters, then `sm_count` (the
// device's multiprocessor count, where one is given; without, a name that is undefined).
[[nodiscard]] Result<ResolvedProblem> resolve_problem(const KernelSpec& spec,
                                                      const ParamSet& params,
                                                      const Problem& problem,
                                                      std::optional<int> sm_count = std::nullopt);

}  // namespace kev
