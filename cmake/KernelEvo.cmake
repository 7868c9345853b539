# kernelevo_optimize(<target> [KERNELS files...] [LOCKFILE path] [DEVICE name] [STRICT] [NO_TESTS])
#
# The one line a CUDA project adds (DESIGN.md section 8). For every marked .cu source of
# <target> (a `@kernelevo` block, found at configure time without touching a GPU):
#   - a build step writes kernelevo/params.h from the lockfile into an include directory of
#     that source alone (rewritten only when its content changes, so editing the lockfile
#     recompiles the marked sources and nothing else);
#   - its real compile settings (include directories, defines, options) are written to
#     <build>/kernelevo/compile_settings/<target>/<source>.json for the tuner;
#   - the target compiles, in its place, the variant `kernelevo evolve` recorded in the
#     lockfile while the variant is current, else the original (chosen at build time).
# The target's other C++/CUDA sources get every marked source's params.h first (-include),
# so a launcher in a file of its own builds the same values; one defining a tuned
# parameter without #ifndef fails the build (docs/build-integration.md).
# Targets kernelevo-tune, kernelevo-check and kernelevo-report run the tool on the marked
# sources; CTest tests labelled `kernelevo` run the gate (skipped without a GPU unless
# KERNELEVO_REQUIRE_GPU is set, at configure time or in the environment of the ctest run).
#
# Settings (cache or normal variables): KERNELEVO_EXECUTABLE (the tool to run),
# KERNELEVO_DEVICE (default DEVICE), KERNELEVO_STRICT, KERNELEVO_REQUIRE_GPU,
# KERNELEVO_TUNE_ARGS (a list appended to kernelevo-tune's command, e.g. --budget;40).
include_guard(GLOBAL)
if(CMAKE_VERSION VERSION_LESS 3.21)
  message(FATAL_ERROR "kernelevo_optimize needs CMake 3.21 or newer")
endif()

set(KERNELEVO_EXECUTABLE "" CACHE FILEPATH "The kernelevo tool to run (empty: find or build it)")
set(KERNELEVO_DEVICE "" CACHE STRING "Device whose lockfile entries builds use where an architecture has several")
option(KERNELEVO_STRICT "A lockfile entry tuned on another version of its source fails the build" OFF)
option(KERNELEVO_REQUIRE_GPU "kernelevo tests fail, rather than skip, without a GPU" OFF)
set(KERNELEVO_TEST_TIMEOUT 1800 CACHE STRING "Seconds a kernelevo gate test may run")
set(KERNELEVO_DISPATCH_SLOTS 4 CACHE STRING
    "Variants compiled of each marked source with `dispatch` (at least its distinct winners)")
set(KERNELEVO_TUNE_ARGS "" CACHE STRING
    "Arguments appended to kernelevo-tune's `kernelevo tune` (a list: --strategy;auto;--budget;40)")

# The tool, as a command-line word, and the target to depend on (empty for a prebuilt one):
# KERNELEVO_EXECUTABLE, else an installed package's kernelevo::kernelevo, else the in-tree
# `kernelevo` target, else one on PATH, else built from the source tree holding this module.
function(_kernelevo_tool out_command out_target)
  if(KERNELEVO_EXECUTABLE)
    set(${out_command} "${KERNELEVO_EXECUTABLE}" PARENT_SCOPE)
    set(${out_target} "" PARENT_SCOPE)
    return()
  endif()
  foreach(candidate kernelevo::kernelevo kernelevo)
    if(TARGET ${candidate})
      get_target_property(imported ${candidate} IMPORTED)
      get_target_property(aliased ${candidate} ALIASED_TARGET)
      if(aliased)
        set(candidate ${aliased})
      endif()
      set(${out_command} "$<TARGET_FILE:${candidate}>" PARENT_SCOPE)
      if(imported)
        set(${out_target} "" PARENT_SCOPE)
      else()
        set(${out_target} ${candidate} PARENT_SCOPE)
      endif()
      return()
    endif()
  endforeach()
  find_program(KERNELEVO_FOUND_EXECUTABLE kernelevo)
  if(KERNELEVO_FOUND_EXECUTABLE)
    set(${out_command} "${KERNELEVO_FOUND_EXECUTABLE}" PARENT_SCOPE)
    set(${out_target} "" PARENT_SCOPE)
    return()
  endif()
  get_property(root GLOBAL PROPERTY _KERNELEVO_SOURCE_ROOT)
  if(NOT root OR NOT EXISTS "${root}/tool/CMakeLists.txt")
    message(FATAL_ERROR "kernelevo: no kernelevo tool found: install it, put it on PATH, "
                        "or set KERNELEVO_EXECUTABLE")
  endif()
  message(STATUS "kernelevo: building the tool from ${root}")
  add_subdirectory("${root}" "${CMAKE_BINARY_DIR}/_kernelevo_tool" EXCLUDE_FROM_ALL)
  set(${out_command} "$<TARGET_FILE:kernelevo>" PARENT_SCOPE)
  set(${out_target} kernelevo PARENT_SCOPE)
