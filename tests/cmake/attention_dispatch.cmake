# attention_fwd.cu with a winner per batch (tests/cmake/attention_dispatch): the template copied
# by `kernelevo init --template attention_fwd --dispatch batch`, a lockfile with two buckets of
# batch for the Hopper prefill kernel (a block per query tile below a batch of 3, persistent
# blocks from 3) and the decode kernel (one schedule for a batch of 1, another from 2 whose
# splits merge in clusters of four), none for the other two kernels, built for sm_90a.
# attention_dispatch.cu static_asserts which variant each batch gets and defines the launchers
# attention_launch's main.cu calls; each variant's launcher is compiled once under its own
# name, the program links, and with an sm_90 GPU it runs both prefill schedules (its batch-3
# shapes take the persistent one) and the decode (batch 3: the clustered schedule), checked
# against attention in double (without one it says so and the test still proves the build).
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
# attention_launch's program beside this folder's project (no file of one over the other's:
# file(COPY) skips a file whose copy has the same time, as a fresh checkout gives them all).
file(COPY "${CMAKE_CURRENT_LIST_DIR}/attention_dispatch/" DESTINATION "${WORK_DIR}/app")
file(COPY "${CMAKE_CURRENT_LIST_DIR}/attention_launch/main.cu" DESTINATION "${WORK_DIR}/app")
set(app "${WORK_DIR}/app")
set(bin "${WORK_DIR}/build")
execute_process(COMMAND "${KERNELEVO}" init --template attention_fwd --dispatch batch templates/
                WORKING_DIRECTORY "${app}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kernelevo init failed:\n${out}")
endif()
file(SHA256 "${app}/templates/attention_fwd.cu" hash)
set(schedule "\"ATT90_BN\": 128, \"ATT90_CONSUMERS\": 2, \"ATT90_LAZY\": 1, \"ATT90_OVERLAP\": 1, \"ATT90_PINGPONG\": 1, \"ATT90_STAGES\": 2")
set(one "\"ATT_DEC_BLOCKS\": 132, \"ATT_DEC_BN\": 32, \"ATT_DEC_MIN_TILES\": 1, \"ATT_DEC_STAGES\": 1, \"ATT_DEC_WARPS_N\": 8")
set(many "\"ATT_DEC_BLOCKS\": 132, \"ATT_DEC_BN\": 32, \"ATT_DEC_CLUSTER\": 4, \"ATT_DEC_MIN_TILES\": 2, \"ATT_DEC_STAGES\": 3, \"ATT_DEC_WARPS_N\": 4")
file(WRITE "${app}/kernelevo.lock.json" "{
  \"kernels\": {
    \"attention_fwd_sm90\": {\"source\": \"templates/attention_fwd.cu\", \"source_hash\": \"sha256:${hash}\", \"targets\": {
      \"sm_90a\": {\"NVIDIA H100 80GB HBM3\": {\"by\": \"batch\", \"buckets\": [
        {\"params\": {${schedule}, \"ATT90_CTAS\": 0}, \"range\": [0, 3]},
        {\"params\": {${schedule}, \"ATT90_CTAS\": 132}, \"range\": [3, null]}]}}}},
    \"attention_decode_bf16\": {\"source\": \"templates/attention_fwd.cu\", \"source_hash\": \"sha256:${hash}\", \"targets\": {
      \"sm_90\": {\"NVIDIA H100 80GB HBM3\": {\"by\": \"batch\", \"buckets\": [
        {\"params\": {${one}}, \"range\": [0, 2]},
        {\"params\": {${many}}, \"range\": [2, null]}]}}}}
  },
  \"schema_version\": 3
}
")
configure("${app}" "${bin}")
build_ok("${bin}")

# Each kernel's launcher once per variant, under its variant's name; the template's own names
# only once, from attention_dispatch.cu.
find_program(NM nm REQUIRED)
execute_process(COMMAND "${NM}" "${bin}/libattention_kernels.a" OUTPUT_VARIABLE symbols)
foreach(kernel attention_fwd_bf16 attention_decode_bf16 attention_fwd_sm90 attention_fwd_sm90_f16)
  foreach(name ${kernel}_launch_kev0 ${kernel}_launch_kev1 ${kernel}_launch)
    expect_defined_once("${symbols}" ${name})
  endforeach()
endforeach()

run_on_sm90("${bin}/attention_launch")
