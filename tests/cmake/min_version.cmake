# The stated minimum CMake versions hold: the module stops on a CMake older than 3.21 with
# that message, and kernelevo itself (installed, add_subdirectory, FetchContent) asks 3.25.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
file(WRITE "${WORK_DIR}/old.cmake" "set(CMAKE_VERSION 3.20.6)\ninclude(\"${SOURCE_DIR}/cmake/KernelEvo.cmake\")\n")
execute_process(COMMAND "${CMAKE_COMMAND}" -P "${WORK_DIR}/old.cmake"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "the module accepted CMake 3.20:\n${out}")
endif()
expect_contains("${out}" "kernelevo_optimize needs CMake 3.21 or newer" "module minimum")
file(WRITE "${WORK_DIR}/new.cmake" "set(CMAKE_VERSION 3.21.0)\ninclude(\"${SOURCE_DIR}/cmake/KernelEvo.cmake\")\nmessage(STATUS \"module loaded\")\n")
execute_process(COMMAND "${CMAKE_COMMAND}" -P "${WORK_DIR}/new.cmake"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
expect_contains("${out}" "module loaded" "the module on CMake 3.21")
file(READ "${SOURCE_DIR}/CMakeLists.txt" top)
string(REGEX MATCH "cmake_minimum_required\\(VERSION ([0-9.]+)" _ "${top}")
if(NOT CMAKE_MATCH_1 STREQUAL "3.25")
  message(FATAL_ERROR "kernelevo's CMakeLists.txt asks CMake ${CMAKE_MATCH_1}, the docs say 3.25")
endif()
