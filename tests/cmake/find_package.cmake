# `cmake --install` of kernelevo (the tool then finds its installed templates), then a
# separate project finds it with find_package and its build runs the installed tool.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${KERNELEVO_BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed:\n${out}")
endif()
foreach(f bin/kernelevo lib/cmake/kernelevo/kernelevoConfig.cmake lib/cmake/kernelevo/KernelEvo.cmake
          share/kernelevo/templates/softmax.cu)
  if(NOT EXISTS "${WORK_DIR}/prefix/${f}")
    message(FATAL_ERROR "not installed: ${f}\n${out}")
  endif()
endforeach()
# The installed tool finds its installed templates (not the source tree it was built from).
execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=KERNELEVO_TEMPLATES_DIR
                        "${WORK_DIR}/prefix/bin/kernelevo" init --list
                RESULT_VARIABLE rc OUTPUT_VARIABLE list ERROR_VARIABLE list_err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installed kernelevo init --list failed:\n${list}${list_err}")
endif()
expect_contains("${list_err}" "templates in ${WORK_DIR}/prefix/share/kernelevo/templates" "installed templates used")
if(NOT list MATCHES "(^|\n)softmax +Row softmax")
  message(FATAL_ERROR "installed templates listed: no softmax line in\n${list}")
endif()
copy_project(softmax-app app)
set(NO_TOOL TRUE)
configure("${app}" "${WORK_DIR}/build" -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix")
file(STRINGS "${WORK_DIR}/build/CMakeCache.txt" dir REGEX "^kernelevo_DIR:")
expect_contains("${dir}" "${WORK_DIR}/prefix/lib/cmake/kernelevo" "find_package found the installed package")
build_ok("${WORK_DIR}/build" softmax_kernels)
expect_contains("${build_output}" "${WORK_DIR}/prefix/bin/kernelevo header --source src/softmax.cu" "installed tool runs")
read_header("${WORK_DIR}/build" softmax_kernels src/softmax.cu h)
expect_contains("${h}" "#define SOFTMAX_BLOCK 256" "header")
