# A target listing a marked Triton .py source builds its locked configuration ahead of time:
# the generated launcher and CUBIN are compiled into the program (examples/triton-app), the
# configuration follows the lockfile, and a rebuild after a lockfile edit recompiles it.
# Needs an interpreter with triton (KERNELEVO_PYTHON, or the tree's .venv-triton); skipped
# without one.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
if(NOT "$ENV{KERNELEVO_PYTHON}" STREQUAL "")
  set(python "$ENV{KERNELEVO_PYTHON}")
elseif(EXISTS "${SOURCE_DIR}/.venv-triton/bin/python")
  set(python "${SOURCE_DIR}/.venv-triton/bin/python")
else()
  message(STATUS "SKIPPED: no interpreter with triton (set KERNELEVO_PYTHON)")
  return()
endif()
execute_process(COMMAND "${python}" -c "import triton" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(STATUS "SKIPPED: ${python} cannot import triton")
  return()
endif()
set(ENV{KERNELEVO_PYTHON} "${python}")
copy_project(triton-app app)
file(REMOVE "${app}/kernelevo.lock.json")
# Two architectures: a list cannot pass through configure()'s arguments, an initial cache can.
file(WRITE "${WORK_DIR}/archs.cmake" "set(CMAKE_CUDA_ARCHITECTURES \"80;90\" CACHE STRING \"\")\n")
configure("${app}" "${WORK_DIR}/build" -C "${WORK_DIR}/archs.cmake")
expect_contains("${configure_output}" "triton_app: 2 marked source(s)" "configure message")
build_ok("${WORK_DIR}/build")
set(gen "${WORK_DIR}/build/kernelevo/triton_app/kernels_softmax_triton_py")
file(READ "${gen}/softmax_triton_triton.h" h)
expect_contains("${h}" "CUresult softmax_rows_triton_launch(CUstream stream, const float* x, float* y, int32_t rows, int32_t cols);" "launcher declaration")
file(READ "${gen}/softmax_triton_triton.cpp" cpp)
expect_contains("${cpp}" "BLOCK=1024 num_stages=3 num_warps=4 (sm_80)" "defaults for sm_80")
expect_contains("${cpp}" "BLOCK=1024 num_stages=3 num_warps=4 (sm_90)" "defaults for sm_90")
expect_contains("${cpp}" "{90, kImage1, \"softmax_rows_triton\", 128u," "sm_90 image, 4 warps")
if(NOT EXISTS "${WORK_DIR}/build/triton_app")
  message(FATAL_ERROR "the program was not linked")
endif()

# A locked winner for sm_90 is what the next build embeds.
file(WRITE "${app}/kernelevo.lock.json" [=[
{
  "kernels": {
    "softmax_rows_triton": {
      "source": "kernels/softmax_triton.py",
      "source_hash": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
      "targets": {
        "sm_90": {
          "NVIDIA H200": {
            "params": {"BLOCK": 4096, "num_stages": 2, "num_warps": 16},
            "tuned_with": "not measured: a test value"
          }
        }
      }
    }
  },
  "schema_version": 1
}
]=])
configure("${app}" "${WORK_DIR}/build")
build_ok("${WORK_DIR}/build")
file(READ "${gen}/softmax_triton_triton.cpp" cpp)
expect_contains("${cpp}" "BLOCK=4096 num_stages=2 num_warps=16 (sm_90)" "the locked sm_90 winner")
expect_contains("${cpp}" "BLOCK=1024 num_stages=3 num_warps=4 (sm_80)" "sm_80 keeps the defaults")
expect_contains("${cpp}" "{90, kImage1, \"softmax_rows_triton\", 512u," "16 warps: 512 threads")

# A locked entry whose values are each listed but whose combination breaks a constraint
# (BLOCK >= 32 * num_warps: 256 < 512) is refused, not compiled.
file(READ "${app}/kernelevo.lock.json" good_lock)
string(REPLACE "\"BLOCK\": 4096" "\"BLOCK\": 256" bad_lock "${good_lock}")
file(WRITE "${app}/kernelevo.lock.json" "${bad_lock}")
build("${WORK_DIR}/build")
if(build_rc EQUAL 0)
  message(FATAL_ERROR "a lockfile breaking the constraints was built:\n${build_output}")
endif()
expect_contains("${build_output}" "BLOCK=256, num_stages=2, num_warps=16 break the constraint \"BLOCK >= 32 * num_warps\"" "the broken constraint named")
file(WRITE "${app}/kernelevo.lock.json" "${good_lock}")

# A winner per bucket of cols (the spec's dispatch) builds each bucket's configuration, and the
# launcher picks the image by the cols argument; two buckets with one winner share an image.
file(WRITE "${app}/kernelevo.lock.json" [=[
{
  "kernels": {
    "softmax_rows_triton": {
      "source": "kernels/softmax_triton.py",
      "source_hash": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
      "targets": {
        "sm_90": {
          "NVIDIA H200": {
            "by": "cols",
            "buckets": [
              {"params": {"BLOCK": 1024, "num_stages": 2, "num_warps": 4}, "range": [1024, 1025]},
              {"params": {"BLOCK": 8192, "num_stages": 1, "num_warps": 16}, "range": [8192, 8193]},
              {"params": {"BLOCK": 8192, "num_stages": 1, "num_warps": 16}, "range": [16384, 16385]}
            ],
            "tuned_with": "not measured: a test value"
          }
        }
      }
    }
  },
  "schema_version": 3
}
]=])
build_ok("${WORK_DIR}/build")
file(READ "${gen}/softmax_triton_triton.cpp" cpp)
expect_contains("${cpp}" "cols [1024, 1025): BLOCK=1024 num_stages=2 num_warps=4; cols [8192, 8193): BLOCK=8192 num_stages=1 num_warps=16; cols [16384, 16385): BLOCK=8192 num_stages=1 num_warps=16 (sm_90)" "every bucket's winner")
expect_contains("${cpp}" "true, 16384LL, 16385LL, true}," "the last bucket's range")
expect_contains("${cpp}" "CUresult r = load(static_cast<long long>(cols), &f, &image);" "picked by cols")
expect_contains("${cpp}" "BLOCK=1024 num_stages=3 num_warps=4 (sm_80)" "sm_80 keeps the defaults")
if(cpp MATCHES "const unsigned char kImage3\\[")
  message(FATAL_ERROR "buckets with one winner were embedded twice")
endif()

# Buckets of another dimension than the spec's dispatch, and a bucket whose winner breaks a
# constraint, are refused with the kernel and the bucket named; nothing is compiled for them.
file(READ "${app}/kernelevo.lock.json" bucketed_lock)
string(REPLACE "\"by\": \"cols\"" "\"by\": \"rows\"" other_dim "${bucketed_lock}")
file(WRITE "${app}/kernelevo.lock.json" "${other_dim}")
build("${WORK_DIR}/build")
if(build_rc EQUAL 0)
  message(FATAL_ERROR "buckets of rows were built for a spec dispatching by cols:\n${build_output}")
endif()
expect_contains("${build_output}" "softmax_rows_triton (sm_90) has buckets of 'rows', its spec dispatches by 'cols'" "the dimension named")
string(REPLACE "\"BLOCK\": 1024, \"num_stages\": 2, \"num_warps\": 4" "\"BLOCK\": 256, \"num_stages\": 2, \"num_warps\": 16" broken "${bucketed_lock}")
file(WRITE "${app}/kernelevo.lock.json" "${broken}")
build("${WORK_DIR}/build")
if(build_rc EQUAL 0)
  message(FATAL_ERROR "a bucket breaking the constraints was built:\n${build_output}")
endif()
expect_contains("${build_output}" "softmax_rows_triton sm_90 cols [1024, 1025): BLOCK=256, num_stages=2, num_warps=16 break the constraint" "the bucket named")
file(WRITE "${app}/kernelevo.lock.json" "${bucketed_lock}")

# num_ctas > 1: each program is a thread-block cluster; the launcher launches clusters of
# that many CTAs (cuLaunchKernelEx), for the configuration that has them only.
file(WRITE "${app}/kernelevo.lock.json" [=[
{
  "kernels": {
    "bias_gelu_triton": {
      "source": "kernels/bias_gelu_triton.py",
      "source_hash": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
      "targets": {
        "sm_90": {
          "NVIDIA H200": {
            "params": {"BLOCK_C": 1024, "BLOCK_R": 4, "num_ctas": 2, "num_warps": 4},
            "tuned_with": "not measured: a test value"
          }
        }
      }
    }
  },
  "schema_version": 3
}
]=])
build_ok("${WORK_DIR}/build")
file(READ "${WORK_DIR}/build/kernelevo/triton_app/kernels_bias_gelu_triton_py/bias_gelu_triton_triton.cpp" gelu)
# (block, shared memory, CTAs per program, configuration)
expect_contains("${gelu}" "u, 2u, \"BLOCK_C=1024 BLOCK_R=4 num_ctas=2 num_warps=4 (sm_90)\"" "two CTAs per program on sm_90")
expect_contains("${gelu}" "u, 1u, \"BLOCK_C=1024 BLOCK_R=4 num_ctas=1 num_warps=4 (sm_80)\"" "no cluster on sm_80")
expect_contains("${gelu}" "return cuLaunchKernelEx(&config, f, params, nullptr);" "a cluster launch")
