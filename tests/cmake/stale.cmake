# An edited marked source makes its lockfile entries stale: the build keeps the values the
# spec allows and warns, naming the kernel and the command to run; STRICT fails the build.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
copy_project(softmax-app app)
file(APPEND "${app}/src/softmax.cu" "// an edit after tuning\n")
configure("${app}" "${WORK_DIR}/build" -DCMAKE_CUDA_ARCHITECTURES=90)
build_ok("${WORK_DIR}/build" softmax_kernels)
expect_contains("${build_output}" "kernelevo: warning: src/softmax.cu: kernel softmax_rows:" "stale warning")
expect_contains("${build_output}" "Run `kernelevo tune src/softmax.cu --kernel softmax_rows`" "what to run")
expect_not_contains("${build_output}" "kernel rmsnorm_rows:" "rmsnorm is not stale")
read_variant("${WORK_DIR}/build" softmax_kernels src/softmax.cu 1 v1)
expect_contains("${v1}" "#define SOFTMAX_BLOCK 512\n" "stale values kept")

configure("${app}" "${WORK_DIR}/strict" -DCMAKE_CUDA_ARCHITECTURES=90 -DKERNELEVO_STRICT=ON)
build("${WORK_DIR}/strict" softmax_kernels)
if(build_rc EQUAL 0)
  message(FATAL_ERROR "STRICT build passed with a stale entry:\n${build_output}")
endif()
expect_contains("${build_output}" "kernel softmax_rows was tuned on another version of src/softmax.cu" "strict error")