endfunction()
# The source tree this module belongs to, when it is one (add_subdirectory, FetchContent).
get_filename_component(_kernelevo_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
if(EXISTS "${_kernelevo_root}/tool/CMakeLists.txt")
  set_property(GLOBAL PROPERTY _KERNELEVO_SOURCE_ROOT "${_kernelevo_root}")
endif()
unset(_kernelevo_root)

function(kernelevo_optimize target)
  cmake_parse_arguments(PARSE_ARGV 1 KE "STRICT;NO_TESTS" "LOCKFILE;DEVICE" "KERNELS")
  if(KE_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kernelevo_optimize: unexpected arguments: ${KE_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "kernelevo_optimize: ${target} is not a target")
  endif()
  get_target_property(done ${target} KERNELEVO_OPTIMIZED)
  if(done)
    message(FATAL_ERROR "kernelevo_optimize: called twice for ${target}")
  endif()
  if(NOT KE_LOCKFILE)
    set(KE_LOCKFILE "${PROJECT_SOURCE_DIR}/kernelevo.lock.json")
  endif()
  get_filename_component(KE_LOCKFILE "${KE_LOCKFILE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT KE_DEVICE)
    set(KE_DEVICE "${KERNELEVO_DEVICE}")
  endif()
  if(KERNELEVO_STRICT)
    set(KE_STRICT TRUE)
  endif()
  set(kernels "")
  foreach(k IN LISTS KE_KERNELS)
    get_filename_component(k "${k}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND kernels "${k}")
  endforeach()
  # Decided now, not in the deferred step: building the tool adds a subdirectory, which
  # deferred calls may not.
  _kernelevo_tool(tool tool_target)
  set_target_properties(${target} PROPERTIES
    KERNELEVO_OPTIMIZED TRUE
    KERNELEVO_TOOL "${tool}"
    KERNELEVO_TOOL_TARGET "${tool_target}"
    KERNELEVO_LOCKFILE "${KE_LOCKFILE}"
    KERNELEVO_DEVICE "${KE_DEVICE}"
    KERNELEVO_STRICT "${KE_STRICT}"
    KERNELEVO_NO_TESTS "${KE_NO_TESTS}"
    KERNELEVO_KERNELS "${kernels}"
    KERNELEVO_PROJECT_DIR "${PROJECT_SOURCE_DIR}")
  # Sources added later in this directory count too: the work runs when it is done.
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _kernelevo_finalize [[${target}]])")
endfunction()

# The target's .cu (and Triton .py) sources holding a `@kernelevo` mark, as absolute paths.
function(_kernelevo_marked_sources target out)
  get_target_property(listed ${target} KERNELEVO_KERNELS)
  get_target_property(target_dir ${target} SOURCE_DIR)
  get_target_property(sources ${target} SOURCES)
  set(marked "")
  if(listed)
    set(marked "${listed}")
  elseif(sources)
    foreach(src IN LISTS sources)
      if(src MATCHES "\\$<" OR NOT src MATCHES "\\.(cu|py)$")
        continue()
      endif()
      get_filename_component(path "${src}" ABSOLUTE BASE_DIR "${target_dir}")
      if(EXISTS "${path}")
        file(STRINGS "${path}" marks REGEX "@kernelevo" LIMIT_COUNT 1)
        if(marks)
          list(APPEND marked "${path}")
        endif()
      endif()
    endforeach()
  endif()
  list(REMOVE_DUPLICATES marked)
  set(${out} "${marked}" PARENT_SCOPE)
endfunction()

# The compile settings of one source, as "key<TAB>value" lines, evaluated by CMake at
# generate time (generator expressions, transitive usage requirements); `kernelevo header`
# turns them into JSON.
function(_kernelevo_write_settings target src gen_dir out_file)
  set(tp "$<TARGET_PROPERTY:${target},")
  get_source_file_property(src_includes "${src}" TARGET_DIRECTORY ${target} INCLUDE_DIRECTORIES)
  get_source_file_property(src_defines "${src}" TARGET_DIRECTORY ${target} COMPILE_DEFINITIONS)
  get_source_file_property(src_options "${src}" TARGET_DIRECTORY ${target} COMPILE_OPTIONS)
  foreach(v src_includes src_defines src_options)
    if(NOT ${v})
      set(${v} "")
    endif()
  endforeach()
  separate_arguments(flags NATIVE_COMMAND "${CMAKE_CUDA_FLAGS}")
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  set(configs "${CMAKE_BUILD_TYPE}")
  if(multi_config)
    set(configs ${CMAKE_CONFIGURATION_TYPES})
  endif()
  # Values known now go inside generator expressions: escape what would end one early.
  foreach(v src_includes src_defines src_options flags)
    string(REPLACE ">" "$<ANGLE-R>" ${v} "${${v}}")
    string(REPLACE "," "$<COMMA>" ${v} "${${v}}")
  endforeach()
  foreach(config IN LISTS configs)
    string(TOUPPER "${config}" upper)
    separate_arguments(config_flags NATIVE_COMMAND "${CMAKE_CUDA_FLAGS_${upper}}")
    string(REPLACE ">" "$<ANGLE-R>" config_flags "${config_flags}")
    string(REPLACE "," "$<COMMA>" config_flags "${config_flags}")
    if(config_flags)
      string(REPLACE ";" "$<SEMICOLON>" config_flags "${config_flags}")
      list(APPEND flags "$<$<CONFIG:${config}>:${config_flags}>")
    endif()
  endforeach()
  set(content "source\t${src}\ntarget\t${target}\ncompiler\t${CMAKE_CUDA_COMPILER}\n")
  string(APPEND content "compiler_launcher\t${CMAKE_CUDA_COMPILER_LAUNCHER}\n")
  string(APPEND content "cuda_architectures\t${tp}CUDA_ARCHITECTURES>\n")
  string(APPEND content "cuda_standard\t${tp}CUDA_STANDARD>\n")
  foreach(pair "include;${tp}INCLUDE_DIRECTORIES>" "include;${src_includes}"
               "define;${tp}COMPILE_DEFINITIONS>" "define;${src_defines}"
               "option;${flags}" "option;${tp}COMPILE_OPTIONS>" "option;${src_options}")
    list(POP_FRONT pair key)
    if(pair)
      string(APPEND content "$<$<BOOL:${pair}>:${key}\t$<JOIN:${pair},\n${key}\t>\n>")
    endif()
  endforeach()
  # $<COMPILE_LANGUAGE> in the name: options may hold $<COMPILE_LANGUAGE:CUDA> expressions,
  # which CMake evaluates per language; the tuner wants the CUDA file alone. `gen_dir` holds
  # $<CONFIG> with a multi-config generator: options may differ per configuration.
  file(GENERATE OUTPUT "${gen_dir}/compile_settings.$<COMPILE_LANGUAGE>.txt" CONTENT "${content}"
       CONDITION "$<COMPILE_LANGUAGE:CUDA>")
  set(${out_file} "${gen_dir}/compile_settings.CUDA.txt" PARENT_SCOPE)
endfunction()

# The originals the target compiles through generated stand-ins, in an object library that
# is never built: compile_commands.json then lists each original with the target's settings,
# for IDEs and tools that look a file up by its path.
function(_kernelevo_ide_sources target originals)
  if(NOT originals OR NOT CMAKE_EXPORT_COMPILE_COMMANDS)
    return()
  endif()
  set(ide kernelevo-ide-${target})
  add_library(${ide} OBJECT EXCLUDE_FROM_ALL ${originals})
  set(tp "$<TARGET_PROPERTY:${target},")
  target_include_directories(${ide} PRIVATE "${tp}INCLUDE_DIRECTORIES>")
  target_compile_definitions(${ide} PRIVATE "${tp}COMPILE_DEFINITIONS>")
  target_compile_options(${ide} PRIVATE "${tp}COMPILE_OPTIONS>")
  foreach(prop CUDA_ARCHITECTURES CUDA_STANDARD CUDA_STANDARD_REQUIRED CXX_STANDARD
               CUDA_SEPARABLE_COMPILATION POSITION_INDEPENDENT_CODE)
    get_target_property(value ${target} ${prop})
    if(NOT value STREQUAL "value-NOTFOUND")
      set_property(TARGET ${ide} PROPERTY ${prop} "${value}")
    endif()
  endforeach()
endfunction()

function(_kernelevo_finalize target)
  _kernelevo_marked_sources(${target} marked)
  if(NOT marked)
    message(STATUS "kernelevo: no marked kernels among the .cu sources of ${target}")
    return()
  endif()
  # Triton kernels (.py) are compiled ahead of time into C++ (below); the rest is for .cu.
  set(marked_py "")
  foreach(src IN LISTS marked)
    if(src MATCHES "\\.py$")
      list(APPEND marked_py "${src}")
    endif()
  endforeach()
  if(marked_py)
    list(REMOVE_ITEM marked ${marked_py})
  endif()
  foreach(p LOCKFILE DEVICE STRICT NO_TESTS PROJECT_DIR TOOL TOOL_TARGET)
    get_target_property(${p} ${target} KERNELEVO_${p})
  endforeach()
  set(tool "${TOOL}")
  set(tool_target "${TOOL_TARGET}")
  get_target_property(target_bin ${target} BINARY_DIR)
  get_target_property(archs ${target} CUDA_ARCHITECTURES)
  if(NOT archs)
    set(archs "")
  endif()

  # The lockfile is no direct dependency of the build steps, which may outlive it: their
  # depfiles name it while it exists, else the directory it would appear in.
  if(NOT EXISTS "${LOCKFILE}")
    # A lockfile created later must reach the build: watch the directory it will appear in.
    get_filename_component(lock_dir "${LOCKFILE}" DIRECTORY)
    if(IS_DIRECTORY "${lock_dir}")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${lock_dir}")
    endif()
    message(STATUS "kernelevo: no lockfile at ${LOCKFILE}; ${target}'s marked kernels build "
                   "with their source defaults")
  endif()
  # Like the lockfile, a project kernelevo.yaml reaches the steps through their depfiles
  # alone, so removing it after configuring does not stop the build.
  set(spec_args "")
  if(EXISTS "${PROJECT_DIR}/kernelevo.yaml")
    set(spec_args --spec "${PROJECT_DIR}/kernelevo.yaml")
  endif()
  set(options "")
  if(DEVICE)
    list(APPEND options --device "${DEVICE}")
  endif()
  if(STRICT)
    list(APPEND options --strict)
  endif()

  # The target compiles, for each marked source it lists, a generated file in the source's
  # place: the variant `kernelevo evolve` recorded while it is current, else an #include of
  # the original (`kernelevo select-source`, at build time). The original leaves the
  # target's SOURCES (not HEADER_FILE_ONLY, a property every target of its directory
  # shares) and stays a dependency through the #include and the selection step.
  get_target_property(target_dir ${target} SOURCE_DIR)
  get_target_property(target_sources ${target} SOURCES)
  set(kept_sources "")
  set(replaced "")
  foreach(s IN LISTS target_sources)
    if(NOT s MATCHES "\\$<")
      get_filename_component(path "${s}" ABSOLUTE BASE_DIR "${target_dir}")
      if(path IN_LIST marked)
        list(APPEND replaced "${path}")
        continue()
      endif()
    endif()
    list(APPEND kept_sources "${s}")
  endforeach()
  # The target's other C++ and CUDA sources (a host launcher in a file of its own) build with
  # the same values: each gets every marked source's header first (-include), so the values
  # win over their `#ifndef` defaults, and the header steps fail where one defines a tuned
  # parameter without that guard (kernelevo header --other-source).
  set(other_sources "")
  foreach(s IN LISTS kept_sources)
    if(NOT s MATCHES "\\$<" AND s MATCHES "\\.(cu|cpp|cc|cxx|c\\+\\+|C)$")
      get_filename_component(path "${s}" ABSOLUTE BASE_DIR "${target_dir}")
      list(APPEND other_sources "${path}")
    endif()
  endforeach()
  set(other_args "")
  foreach(s IN LISTS other_sources)
    list(APPEND other_args --other-source "${s}")
  endforeach()
  set(select_options "")
  if(STRICT)
    list(APPEND select_options --strict)
  endif()

  # With a multi-config generator the header steps and compile settings are per
  # configuration (its options may differ), in a <config> folder; params.h does not depend
  # on the configuration, but each configuration's step writes its own.
  set(cfg "")
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config)
    set(cfg "/$<CONFIG>")
  endif()
  set(stamps "")
  set(all_headers "")
  set(selected_sources "")
  set(relative_sources "")
  set(settings_dir "${CMAKE_BINARY_DIR}/kernelevo/compile_settings/${target}${cfg}")
  # Made at configure time: it tells a configure's caller (the GitHub Action) that building
  # kernelevo-params writes the compile settings there.
  file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/kernelevo/compile_settings")
  foreach(src IN LISTS marked)
    file(RELATIVE_PATH rel "${PROJECT_DIR}" "${src}")
    list(APPEND relative_sources "${rel}")
    string(MAKE_C_IDENTIFIER "${rel}" id)
    set(gen_dir "${target_bin}/kernelevo/${target}/${id}")
    set(header_dir "${gen_dir}${cfg}")
    set(header "${header_dir}/kernelevo/params.h")
    set(stamp "${header_dir}/params.stamp")
    # OBJECT_DEPENDS takes no $<CONFIG>: per configuration, the target's dependency on the
    # header steps orders the first build and the compiler's depfile covers later ones.
    set(object_depends "${header}")
    if(multi_config)
      set(object_depends "")
    endif()
    # A source with `dispatch` (its spec, or the project kernelevo.yaml, says so) is compiled
    # once per distinct winner: KERNELEVO_DISPATCH_SLOTS files, written by the header step,
    # take the source's place (those beyond its variants are empty).
    set(variant_files "")
    set(variant_args "")
    if(src IN_LIST replaced AND NOT multi_config)
      file(STRINGS "${src}" dispatch_lines REGEX "^[ \t]*dispatch:" LIMIT_COUNT 1)
      if(NOT dispatch_lines AND EXISTS "${PROJECT_DIR}/kernelevo.yaml")
        file(STRINGS "${PROJECT_DIR}/kernelevo.yaml" dispatch_lines REGEX "dispatch:" LIMIT_COUNT 1)
      endif()
      if(dispatch_lines)
        get_filename_component(name_we "${src}" NAME_WE)
        math(EXPR last "${KERNELEVO_DISPATCH_SLOTS} - 1")
        foreach(k RANGE ${last})
          list(APPEND variant_files "${gen_dir}/variants/${name_we}_kev${k}.cu")
          list(APPEND variant_args --variant-file "${gen_dir}/variants/${name_we}_kev${k}.cu")
        endforeach()
        get_filename_component(name "${src}" NAME)
        list(APPEND variant_args --variant-include "${gen_dir}/${name}")
      endif()
    endif()
    _kernelevo_write_settings(${target} "${src}" "${header_dir}" raw_settings)
    cmake_policy(PUSH)
    cmake_policy(SET CMP0116 NEW)
    add_custom_command(
      OUTPUT "${stamp}"
      BYPRODUCTS "${header}" "${settings_dir}/${id}.json" ${variant_files}
      COMMAND ${tool} header --source "${rel}" --out "${header_dir}" --lockfile "${LOCKFILE}"
              --archs "${archs}" ${options} ${spec_args} ${other_args} ${variant_args}
              --settings "${raw_settings}" --settings-json "${settings_dir}/${id}.json"
              --depfile "${header_dir}/params.d" --depfile-target "${stamp}"
      COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
      DEPENDS "${src}" ${other_sources} ${tool_target} "${raw_settings}"
      DEPFILE "${header_dir}/params.d"
      WORKING_DIRECTORY "${PROJECT_DIR}"
      COMMENT "kernelevo: tuned parameters for ${rel}"
      VERBATIM)
    cmake_policy(POP)
    list(APPEND stamps "${stamp}")
    string(APPEND all_headers "#include \"${header}\"\n")
    if(NOT src IN_LIST replaced)
      # Not among the target's plain SOURCES (a generator expression, or KERNELS naming a
      # file the target does not list): compiled as it is, without variant selection.
      set_property(SOURCE "${src}" TARGET_DIRECTORY ${target} APPEND PROPERTY INCLUDE_DIRECTORIES "${header_dir}")
      set_property(SOURCE "${src}" TARGET_DIRECTORY ${target} APPEND PROPERTY OBJECT_DEPENDS "${object_depends}")
      continue()
    endif()
    # Named like the original, so objects and compile commands keep its name.
    get_filename_component(name "${src}" NAME)
    set(selected "${gen_dir}/${name}")
    set(select_stamp "${gen_dir}/select.stamp")
    set(select_depfile "${gen_dir}/select.d")
    # The depfile names the variant files and the lockfile, so editing one re-runs the
    # selection; its paths are absolute, which CMP0116 (NEW) handles for every generator.
    cmake_policy(PUSH)
    cmake_policy(SET CMP0116 NEW)
    add_custom_command(
      OUTPUT "${select_stamp}"
      BYPRODUCTS "${selected}"
      COMMAND ${tool} select-source --source "${rel}" --out "${selected}" --lockfile "${LOCKFILE}"
              --depfile "${select_depfile}" --depfile-target "${select_stamp}" ${select_options}
              ${spec_args}
      COMMAND "${CMAKE_COMMAND}" -E touch "${select_stamp}"
      DEPENDS "${src}" ${tool_target}
      DEPFILE "${select_depfile}"
      WORKING_DIRECTORY "${PROJECT_DIR}"
      COMMENT "kernelevo: source to build for ${rel}"
      VERBATIM)
    cmake_policy(POP)
    foreach(prop COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FLAGS INCLUDE_DIRECTORIES OBJECT_DEPENDS LANGUAGE)
      get_source_file_property(value "${src}" TARGET_DIRECTORY ${target} ${prop})
      if(value)
        set_property(SOURCE "${selected}" TARGET_DIRECTORY ${target} PROPERTY ${prop} "${value}")
      endif()
    endforeach()
    # (select-source makes a variant's "..." includes of headers beside the original
    # absolute: the original's directory as an include directory would also change where
    # its <...> includes are found.)
    set_property(SOURCE "${selected}" TARGET_DIRECTORY ${target} APPEND PROPERTY
                 INCLUDE_DIRECTORIES "${header_dir}")
    set_property(SOURCE "${selected}" TARGET_DIRECTORY ${target} APPEND PROPERTY OBJECT_DEPENDS "${object_depends}")
    set_property(SOURCE "${selected}" TARGET_DIRECTORY ${target} PROPERTY GENERATED TRUE)
    list(APPEND stamps "${select_stamp}")
    if(variant_files)
      foreach(f IN LISTS variant_files)
        foreach(prop COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FLAGS INCLUDE_DIRECTORIES OBJECT_DEPENDS)
          get_source_file_property(value "${selected}" TARGET_DIRECTORY ${target} ${prop})
          if(value)
            set_property(SOURCE "${f}" TARGET_DIRECTORY ${target} PROPERTY ${prop} "${value}")
          endif()
        endforeach()
        set_property(SOURCE "${f}" TARGET_DIRECTORY ${target} PROPERTY LANGUAGE CUDA)
        set_property(SOURCE "${f}" TARGET_DIRECTORY ${target} PROPERTY GENERATED TRUE)
      endforeach()
      list(APPEND selected_sources ${variant_files})
    else()
      list(APPEND selected_sources "${selected}")
    endif()
  endforeach()
  if(selected_sources)
    set_property(TARGET ${target} PROPERTY SOURCES ${kept_sources} ${selected_sources})
  endif()
  if(other_sources)
    set(all_params "${target_bin}/kernelevo/${target}/other_sources${cfg}/kernelevo/target_params.h")
    file(GENERATE OUTPUT "${all_params}" CONTENT
         "// The tuned values of ${target}'s marked sources, for its other sources (generated by\n// kernelevo_optimize; do not edit).\n#pragma once\n#define KERNELEVO_PARAMS_OTHER_SOURCE 1\n${all_headers}")
    # One word each (joined forms), so option de-duplication cannot take the file away.
    set(cxx_include "-include${all_params}")
    if(MSVC)
      set(cxx_include "/FI${all_params}")
    endif()
    foreach(s IN LISTS other_sources)
      set(force_include "${cxx_include}")
      if(s MATCHES "\\.cu$")
        set(force_include "--pre-include=${all_params}")
      endif()
      set_property(SOURCE "${s}" TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS "${force_include}")
    endforeach()
  endif()
  _kernelevo_ide_sources(${target} "${replaced}")

  # Each marked .py source: its Triton kernels' locked configurations compiled for the
  # target's architectures (`kernelevo triton-build`, at build time, with Python and triton
  # but no GPU) into <stem>_triton.cpp, the CUBINs as byte arrays and a launcher through the
  # CUDA driver API, which the target compiles and links: the program needs no Python.
  # <stem>_triton.h declares <kernel id>_launch(stream, args...) and <kernel id>_config().
  foreach(src IN LISTS marked_py)
    file(RELATIVE_PATH rel "${PROJECT_DIR}" "${src}")
    list(APPEND relative_sources "${rel}")
    string(MAKE_C_IDENTIFIER "${rel}" id)
    get_filename_component(stem "${src}" NAME_WE)
    set(gen_dir "${target_bin}/kernelevo/${target}/${id}")
    set(stamp "${gen_dir}/triton.stamp")
    cmake_policy(PUSH)
    cmake_policy(SET CMP0116 NEW)
    add_custom_command(
      OUTPUT "${stamp}"
      BYPRODUCTS "${gen_dir}/${stem}_triton.h" "${gen_dir}/${stem}_triton.cpp"
      COMMAND ${tool} triton-build --source "${rel}" --out-dir "${gen_dir}" --lockfile "${LOCKFILE}"
              --archs "${archs}" ${options} --depfile "${gen_dir}/triton.d" --depfile-target "${stamp}"
      COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
      DEPENDS "${src}" ${tool_target}
      DEPFILE "${gen_dir}/triton.d"
      WORKING_DIRECTORY "${PROJECT_DIR}"
      COMMENT "kernelevo: Triton kernels of ${rel}, compiled ahead of time"
      VERBATIM)
    cmake_policy(POP)
    list(APPEND stamps "${stamp}")
    set_property(SOURCE "${gen_dir}/${stem}_triton.cpp" TARGET_DIRECTORY ${target} PROPERTY GENERATED TRUE)
    set_property(SOURCE "${gen_dir}/${stem}_triton.cpp" TARGET_DIRECTORY ${target} APPEND PROPERTY OBJECT_DEPENDS "${stamp}")
    target_sources(${target} PRIVATE "${gen_dir}/${stem}_triton.cpp")
    target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${gen_dir}>")
  endforeach()
  if(marked_py)
    if(NOT TARGET CUDA::cuda_driver)
      find_package(CUDAToolkit REQUIRED)
    endif()
    target_link_libraries(${target} PUBLIC CUDA::cuda_driver)
  endif()
  add_custom_target(kernelevo-params-${target} DEPENDS ${stamps})
  add_dependencies(${target} kernelevo-params-${target})

  # Tool targets, one per optimized target, gathered under kernelevo-tune/-check/-report
  # (kernelevo-params: every header step, so every source's compile settings).
  set(require_gpu "")
  if(KERNELEVO_REQUIRE_GPU OR "$ENV{KERNELEVO_REQUIRE_GPU}")
    set(require_gpu --require-gpu)
  endif()
  add_custom_target(kernelevo-tune-${target}
    COMMAND "${CMAKE_COMMAND}" -E env "KERNELEVO_COMPILE_SETTINGS=${settings_dir}"
            ${tool} tune ${relative_sources} --lockfile "${LOCKFILE}" ${KERNELEVO_TUNE_ARGS}
    DEPENDS kernelevo-params-${target}
    WORKING_DIRECTORY "${PROJECT_DIR}" USES_TERMINAL VERBATIM)
  add_custom_target(kernelevo-check-${target}
    COMMAND ${tool} check ${relative_sources} --lockfile "${LOCKFILE}" ${require_gpu}
    DEPENDS kernelevo-params-${target}
    WORKING_DIRECTORY "${PROJECT_DIR}" USES_TERMINAL VERBATIM)
  add_custom_target(kernelevo-report-${target}
    COMMAND ${tool} report "${LOCKFILE}" --format markdown
    WORKING_DIRECTORY "${PROJECT_DIR}" USES_TERMINAL VERBATIM)
  foreach(kind tune check report params)
    if(NOT TARGET kernelevo-${kind})
      add_custom_target(kernelevo-${kind})
    endif()
    add_dependencies(kernelevo-${kind} kernelevo-${kind}-${target})
  endforeach()

  # The gate test: no GPU (exit 3) is a skip, unless KERNELEVO_REQUIRE_GPU was set when
  # configuring (--require-gpu) or is set in the environment ctest runs in
  # (--require-gpu-from-env: `KERNELEVO_REQUIRE_GPU=1 ctest`), when a missing GPU fails (exit 1).
  if(NOT NO_TESTS AND EXISTS "${LOCKFILE}")
    set(test_require_gpu --require-gpu-from-env)
    if(require_gpu)
      set(test_require_gpu ${require_gpu})
    endif()
    add_test(NAME kernelevo.check.${target}
      COMMAND ${tool} check ${relative_sources} --lockfile "${LOCKFILE}" ${test_require_gpu}
      WORKING_DIRECTORY "${PROJECT_DIR}")
    # One gate at a time on the GPU, and bounded (KERNELEVO_TEST_TIMEOUT seconds).
    set_tests_properties(kernelevo.check.${target} PROPERTIES LABELS kernelevo
      SKIP_RETURN_CODE 3 RESOURCE_LOCK kernelevo_gpu TIMEOUT ${KERNELEVO_TEST_TIMEOUT})
  endif()
  list(LENGTH marked count)
  list(LENGTH marked_py count_py)
  math(EXPR count "${count} + ${count_py}")
  message(STATUS "kernelevo: ${target}: ${count} marked source(s), lockfile ${LOCKFILE}")
endfunction()
