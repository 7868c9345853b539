# One build for 80;90: each architecture's device code compiled with its own locked values
# (the cubins' launch bounds differ), host code reading the loaded image's at run time
# (rmsnorm), or dispatching to the variant of the loaded image and the problem's bucket
# (softmax: sm_90 has a winner per bucket of cols, sm_80 one entry).
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
copy_project(softmax-app app)
copy_project(softmax-app-multiarch multi)
file(MAKE_DIRECTORY "${WORK_DIR}/keep")
configure("${multi}" "${WORK_DIR}/build" "-DCMAKE_CUDA_FLAGS=--keep --keep-dir=${WORK_DIR}/keep")
build_ok("${WORK_DIR}/build" softmax_kernels)
read_header("${WORK_DIR}/build" softmax_kernels src/rmsnorm.cu r)
expect_contains("${r}" "#define RMSNORM_BLOCK 128  // rmsnorm_rows / sm_80 / \"NVIDIA A100-SXM4-80GB\"" "sm_80 value")
expect_contains("${r}" "#define RMSNORM_BLOCK 256  // rmsnorm_rows / sm_90 / \"NVIDIA H200\"" "sm_90 value")
expect_contains("${r}" "#define RMSNORM_BLOCK (::kernelevo_params::RMSNORM_BLOCK_value())" "host lookup")
expect_contains("${r}" "cudaFuncGetAttributes(&attr, probe)" "loaded image probe")
read_header("${WORK_DIR}/build" softmax_kernels src/softmax.cu h)
expect_contains("${h}" "  if (arch >= 900 && arch < 1000) {  // sm_90" "sm_90 buckets")
expect_contains("${h}" "{{0LL, 2048LL, true, 0}, {4096LL, 0LL, false, 1}}" "sm_90 buckets")
expect_contains("${h}" "  // sm_80 and any other architecture: softmax_rows: sm_80" "sm_80 entry")
expect_contains("${h}" "return softmax_rows_for_arch(::kernelevo_params::loaded_arch(), cols);" "loaded image")
# Outside the variants, SOFTMAX_BLOCK has no one value on sm_90: using it is an error.
expect_contains("${h}" "#define SOFTMAX_BLOCK (::kernelevo_params::SOFTMAX_BLOCK_has_a_winner_per_bucket())" "no one value")
expect_contains("${build_output}" "--generate-code=arch=compute_80,code=[compute_80,sm_80]" "sm_80 compile")
expect_contains("${build_output}" "--generate-code=arch=compute_90,code=[compute_90,sm_90]" "sm_90 compile")

# __launch_bounds__: each architecture's PTX records its own block size (rmsnorm), each
# variant of softmax its winner's (sm_90's two buckets, then sm_80's entry).
foreach(case "rmsnorm;compute_80;128" "rmsnorm;compute_90;256" "softmax_kev0;compute_90;128"
        "softmax_kev1;compute_90;512" "softmax_kev2;compute_80;1024")
  list(GET case 0 name)
  list(GET case 1 arch)
  list(GET case 2 threads)
  file(READ "${WORK_DIR}/keep/${name}.${arch}.ptx" ptx)
  expect_contains("${ptx}" ".maxntid ${threads}, 1, 1" "${arch} PTX of ${name}.cu")
endforeach()
