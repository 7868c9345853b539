#pragma once
// A spec's tensor map argument encoded for the buffer the runner passes
// (cuTensorMapEncodeTiled): dense strides, no interleave, out-of-bounds elements read as zeros,
// 256-byte L2 promotion. Where the tensor cannot be described (core/arg_layout.h's
// tensor_map_unusable) the map is all zeros, which the kernel must recognise by the same rule.
#include <cuda.h>

#include <string>

#include "core/arg_layout.h"
#include "core/result.h"

namespace kev::cuda {

[[nodiscard]] Result<CUtensorMap> encode_tensor_map(const ResolvedTensorMap& map,
                                                    CUdeviceptr address, const std::string& name);

}  // namespace kev::cuda
