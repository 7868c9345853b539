#pragma once
// A spec's arguments and launch geometry resolved for one problem and one parameter set:
// element counts, byte sizes, scalar values in the kernel's parameter layout, grid and block.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/compiler.h"
#include "core/evaluation.h"
#include "core/result.h"
#include "core/spec.h"

namespace kev {

struct ResolvedArg {
  std::size_t index = 0;              // into KernelSpec::args
  std::int64_t count = 0;             // pointers: elements
  std::size_t bytes = 0;              // pointers: count * element size
  std::vector<unsigned char> scalar;  // scalars: the value as the kernel receives it
};

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

// Names resolve to problem dimensions first, then integer parameters.
[[nodiscard]] Result<ResolvedProblem> resolve_problem(const KernelSpec& spec,
                                                      const ParamSet& params,
                                                      const Problem& problem);

}  // namespace kev
