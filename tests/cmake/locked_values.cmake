# The generated headers hold the locked sm_90 values, for device and host code (rmsnorm: one
# winner; softmax: a winner per bucket of cols, each compiled in a slot of its own with a
# dispatcher in the header), and the marked sources' compile settings reach the tuner's JSON.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
copy_project(softmax-app app)
configure("${app}" "${WORK_DIR}/build" -DCMAKE_CUDA_ARCHITECTURES=90)
expect_contains("${configure_output}" "kernelevo: softmax_kernels: 2 marked source(s)" "configure")
build_ok("${WORK_DIR}/build" softmax_kernels)
read_header("${WORK_DIR}/build" softmax_kernels src/rmsnorm.cu r)
expect_contains("${r}" "#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1000  // sm_90" "device branch")
expect_contains("${r}" "#define RMSNORM_BLOCK 256  // rmsnorm_rows / sm_90 / \"NVIDIA H200\" (only device)" "device value")
expect_contains("${r}" "#define RMSNORM_VEC 4  // every built architecture: rmsnorm_rows / sm_90" "host value")
expect_not_contains("${r}" "SOFTMAX" "rmsnorm's header")
read_header("${WORK_DIR}/build" softmax_kernels src/softmax.cu h)
expect_contains("${h}" "// softmax_rows: 2 compiled variants, by cols" "dispatch")
expect_contains("${h}" "{{0LL, 2048LL, true, 0}, {4096LL, 0LL, false, 1}}" "sm_90 buckets")
expect_not_contains("${h}" "RMSNORM" "softmax's header")
read_variant("${WORK_DIR}/build" softmax_kernels src/softmax.cu 0 v0)
expect_contains("${v0}" "serves sm_90 cols [0, 2048)" "slot 0")
expect_contains("${v0}" "#define SOFTMAX_BLOCK 128\n#define SOFTMAX_ROW_THREADS 64\n" "slot 0")
expect_contains("${v0}" "#define softmax_rows_launch softmax_rows_launch_kev0\n" "slot 0 renames the launcher")
read_variant("${WORK_DIR}/build" softmax_kernels src/softmax.cu 1 v1)
expect_contains("${v1}" "serves sm_90 cols [4096, inf)" "slot 1")
expect_contains("${v1}" "#define SOFTMAX_BLOCK 512\n#define SOFTMAX_ROW_THREADS 256\n" "slot 1")
compiled_objects("${build_output}" objects)
foreach(o softmax_kev0.cu softmax_kev1.cu softmax_launch.cu rmsnorm.cu)
  if(NOT o IN_LIST objects)
    message(FATAL_ERROR "${o} was not compiled: ${objects}")
  endif()
endforeach()
expect_not_contains("${build_output}" "/softmax.cu.o" "the dispatching source compiled besides its slots")
# The include directory belongs to the marked source alone.
expect_contains("${build_output}" "-I${WORK_DIR}/build/kernelevo/softmax_kernels/src_softmax_cu " "nvcc command")
set(settings "${WORK_DIR}/build/kernelevo/compile_settings/softmax_kernels/src_softmax_cu.json")
file(READ "${settings}" json)
expect_contains("${json}" "\"cuda_architectures\": \"90\"" "compile settings")
expect_contains("${json}" "\"${app}/src\"" "compile settings include dirs")
expect_not_contains("${json}" "kernelevo/softmax_kernels/src_softmax_cu" "compile settings (no generated header dir)")

# What the GitHub Action does: configure (which makes the compile settings folder), then
# build kernelevo-params alone, which writes every marked source's settings and compiles
# nothing else.
configure("${app}" "${WORK_DIR}/build-settings" -DCMAKE_CUDA_ARCHITECTURES=90)
if(NOT IS_DIRECTORY "${WORK_DIR}/build-settings/kernelevo/compile_settings")
  message(FATAL_ERROR "configuring made no kernelevo/compile_settings folder")
endif()
build_ok("${WORK_DIR}/build-settings" kernelevo-params)
foreach(source src_softmax_cu src_rmsnorm_cu)
  if(NOT EXISTS "${WORK_DIR}/build-settings/kernelevo/compile_settings/softmax_kernels/${source}.json")
    message(FATAL_ERROR "kernelevo-params wrote no compile settings for ${source}")
  endif()
endforeach()
expect_not_contains("${build_output}" ".cu.o" "kernelevo-params (compiles no object)")

# The gate test: registered with label `kernelevo`; without a GPU it is skipped, unless
# KERNELEVO_REQUIRE_GPU is set, when it fails.
execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" -L kernelevo WORKING_DIRECTORY "${WORK_DIR}/build"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
expect_contains("${out}" "kernelevo.check.softmax_kernels" "ctest -L kernelevo")
string(FIND "${out}" "Skipped" skipped)
if(NOT skipped EQUAL -1)
  configure("${app}" "${WORK_DIR}/build" -DKERNELEVO_REQUIRE_GPU=ON)
  execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" -L kernelevo WORKING_DIRECTORY "${WORK_DIR}/build"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0 OR NOT out MATCHES "Failed")
    message(FATAL_ERROR "with KERNELEVO_REQUIRE_GPU and no GPU the gate must fail:\n${out}")
  endif()
endif()
