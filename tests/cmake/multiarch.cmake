# One build for 80;90: each architecture's device code compiled with its own locked values
# (the cubins' launch bounds differ), host code reading the loaded image's at run time.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
copy_project(softmax-app app)
copy_project(softmax-app-multiarch multi)
file(MAKE_DIRECTORY "${WORK_DIR}/keep")
configure("${multi}" "${WORK_DIR}/build" "-DCMAKE_CUDA_FLAGS=--keep --keep-dir=${WORK_DIR}/keep")
build_ok("${WORK_DIR}/build" softmax_kernels)
read_header("${WORK_DIR}/build" softmax_kernels src/softmax.cu h)
expect_contains("${h}" "#define SOFTMAX_BLOCK 1024  // softmax_rows / sm_80 / \"NVIDIA A100-SXM4-80GB\"" "sm_80 value")
expect_contains("${h}" "#define SOFTMAX_BLOCK 256  // softmax_rows / sm_90 / \"NVIDIA H200\"" "sm_90 value")
expect_contains("${h}" "#define SOFTMAX_BLOCK (::kernelevo_params::SOFTMAX_BLOCK_value())" "host lookup")
expect_contains("${h}" "cudaFuncGetAttributes(&attr, probe)" "loaded image probe")
expect_contains("${build_output}" "--generate-code=arch=compute_80,code=[compute_80,sm_80]" "sm_80 compile")
expect_contains("${build_output}" "--generate-code=arch=compute_90,code=[compute_90,sm_90]" "sm_90 compile")

# __launch_bounds__(SOFTMAX_BLOCK): each architecture's PTX records its own block size.
foreach(pair "compute_80;1024" "compute_90;256")
  list(GET pair 0 arch)
  list(GET pair 1 threads)
  file(READ "${WORK_DIR}/keep/softmax.${arch}.ptx" ptx)
  expect_contains("${ptx}" ".maxntid ${threads}, 1, 1" "${arch} PTX of softmax.cu")
endforeach()
