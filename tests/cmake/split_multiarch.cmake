# A multi-architecture build (80;90) whose lockfile gives the architectures different
# values: host code outside the marked source that needs SCALE_BLOCK at compile time fails
# the build naming it (a .cu launcher: as a template argument; a .cpp launcher: any use,
# since a source nvcc does not compile cannot tell which device image loads), while a
# run-time read in a .cu launcher builds.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/split_lock.cmake)
file(COPY "${CMAKE_CURRENT_LIST_DIR}/split/" DESTINATION "${WORK_DIR}/app")
set(app "${WORK_DIR}/app")
set(bin "${WORK_DIR}/build")
write_lock("${app}" "sm_80=128" "sm_90=512")
configure("${app}" "${bin}" -DSPLIT_ARCHS=80,90 -DSPLIT_CASE=none)

# geometry.cu reads SCALE_BLOCK at run time only: it builds.
build_ok("${bin}" CMakeFiles/split_kernels.dir/geometry.cu.o)
# launch.cpp, compiled by the host compiler alone, cannot use it at all.
build("${bin}" CMakeFiles/split_kernels.dir/launch.cpp.o)
if(build_rc EQUAL 0)
  message(FATAL_ERROR "expected launch.cpp to fail:\n${build_output}")
endif()
expect_contains("${build_output}" "SCALE_BLOCK_value" "launch.cpp: the parameter named")
expect_contains("${build_output}" "SCALE_BLOCK differs between the built architectures (sm_80: 128, sm_90: 512)"
                "launch.cpp: why")

# A template argument in the .cu launcher: an error naming the parameter.
configure("${app}" "${bin}" -DSPLIT_CASE=host_const -DSPLIT_CONST_SOURCE=geometry.cu)
build("${bin}" CMakeFiles/split_kernels.dir/geometry.cu.o)
if(build_rc EQUAL 0)
  message(FATAL_ERROR "expected geometry.cu's template argument to fail:\n${build_output}")
endif()
# (nvcc's front end says the value is no constant, quoting the expanded parameter.)
expect_contains("${build_output}" "geometry.cu(10): error" "geometry.cu: the line")
expect_contains("${build_output}" "kernelevo_params::SCALE_BLOCK_value()" "geometry.cu: the parameter")

# The marked source itself builds (each architecture's device code its own value).
build_ok("${bin}" CMakeFiles/split_kernels.dir/kernelevo/split_kernels/scale_cu/scale.cu.o)
