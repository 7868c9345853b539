# KERNELEVO_REQUIRE_GPU is read when the gate test runs, not only when configuring: without a
# GPU, plain `ctest` skips the `kernelevo` tests and `KERNELEVO_REQUIRE_GPU=1 ctest` fails
# them; configuring with -DKERNELEVO_REQUIRE_GPU=ON still fails them too. Needs no build.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
copy_project(softmax-app app)
set(bin "${WORK_DIR}/build")
unset(ENV{KERNELEVO_REQUIRE_GPU})  # the environment this test itself runs in must not leak
configure("${app}" "${bin}" -DCMAKE_CUDA_ARCHITECTURES=90)

# With a GPU the gate runs for real: nothing to prove here.
execute_process(COMMAND "${KERNELEVO}" devices WORKING_DIRECTORY "${app}"
                RESULT_VARIABLE devices_rc OUTPUT_QUIET ERROR_QUIET)
if(devices_rc EQUAL 0)
  message(STATUS "SKIPPED: a GPU is present; this test proves the behaviour without one")
  return()
endif()

function(run_gate env_value out_rc out_text)
  if(env_value STREQUAL "")
    unset(ENV{KERNELEVO_REQUIRE_GPU})
  else()
    set(ENV{KERNELEVO_REQUIRE_GPU} "${env_value}")
  endif()
  execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" -L kernelevo --output-on-failure
                  WORKING_DIRECTORY "${bin}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  unset(ENV{KERNELEVO_REQUIRE_GPU})
  set(${out_rc} "${rc}" PARENT_SCOPE)
  set(${out_text} "${out}" PARENT_SCOPE)
endfunction()

function(expect_skipped env_value what)
  run_gate("${env_value}" rc out)
  expect_contains("${out}" "kernelevo.check.softmax_kernels" "${what}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "Skipped")
    message(FATAL_ERROR "${what}: the gate test must be skipped without a GPU:\n${out}")
  endif()
endfunction()

function(expect_failed env_value what)
  run_gate("${env_value}" rc out)
  if(rc EQUAL 0 OR NOT out MATCHES "Failed" OR out MATCHES "Skipped")
    message(FATAL_ERROR "${what}: the gate test must fail without a GPU:\n${out}")
  endif()
  expect_contains("${out}" "a missing GPU fails the check" "${what}")
endfunction()

# Configured without it: the environment of the test run decides.
expect_skipped("" "plain ctest")
expect_skipped("0" "KERNELEVO_REQUIRE_GPU=0 ctest")
expect_failed("1" "KERNELEVO_REQUIRE_GPU=1 ctest")
expect_failed("ON" "KERNELEVO_REQUIRE_GPU=ON ctest")

# Configured with it: fails whatever the environment says.
configure("${app}" "${bin}" -DKERNELEVO_REQUIRE_GPU=ON)
expect_failed("" "configured with KERNELEVO_REQUIRE_GPU=ON, plain ctest")
