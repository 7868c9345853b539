# A program calling attention_fwd.cu's launchers (tests/cmake/attention_launch): the template
# copied by `kernelevo init --template attention_fwd`, built for sm_90a at its source defaults.
# Each launcher is compiled once, the program links, and with an sm_90 GPU it runs every
# kernel on small grouped-query shapes, causal and not, checked against attention in double
# (without one it says so and the test still proves the build).
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
file(COPY "${CMAKE_CURRENT_LIST_DIR}/attention_launch/" DESTINATION "${WORK_DIR}/app")
set(app "${WORK_DIR}/app")
set(bin "${WORK_DIR}/build")
execute_process(COMMAND "${KERNELEVO}" init --template attention_fwd templates/
                WORKING_DIRECTORY "${app}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kernelevo init failed:\n${out}")
endif()
configure("${app}" "${bin}")
build_ok("${bin}")
find_program(NM nm REQUIRED)
execute_process(COMMAND "${NM}" "${bin}/libattention_kernels.a" OUTPUT_VARIABLE symbols)
foreach(launcher attention_fwd_bf16_launch attention_decode_bf16_launch attention_fwd_sm90_launch
                 attention_fwd_sm90_f16_launch)
  expect_contains("${symbols}" " T ${launcher}\n" "the launchers")
endforeach()
run_on_sm90("${bin}/attention_launch")
