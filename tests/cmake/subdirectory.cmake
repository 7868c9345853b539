# kernelevo_optimize through add_subdirectory and through FetchContent of a local path; the
# subproject defines kernelevo::kernelevo and leaks no compile_commands.json, install rules
# or glob re-checks into the consumer; the gate test holds the GPU lock and has a timeout.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
foreach(mode subdirectory fetchcontent)
  configure("${CMAKE_CURRENT_LIST_DIR}/consumer" "${WORK_DIR}/${mode}" -DCMAKE_CUDA_ARCHITECTURES=90
            "-DKERNELEVO_SOURCE=${SOURCE_DIR}" "-DMODE=${mode}")
  expect_contains("${configure_output}" "kernelevo: consumer_kernels: 1 marked source(s)" "${mode} configure")
  build_ok("${WORK_DIR}/${mode}" consumer_kernels)
  read_header("${WORK_DIR}/${mode}" consumer_kernels add_one.cu h)
  expect_contains("${h}" "#define ADD_ONE_BLOCK 128  // add_one / sm_90 / \"NVIDIA H200\"" "${mode} header")
  expect_contains("${configure_output}" "consumer: kernelevo::kernelevo is a target" "${mode} alias")
  if(EXISTS "${WORK_DIR}/${mode}/compile_commands.json")
    message(FATAL_ERROR "${mode}: the subproject wrote compile_commands.json into the consumer")
  endif()
  if(EXISTS "${WORK_DIR}/${mode}/CMakeFiles/VerifyGlobs.cmake")
    message(FATAL_ERROR "${mode}: the subproject's globs are re-checked in the consumer's build")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${WORK_DIR}/${mode}" --prefix "${WORK_DIR}/${mode}-prefix"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0 OR EXISTS "${WORK_DIR}/${mode}-prefix")
    message(FATAL_ERROR "${mode}: the consumer's install ran the subproject's rules:\n${out}")
  endif()
  execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" --show-only=json-v1 WORKING_DIRECTORY "${WORK_DIR}/${mode}"
                  OUTPUT_VARIABLE tests)
  string(JSON props GET "${tests}" tests 0 properties)
  expect_contains("${props}" "kernelevo_gpu" "${mode} gate test RESOURCE_LOCK")
  expect_contains("${props}" "\"TIMEOUT\"" "${mode} gate test timeout")
endforeach()
