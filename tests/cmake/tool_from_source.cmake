# The example configured from a source checkout with no tool given: the module builds the
# tool from the tree it belongs to (decided when kernelevo_optimize() is called, not in the
# deferred step, where no subdirectory may be added). Configure and a dry run only: building
# the tool a second time is too slow for this suite.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
set(NO_TOOL ON)
configure("${SOURCE_DIR}/examples/softmax-app" "${WORK_DIR}/build" -DCMAKE_CUDA_ARCHITECTURES=90)
expect_contains("${configure_output}" "kernelevo: building the tool from ${SOURCE_DIR}" "configure")
expect_contains("${configure_output}" "kernelevo: softmax_kernels: 2 marked source(s)" "configure")
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/build" -- -n
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dry run failed:\n${out}")
endif()
expect_contains("${out}" "_kernelevo_tool/tool/kernelevo" "the tool is built first")
