#include "cuda/tensor_map.h"

#include "cuda/driver.h"

namespace kev::cuda {
namespace {

CUtensorMapDataType data_type(ScalarType t) {
  switch (t) {
    case ScalarType::f16:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case ScalarType::bf16:
      return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case ScalarType::f32:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case ScalarType::f64:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    case ScalarType::i32:
      return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case ScalarType::u32:
      return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    case ScalarType::i64:
      return CU_TENSOR_MAP_DATA_TYPE_INT64;
    case ScalarType::u64:
      return CU_TENSOR_MAP_DATA_TYPE_UINT64;
    case ScalarType::i16:
    case ScalarType::u16:
      return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case ScalarType::i8:
    case ScalarType::u8:
    case ScalarType::fp8_e4m3:
      return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

CUtensorMapSwizzle swizzle_mode(int bytes) {
  switch (bytes) {
    case 32:
      return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64:
      return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128:
      return CU_TENSOR_MAP_SWIZZLE_128B;
    default:
      return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

}  // namespace

Result<CUtensorMap> encode_tensor_map(const ResolvedTensorMap& map, CUdeviceptr address,
                                      const std::string& name) {
  CUtensorMap out{};
  if (!tensor_map_unusable(map, address).empty()) return out;
  cuuint64_t dims[5] = {}, strides[4] = {};
  cuuint32_t box[5] = {}, element_strides[5] = {1, 1, 1, 1, 1};
  for (unsigned d = 0; d < map.rank; ++d) {
    dims[d] = map.dims[d];
    box[d] = map.box[d];
    if (d + 1 < map.rank) strides[d] = map.strides[d];
  }
  const CUresult r = cuTensorMapEncodeTiled(
      &out, data_type(map.type), map.rank, reinterpret_cast<void*>(address), dims, strides, box,
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_mode(map.swizzle),
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return make_error("tensor map '" + name + "' refused by the driver: " + driver_error(r));
  return out;
}

}  // namespace kev::cuda
