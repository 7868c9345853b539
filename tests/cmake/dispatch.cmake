# Kernels with `dispatch` built for 80;90 (tests/cmake/dispatch): the macro-parameterised
# rows.cu is compiled once per distinct winner (three: sm_90's two buckets and sm_80's one
# entry) with its kernel and launcher renamed, and no duplicate symbols, each slot also
# holding a variant of its second kernel, cols_scale, split by rows; the template
# tmpl.cu is compiled once (in its first slot) with one instantiation per distinct winner; the generated
# dispatchers pick the variant from the problem's dimension (the nearest bucket by ratio outside
# every bucket, the lower on a tie), per architecture, as a host-only program prints.
include(${CMAKE_CURRENT_LIST_DIR}/helpers.cmake)
file(COPY "${CMAKE_CURRENT_LIST_DIR}/dispatch/" DESTINATION "${WORK_DIR}/app")
set(app "${WORK_DIR}/app")
set(bin "${WORK_DIR}/build")
file(SHA256 "${app}/rows.cu" rows_hash)
file(SHA256 "${app}/tmpl.cu" tmpl_hash)
file(WRITE "${app}/kernelevo.lock.json" "{
  \"kernels\": {
    \"rows_scale\": {\"source\": \"rows.cu\", \"source_hash\": \"sha256:${rows_hash}\", \"targets\": {
      \"sm_80\": {\"NVIDIA A100\": {\"params\": {\"ROWS_BLOCK\": 128}}},
      \"sm_90\": {\"NVIDIA H200\": {\"by\": \"cols\", \"buckets\": [
        {\"params\": {\"ROWS_BLOCK\": 64}, \"range\": [0, 2048]},
        {\"params\": {\"ROWS_BLOCK\": 512}, \"range\": [2048, null]}]}}}},
    \"cols_scale\": {\"source\": \"rows.cu\", \"source_hash\": \"sha256:${rows_hash}\", \"targets\": {
      \"sm_90\": {\"NVIDIA H200\": {\"by\": \"rows\", \"buckets\": [
        {\"params\": {\"COLS_BLOCK\": 32}, \"range\": [8, 9]},
        {\"params\": {\"COLS_BLOCK\": 128}, \"range\": [512, 513]}]}}}},
    \"tmpl_scale\": {\"source\": \"tmpl.cu\", \"source_hash\": \"sha256:${tmpl_hash}\", \"targets\": {
      \"sm_90\": {\"NVIDIA H200\": {\"by\": \"n\", \"buckets\": [
        {\"params\": {\"TMPL_BLOCK\": 64}, \"range\": [1024, 1025]},
        {\"params\": {\"TMPL_BLOCK\": 256}, \"range\": [65536, 65537]}]}}}}
  },
  \"schema_version\": 3
}
")
configure("${app}" "${bin}" -DDISPATCH_ARCHS=80,90)
build_ok("${bin}")
compiled_objects("${build_output}" objects)
foreach(k 0 1 2 3)
  if(NOT "rows_kev${k}.cu" IN_LIST objects)
    message(FATAL_ERROR "rows_kev${k}.cu was not compiled: ${objects}")
  endif()
endforeach()
foreach(name rows.cu tmpl.cu)
  if(name IN_LIST objects)
    message(FATAL_ERROR "${name} compiled besides its slots: ${objects}")
  endif()
endforeach()
# The template's source is compiled once, in its first slot; its other slots are empty.
set(tmpl_slots "${bin}/kernelevo/dispatch_kernels/tmpl_cu/variants")
file(READ "${tmpl_slots}/tmpl_kev0.cu" t0)
file(READ "${tmpl_slots}/tmpl_kev1.cu" t1)
expect_contains("${t0}" "#include \"${bin}/kernelevo/dispatch_kernels/tmpl_cu/tmpl.cu\"" "tmpl slot 0")
expect_contains("${t1}" "Unused: the source is compiled once, in slot 0." "tmpl slot 1")

# Each slot holds one distinct winner (the fourth is empty).
set(variants "${bin}/kernelevo/dispatch_kernels/rows_cu/variants")
file(READ "${variants}/rows_kev0.cu" v0)
file(READ "${variants}/rows_kev1.cu" v1)
file(READ "${variants}/rows_kev2.cu" v2)
file(READ "${variants}/rows_kev3.cu" v3)
expect_contains("${v0}" "#define ROWS_BLOCK 64\n" "slot 0")
expect_contains("${v0}" "serves sm_90 cols [0, 2048)" "slot 0")
expect_contains("${v0}" "#define rows_scale rows_scale_kev0\n" "slot 0")
expect_contains("${v0}" "#define rows_scale_launch rows_scale_launch_kev0\n" "slot 0")
expect_contains("${v1}" "#define ROWS_BLOCK 512\n" "slot 1")
# rows.cu's second kernel, cols_scale: its two sm_90 winners in slots 0 and 1 (sm_80 has no
# entry: the source defaults, its third variant, in slot 2), renamed in every slot.
expect_contains("${v0}" "#define COLS_BLOCK 32\n" "slot 0")
expect_contains("${v1}" "#define COLS_BLOCK 128\n" "slot 1")
expect_contains("${v2}" "#define COLS_BLOCK (64)\n" "slot 2")
# cols_scale's buckets hold one size each: its winners are compiled with that size defined
# (as tune timed them); sm_80's source defaults serve every size, with none.
expect_contains("${v0}" "#define KERNELEVO_SIZE_rows 8\n" "slot 0")
expect_contains("${v1}" "#define KERNELEVO_SIZE_rows 512\n" "slot 1")
expect_not_contains("${v2}" "KERNELEVO_SIZE" "slot 2")
foreach(k 0 1 2)
  expect_contains("${v${k}}" "#define cols_scale_launch cols_scale_launch_kev${k}\n" "slot ${k}")
endforeach()
expect_contains("${v2}" "#define ROWS_BLOCK 128\n" "slot 2")
expect_contains("${v2}" "serves sm_80 (every problem)" "slot 2")
expect_contains("${v3}" "Unused: rows_scale has 3 variants, the most of the source's kernels." "slot 3")
expect_not_contains("${v3}" "#include" "slot 3")

# Every variant's symbols once, none of the original names (a duplicate would not link).
find_program(NM nm REQUIRED)
execute_process(COMMAND "${NM}" -C "${bin}/libdispatch_kernels.a" OUTPUT_VARIABLE symbols)
foreach(k 0 1 2)
  expect_contains("${symbols}" "T rows_scale_launch_kev${k}\n" "variant ${k}'s launcher")
endforeach()
foreach(k 0 1 2)
  expect_contains("${symbols}" "T cols_scale_launch_kev${k}\n" "cols variant ${k}'s launcher")
endforeach()
expect_not_contains("${symbols}" "T rows_scale_launch\n" "the original launcher")
expect_not_contains("${symbols}" "T cols_scale_launch\n" "cols_scale's original launcher")
foreach(b 64 128 256)
  expect_contains("${symbols}" "tmpl_scale<${b}>(float*, int)" "tmpl_scale<${b}>")
endforeach()
expect_not_contains("${symbols}" "tmpl_scale<512>" "an instantiation of no winner")

execute_process(COMMAND "${bin}/dispatch_probe" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dispatch_probe failed (${rc}):\n${out}")
endif()
set(expected "rows 900 100 -> 0
rows 900 2047 -> 0
rows 900 2048 -> 1
rows 900 5000 -> 1
rows 800 100 -> 2
rows 800 2047 -> 2
rows 800 2048 -> 2
rows 800 5000 -> 2
rows 750 100 -> 2
rows 750 2047 -> 2
rows 750 2048 -> 2
rows 750 5000 -> 2
cols 900 8 -> 0
cols 900 64 -> 0
cols 900 65 -> 1
cols 900 200 -> 1
cols 900 512 -> 1
cols 800 8 -> 2
cols 800 64 -> 2
cols 800 65 -> 2
cols 800 200 -> 2
cols 800 512 -> 2
cols 750 8 -> 2
cols 750 64 -> 2
cols 750 65 -> 2
cols 750 200 -> 2
cols 750 512 -> 2
tmpl 900 1024 -> 0 (block 64)
tmpl 900 8192 -> 0 (block 64)
tmpl 900 8193 -> 1 (block 256)
tmpl 900 30000 -> 1 (block 256)
tmpl 900 65536 -> 1 (block 256)
tmpl 800 1024 -> 2 (block 128)
tmpl 800 8192 -> 2 (block 128)
tmpl 800 8193 -> 2 (block 128)
tmpl 800 30000 -> 2 (block 128)
tmpl 800 65536 -> 2 (block 128)
tmpl 750 1024 -> 2 (block 128)
tmpl 750 8192 -> 2 (block 128)
tmpl 750 8193 -> 2 (block 128)
tmpl 750 30000 -> 2 (block 128)
tmpl 750 65536 -> 2 (block 128)
")
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "dispatch_probe printed:\n${out}\nexpected:\n${expected}")
endif()

# Fewer slots than distinct winners: the header step says how many are needed.
configure("${app}" "${bin}" -DKERNELEVO_DISPATCH_SLOTS=2)
build("${bin}")
if(build_rc EQUAL 0)
  message(FATAL_ERROR "expected the build with 2 slots to fail:\n${build_output}")
endif()
expect_contains("${build_output}"
                "kernel rows_scale has 3 distinct winners for the built architectures but the build compiles 2 variants of it; set KERNELEVO_DISPATCH_SLOTS to 3 or more"
                "too few slots")

# Outside the compiled variants a parameter with a winner per bucket has no one value: a
# use in another source of the target is a compile error naming it, not the source default.
file(WRITE "${app}/misuse.cu" "extern \"C\" int rows_block() { return ROWS_BLOCK; }\n")
file(APPEND "${app}/CMakeLists.txt" "target_sources(dispatch_kernels PRIVATE misuse.cu)\n")
configure("${app}" "${WORK_DIR}/misuse")
build("${WORK_DIR}/misuse" dispatch_kernels)
if(build_rc EQUAL 0)
  message(FATAL_ERROR "another source read ROWS_BLOCK of a kernel with buckets:\n${build_output}")
endif()
expect_contains("${build_output}" "misuse.cu" "the error names the source")
expect_contains("${build_output}" "ROWS_BLOCK_has_a_winner_per_bucket" "the error names the parameter")
