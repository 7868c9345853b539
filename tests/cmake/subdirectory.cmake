# kernelevo_optimize through add_subdirectory and through FetchContent of a local path.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
foreach(mode subdirectory fetchcontent)
  configure("${CMAKE_CURRENT_LIST_DIR}/consumer" "${WORK_DIR}/${mode}" -DCMAKE_CUDA_ARCHITECTURES=90
            "-DKERNELEVO_SOURCE=${SOURCE_DIR}" "-DMODE=${mode}")
  expect_contains("${configure_output}" "kernelevo: consumer_kernels: 1 marked source(s)" "${mode} configure")
  build_ok("${WORK_DIR}/${mode}" consumer_kernels)
  read_header("${WORK_DIR}/${mode}" consumer_kernels add_one.cu h)
  expect_contains("${h}" "#define ADD_ONE_BLOCK 128  // add_one / sm_90 / \"NVIDIA H200\"" "${mode} header")
endforeach()
