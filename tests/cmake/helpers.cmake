# Shared steps of the CMake integration tests (run with cmake -P). Expects:
#   KERNELEVO   the kernelevo binary under test
#   SOURCE_DIR  the kernelevo source tree
#   WORK_DIR    a scratch directory of this test (emptied first)
cmake_minimum_required(VERSION 3.25)
foreach(v KERNELEVO SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "pass -D${v}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# Copies an example (or any project) into the work dir; returns its new path.
function(copy_project name out)
  file(COPY "${SOURCE_DIR}/examples/${name}" DESTINATION "${WORK_DIR}")
  set(${out} "${WORK_DIR}/${name}" PARENT_SCOPE)
endfunction()

# Configures `src` into `bin` with ${GENERATOR} (default Ninja) and the tool under test;
# extra args pass through.
# Sets <out>_output (stdout+stderr) and fails unless configure succeeds.
function(configure src bin)
  set(tool "-DKERNELEVO_EXECUTABLE=${KERNELEVO}")
  if(NO_TOOL)  # let the project find the tool itself
    set(tool "")
  endif()
  set(cuda "")
  if(CUDA_COMPILER)
    set(cuda "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}")
  endif()
  if(NOT GENERATOR)
    set(GENERATOR Ninja)
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${src}" -B "${bin}" -G "${GENERATOR}" ${tool} ${cuda}
                          "-DKERNELEVO_MODULE=${SOURCE_DIR}/cmake/KernelEvo.cmake" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configure of ${src} failed:\n${out}")
  endif()
  set(configure_output "${out}" PARENT_SCOPE)
endfunction()

# Builds `bin` (optionally some targets); sets build_rc and build_output.
function(build bin)
  set(targets "")
  if(ARGN)
    set(targets --target ${ARGN})
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${bin}" -j 2 --verbose ${targets}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  # File times tick with the kernel's coarse clock (4 ms here): an edit made right after a
  # build can carry the same mtime as the build's last output, and ninja then calls that
  # output up to date. No person edits that fast; a test must wait a few ticks.
  execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 0.05)
  set(build_rc "${rc}" PARENT_SCOPE)
  set(build_output "${out}" PARENT_SCOPE)
endfunction()

function(build_ok bin)
  build("${bin}" ${ARGN})
  if(NOT build_rc EQUAL 0)
    message(FATAL_ERROR "build of ${bin} failed:\n${build_output}")
  endif()
  set(build_output "${build_output}" PARENT_SCOPE)
endfunction()

function(expect_contains text needle what)
  string(FIND "${text}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: expected to find\n  ${needle}\nin:\n${text}")
  endif()
endfunction()

# `symbols` (nm's output) defines function `name` exactly once.
function(expect_defined_once symbols name)
  string(REGEX MATCHALL " T ${name}\n" found "${symbols}")
  list(LENGTH found n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "${name} defined ${n} times:\n${symbols}")
  endif()
endfunction()

function(expect_not_contains text needle what)
  string(FIND "${text}" "${needle}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${what}: did not expect\n  ${needle}\nin:\n${text}")
  endif()
endfunction()

# A file the header step generated for an example source ("src/softmax.cu") of `target` in
# build dir `bin`, at `relative` inside that source's folder (a configuration's subfolder
# with multi-config generators).
function(read_generated bin target source relative what out)
  string(MAKE_C_IDENTIFIER "${source}" id)
  file(GLOB_RECURSE found "${bin}/*/kernelevo/${target}/${id}/${relative}"
                          "${bin}/kernelevo/${target}/${id}/${relative}")
  if(NOT found)
    message(FATAL_ERROR "no generated ${what} for ${source} under ${bin}")
  endif()
  list(GET found 0 path)
  file(READ "${path}" text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The generated params.h of an example source.
function(read_header bin target source out)
  read_generated("${bin}" "${target}" "${source}" kernelevo/params.h params.h text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Slot K of a dispatching example source ("src/softmax.cu": variants/softmax_kev<K>.cu),
# the file the build compiles for that source's K-th distinct winner.
function(read_variant bin target source k out)
  get_filename_component(name_we "${source}" NAME_WE)
  read_generated("${bin}" "${target}" "${source}" "variants/${name_we}_kev${k}.cu" "slot ${k}" text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Names of the objects the last build compiled (ninja -v prints each command).
function(compiled_objects output out)
  string(REGEX MATCHALL "-o [^ ]+\\.(cu|cpp)\\.o" hits "${output}")
  set(names "")
  foreach(h IN LISTS hits)
    string(REGEX REPLACE ".*/([^/]+\\.(cu|cpp))\\.o$" "\\1" name "${h}")
    list(APPEND names "${name}")
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

# Ninja, and Unix Makefiles where make is installed: the single-config generators a test
# tries in turn.
function(available_generators out)
  set(g Ninja)
  find_program(MAKE_PROGRAM make)
  if(MAKE_PROGRAM)
    list(APPEND g "Unix Makefiles")
  endif()
  set(${out} "${g}" PARENT_SCOPE)
endfunction()

# Runs `program`, a test project's program that checks itself on an sm_90 GPU: exit 0 passes,
# 2 means no such GPU here (said, and the build is what the run proves), anything else fails.
function(run_on_sm90 program)
  get_filename_component(name "${program}" NAME)
  execute_process(COMMAND "${program}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out
                  TIMEOUT 300)
  message(STATUS "${out}")
  if(rc EQUAL 2)
    message(STATUS "${name} not run on a GPU (none with sm_90 here); its build is what this run proves")
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} failed (${rc}):\n${out}")
  endif()
endfunction()
