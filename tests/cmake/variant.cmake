# A variant `kernelevo evolve` recorded in the lockfile is what the target compiles while it
# is current; an edited variant or an edited original builds the original, saying why; and
# editing the variant recompiles its source alone (softmax dispatches by cols, so the
# variant is what each of its winners' slots compiles). The variant defines a string the
# original lacks, so the library tells which one was compiled.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
copy_project(softmax-app app)
# The library itself no longer has src/ as an include directory: its sources, original or
# variant, must find "kernels.h" beside the original as the original does.
file(READ "${app}/CMakeLists.txt" project)
string(REPLACE "target_include_directories(softmax_kernels PUBLIC src)"
               "target_include_directories(softmax_kernels INTERFACE src)" project "${project}")
expect_contains("${project}" "softmax_kernels INTERFACE src" "the test edits the project")
file(WRITE "${app}/CMakeLists.txt" "${project}")
set(marker "KERNELEVO_VARIANT_WAS_BUILT")
file(READ "${app}/src/softmax.cu" original)
# The marker goes where a variant may differ from its original: in the kernel's own region,
# between the spec block and the kernel (a build refuses a variant that changes the rest).
string(FIND "${original}" "// clang-format on\n" spec_end)
if(spec_end LESS 0)
  message(FATAL_ERROR "the test expects the spec block of src/softmax.cu to end in \"// clang-format on\"")
endif()
math(EXPR spec_end "${spec_end} + 19")
string(SUBSTRING "${original}" 0 ${spec_end} head)
string(SUBSTRING "${original}" ${spec_end} -1 tail)
# Internal linkage: each slot compiles the variant, so an external name would be defined
# once per winner.
set(variant "${head}[[gnu::used]] static const char kernelevo_test_variant_marker[] = \"${marker}\";\n${tail}")
file(MAKE_DIRECTORY "${app}/kernelevo-variants")
file(WRITE "${app}/kernelevo-variants/softmax_rows.cu" "${variant}")
file(SHA256 "${app}/kernelevo-variants/softmax_rows.cu" variant_hash)
file(SHA256 "${app}/src/softmax.cu" original_hash)
file(READ "${app}/kernelevo.lock.json" lock)
string(JSON lock SET "${lock}" kernels softmax_rows variant
       "{\"base_source_hash\": \"sha256:${original_hash}\", \"file\": \"kernelevo-variants/softmax_rows.cu\", \"hash\": \"sha256:${variant_hash}\"}")
file(WRITE "${app}/kernelevo.lock.json" "${lock}")
set(library "${WORK_DIR}/build/libsoftmax_kernels.a")

function(expect_built what expected)
  file(STRINGS "${library}" hits REGEX "${marker}")
  if(expected AND NOT hits)
    message(FATAL_ERROR "${what}: the variant was not compiled:\n${build_output}")
  elseif(NOT expected AND hits)
    message(FATAL_ERROR "${what}: the variant was compiled:\n${build_output}")
  endif()
endfunction()

# Current: the variant is built, and the app links against it.
configure("${app}" "${WORK_DIR}/build" -DCMAKE_CUDA_ARCHITECTURES=90)
build_ok("${WORK_DIR}/build")
expect_contains("${build_output}" "kernelevo: src/softmax.cu: building kernel softmax_rows's variant kernelevo-variants/softmax_rows.cu" "note")
expect_built("current variant" TRUE)
compiled_objects("${build_output}" first)
if(NOT "softmax_kev0.cu" IN_LIST first OR NOT "softmax_kev1.cu" IN_LIST first OR NOT "rmsnorm.cu" IN_LIST first)
  message(FATAL_ERROR "the first build compiled [${first}]")
endif()

# Nothing changed: nothing recompiles.
build_ok("${WORK_DIR}/build")
compiled_objects("${build_output}" again)
if(again)
  message(FATAL_ERROR "an unchanged project recompiled [${again}]:\n${build_output}")
endif()
expect_not_contains("${build_output}" "select-source" "an unchanged project re-ran the source selection")

# The variant edited by hand: the original is built, and only its source recompiles.
file(APPEND "${app}/kernelevo-variants/softmax_rows.cu" "// edited by hand\n")
build_ok("${WORK_DIR}/build")
expect_contains("${build_output}" "building the original, not kernel softmax_rows's variant kernelevo-variants/softmax_rows.cu: kernelevo-variants/softmax_rows.cu was edited after it was recorded" "edited variant")
compiled_objects("${build_output}" edited)
list(SORT edited)
if(NOT edited STREQUAL "softmax_kev0.cu;softmax_kev1.cu")
  message(FATAL_ERROR "editing the variant compiled [${edited}], expected softmax's two winners' slots\n${build_output}")
endif()
expect_built("edited variant" FALSE)

# Restored: the variant again.
file(WRITE "${app}/kernelevo-variants/softmax_rows.cu" "${variant}")
build_ok("${WORK_DIR}/build")
expect_built("restored variant" TRUE)

# STRICT: a variant that is not current fails the build.
configure("${app}" "${WORK_DIR}/strict" -DCMAKE_CUDA_ARCHITECTURES=90 -DKERNELEVO_STRICT=ON)
file(APPEND "${app}/kernelevo-variants/softmax_rows.cu" "// edited by hand\n")
build("${WORK_DIR}/strict" softmax_kernels)
if(build_rc EQUAL 0)
  message(FATAL_ERROR "STRICT build passed with an edited variant:\n${build_output}")
endif()
expect_contains("${build_output}" "was edited after it was recorded" "strict error")
file(WRITE "${app}/kernelevo-variants/softmax_rows.cu" "${variant}")

# The original edited after the variant was evolved from it: the (edited) original is built.
file(APPEND "${app}/src/softmax.cu" "// an edit after evolving\n")
build_ok("${WORK_DIR}/build")
expect_contains("${build_output}" "src/softmax.cu changed since the variant was evolved from it" "stale variant")
expect_built("stale variant" FALSE)
