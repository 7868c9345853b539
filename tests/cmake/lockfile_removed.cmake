# Removing the lockfile after configuring builds the source defaults with a warning (no
# missing-file error), and the lockfile is picked up again when it returns; with each
# generator available.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
available_generators(generators)
foreach(GENERATOR IN LISTS generators)
  string(MAKE_C_IDENTIFIER "${GENERATOR}" g)
  file(COPY "${CMAKE_CURRENT_LIST_DIR}/tiny/" DESTINATION "${WORK_DIR}/${g}/app")
  set(app "${WORK_DIR}/${g}/app")
  set(bin "${WORK_DIR}/${g}/build")
  configure("${app}" "${bin}" -DCMAKE_CUDA_ARCHITECTURES=90)
  build_ok("${bin}")
  read_header("${bin}" tiny_kernels add_one.cu h)
  expect_contains("${h}" "#define ADD_ONE_BLOCK 128" "${GENERATOR}: locked value")

  file(RENAME "${app}/kernelevo.lock.json" "${WORK_DIR}/${g}/saved.lock.json")
  build_ok("${bin}")
  expect_contains("${build_output}" "no lockfile at" "${GENERATOR}: warning without the lockfile")
  read_header("${bin}" tiny_kernels add_one.cu h)
  expect_not_contains("${h}" "#define ADD_ONE_BLOCK" "${GENERATOR}: source defaults")
  build_ok("${bin}")  # and the build stays clean without it

  file(RENAME "${WORK_DIR}/${g}/saved.lock.json" "${app}/kernelevo.lock.json")
  build_ok("${bin}")
  read_header("${bin}" tiny_kernels add_one.cu h)
  expect_contains("${h}" "#define ADD_ONE_BLOCK 128" "${GENERATOR}: lockfile back")
endforeach()
