# A multi-architecture build (80;90) whose lockfile gives the architectures different
# values: host code outside the marked source that needs SCALE_BLOCK at compile time fails
# the build naming it (a .cu launcher: as a template argument; a .cpp launcher: any use,
# since a source nvcc does not compile cannot tell which device image loads), while a
# run-time read in a .cu launcher builds. In the marked source's own host code, a
# compile-time use fails the header step naming the source's line and the parameter, while
# the kernel's own uses (its body, __launch_bounds__) are no such use.
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

# A template argument in the marked source's own host code: the header step's check names
# the line and the parameter (nvcc's host pass alone would take sm_80's 128, silently).
configure("${app}" "${bin}" -DSPLIT_CASE=host_const -DSPLIT_CONST_SOURCE=scale.cu)
build("${bin}" CMakeFiles/split_kernels.dir/kernelevo/split_kernels/scale_cu/scale.cu.o)
if(build_rc EQUAL 0)
  message(FATAL_ERROR "expected scale.cu's host template argument to fail:\n${build_output}")
endif()
file(STRINGS "${app}/scale.cu" lines)
list(FIND lines "std::array<int, SCALE_BLOCK> scale_slots{};  // host code of the marked source" index)
math(EXPR line "${index} + 1")
expect_contains("${build_output}"
  "kernelevo: scale.cu:${line}: error: uses SCALE_BLOCK at compile time in host code, but the built architectures lock different values of SCALE_BLOCK (sm_80: 128, sm_90: 512)"
  "scale.cu: the line and the parameter")
# A host use of a constant derived from SCALE_BLOCK (which the kernel itself uses, with each
# architecture's value): named with the line it is declared on.
configure("${app}" "${bin}" -DSPLIT_CASE=host_derived)
build("${bin}" CMakeFiles/split_kernels.dir/kernelevo/split_kernels/scale_cu/scale.cu.o)
if(build_rc EQUAL 0)
  message(FATAL_ERROR "expected scale.cu's host use of kBlock to fail:\n${build_output}")
endif()
list(FIND lines "int scale_block_on_host() { return scale_detail::kBlock; }  // host code of the marked source" index)
math(EXPR line "${index} + 1")
list(FIND lines "constexpr int kBlock = SCALE_BLOCK;  // each architecture's device code gets its own value" index)
math(EXPR declared "${index} + 1")
expect_contains("${build_output}"
  "kernelevo: scale.cu:${line}: error: uses kBlock (derived from SCALE_BLOCK on line ${declared}) in host code"
  "scale.cu: the derived constant's use")
# Fixed (no such use): the marked source builds again.
configure("${app}" "${bin}" -DSPLIT_CASE=none)
build_ok("${bin}" CMakeFiles/split_kernels.dir/kernelevo/split_kernels/scale_cu/scale.cu.o)
