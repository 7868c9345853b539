# Ninja Multi-Config with an option of one configuration ($<$<CONFIG:Debug>:-lineinfo>):
# the compile settings are written per configuration, and each build's JSON holds its own.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
set(GENERATOR "Ninja Multi-Config")
file(COPY "${CMAKE_CURRENT_LIST_DIR}/tiny/" DESTINATION "${WORK_DIR}/app")
configure("${WORK_DIR}/app" "${WORK_DIR}/build" -DCMAKE_CUDA_ARCHITECTURES=90
          "-DTINY_OPTIONS=$<$<CONFIG:Debug>:-lineinfo>")
foreach(config Debug Release)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/build" --config ${config} -j 2
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "build of ${config} failed:\n${out}")
  endif()
  set(json "${WORK_DIR}/build/kernelevo/compile_settings/tiny_kernels/${config}/add_one_cu.json")
  if(NOT EXISTS "${json}")
    message(FATAL_ERROR "no compile settings for ${config} at ${json}")
  endif()
  file(READ "${json}" ${config}_json)
endforeach()
expect_contains("${Debug_json}" "\"-lineinfo\"" "Debug compile settings")
expect_not_contains("${Release_json}" "-lineinfo" "Release compile settings")
# CUDA sources only: no settings written for the C++ language.
file(GLOB_RECURSE cxx "${WORK_DIR}/build/*compile_settings*.CXX.txt")
if(cxx)
  message(FATAL_ERROR "compile settings written for C++: ${cxx}")
endif()
