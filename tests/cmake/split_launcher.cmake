# A launcher in another file of the target than its marked kernel (a .cpp and a .cu reading
# the block size through the header the kernel reads) builds the tuned value too, checked
# by static_asserts at compile time; a source that defines the tuned parameter without
# #ifndef fails the build naming the file, line and parameter.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)

include(${CMAKE_CURRENT_LIST_DIR}/split_lock.cmake)

file(COPY "${CMAKE_CURRENT_LIST_DIR}/split/" DESTINATION "${WORK_DIR}/app")
set(app "${WORK_DIR}/app")
set(bin "${WORK_DIR}/build")
write_lock("${app}" "sm_90=512")

# Both launchers see the tuned 512 (the source default is 256).
configure("${app}" "${bin}" -DCMAKE_CUDA_ARCHITECTURES=90 -DSPLIT_EXPECT_BLOCK=512
          -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
build_ok("${bin}")
expect_contains("${build_output}" "kernelevo/target_params.h" "launchers get the generated values")

# The check is live: expecting the source default fails both launchers' static_asserts.
configure("${app}" "${bin}" -DSPLIT_EXPECT_BLOCK=256)
build("${bin}")
if(build_rc EQUAL 0)
  message(FATAL_ERROR "expected the launchers' static_asserts to fail:\n${build_output}")
endif()
expect_contains("${build_output}" "launch.cpp does not see the kernel's block size" "launch.cpp")
expect_contains("${build_output}" "geometry.cu does not see the kernel's block size" "geometry.cu")

# Without the lockfile every source builds the default again.
file(REMOVE "${app}/kernelevo.lock.json")
build_ok("${bin}")
expect_contains("${build_output}" "no lockfile at" "defaults without the lockfile")

# A source defining SCALE_BLOCK without #ifndef: the header step fails, naming it.
write_lock("${app}" "sm_90=512")
configure("${app}" "${bin}" -DSPLIT_CASE=mismatch)
build("${bin}")
if(build_rc EQUAL 0)
  message(FATAL_ERROR "expected the unguarded SCALE_BLOCK to fail the build:\n${build_output}")
endif()
expect_contains("${build_output}" "legacy_launch.cpp:2: error: defines SCALE_BLOCK without `#ifndef SCALE_BLOCK`"
                "the mismatch names file, line and parameter")
# Guarded, it builds with the tuned value.
file(READ "${app}/legacy_launch.cpp" legacy)
string(REPLACE "#define SCALE_BLOCK 256" "#ifndef SCALE_BLOCK\n#define SCALE_BLOCK 256\n#endif" legacy "${legacy}")
file(WRITE "${app}/legacy_launch.cpp" "${legacy}")
build_ok("${bin}")
