# A program calling a shipped template's launchers (tests/cmake/gemm_sm90_launch): gemm_sm90
# copied by `kernelevo init --template gemm_sm90 --dispatch M`, a lockfile with two buckets of
# M for the bf16 and fp8 kernels (the H100 tune's winners: split-K clusters for M < 64, the
# persistent kernel with TMA stores above; for fp8 above, pairs of CTAs multicasting B), built
# for sm_90a. Each variant's launcher is
# compiled once under its own name, the program links, and with an sm_90 GPU it runs: the
# variant each M picks, checked against a product in double (without one it says so and the
# test still proves the build).
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
file(COPY "${CMAKE_CURRENT_LIST_DIR}/gemm_sm90_launch/" DESTINATION "${WORK_DIR}/app")
set(app "${WORK_DIR}/app")
set(bin "${WORK_DIR}/build")
execute_process(COMMAND "${KERNELEVO}" init --template gemm_sm90 --dispatch M templates/
                WORKING_DIRECTORY "${app}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kernelevo init failed:\n${out}")
endif()
file(SHA256 "${app}/templates/gemm_sm90.cu" hash)
set(small_bf16 "\"G90_BF16_BN\": 192, \"G90_BF16_CONSUMERS\": 1, \"G90_BF16_GROUP_M\": 16, \"G90_BF16_MW\": 1, \"G90_BF16_PERSISTENT\": 0, \"G90_BF16_PRODUCERS\": 0, \"G90_BF16_SPLIT\": 4, \"G90_BF16_STAGES\": 4, \"G90_BF16_TMA\": 1")
set(large_bf16 "\"G90_BF16_BN\": 256, \"G90_BF16_CONSUMERS\": 2, \"G90_BF16_GROUP_M\": 8, \"G90_BF16_MW\": 1, \"G90_BF16_PERSISTENT\": 1, \"G90_BF16_PRODUCERS\": 1, \"G90_BF16_SPLIT\": 1, \"G90_BF16_STAGES\": 3, \"G90_BF16_TMA\": 1")
set(small_fp8 "\"G90_FP8_BN\": 64, \"G90_FP8_CONSUMERS\": 1, \"G90_FP8_GROUP_M\": 1, \"G90_FP8_MW\": 1, \"G90_FP8_PERSISTENT\": 1, \"G90_FP8_PRODUCERS\": 1, \"G90_FP8_SPLIT\": 1, \"G90_FP8_STAGES\": 6, \"G90_FP8_TMA\": 1")
# fp8's large bucket: pairs of CTAs in clusters of two, B multicast (G90_FP8_MCAST).
set(large_fp8 "\"G90_FP8_BN\": 256, \"G90_FP8_CONSUMERS\": 2, \"G90_FP8_GROUP_M\": 8, \"G90_FP8_MCAST\": 2, \"G90_FP8_MW\": 1, \"G90_FP8_PERSISTENT\": 0, \"G90_FP8_PRODUCERS\": 1, \"G90_FP8_SPLIT\": 1, \"G90_FP8_STAGES\": 3, \"G90_FP8_TMA\": 1")
file(WRITE "${app}/kernelevo.lock.json" "{
  \"kernels\": {
    \"gemm_sm90_bf16\": {\"source\": \"templates/gemm_sm90.cu\", \"source_hash\": \"sha256:${hash}\", \"targets\": {
      \"sm_90a\": {\"NVIDIA H100 80GB HBM3\": {\"by\": \"M\", \"buckets\": [
        {\"params\": {${small_bf16}}, \"range\": [0, 64]},
        {\"params\": {${large_bf16}}, \"range\": [64, null]}]}}}},
    \"gemm_sm90_fp8\": {\"source\": \"templates/gemm_sm90.cu\", \"source_hash\": \"sha256:${hash}\", \"targets\": {
      \"sm_90a\": {\"NVIDIA H100 80GB HBM3\": {\"by\": \"M\", \"buckets\": [
        {\"params\": {${small_fp8}}, \"range\": [0, 64]},
        {\"params\": {${large_fp8}}, \"range\": [64, null]}]}}}}
  },
  \"schema_version\": 3
}
")
configure("${app}" "${bin}")
build_ok("${bin}")

# Each kernel's launcher once per variant, under its variant's name, and never the original.
find_program(NM nm REQUIRED)
execute_process(COMMAND "${NM}" "${bin}/libgemm_kernels.a" OUTPUT_VARIABLE symbols)
foreach(k 0 1)
  foreach(kernel gemm_sm90_f16 gemm_sm90_bf16 gemm_sm90_bf16_gelu gemm_sm90_fp8)
    expect_defined_once("${symbols}" ${kernel}_launch_kev${k})
  endforeach()
endforeach()
if(symbols MATCHES " T gemm_sm90_(f16|bf16|bf16_gelu|fp8)_launch\n")
  message(FATAL_ERROR "an original launcher name was compiled:\n${symbols}")
endif()

run_on_sm90("${bin}/gemm_launch")
