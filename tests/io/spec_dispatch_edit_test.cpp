// `add_dispatch` (`kernelevo init --dispatch DIM`): the dispatch line added to the marked
// block of a source and nothing else changed, the result a valid spec with a bucket per
// listed size, and refusals for what cannot dispatch.
#include "io/spec_dispatch_edit.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/spec_check.h"
#include "io/file_read.h"
#include "io/spec_yaml.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

const std::string kSource =
    "#ifndef B\n#define B 64\n#endif\n"
    "/* @kernelevo\n"
    "id: scale\n"
    "params: {B: [64, 128]}\n"
    "problems: [{rows: 8, cols: 1024}, {rows: 4, cols: 4096}, {rows: 2, cols: 1024}]\n"
    "args:\n"
    "  - {name: y, type: float*, count: rows*cols, output: true}\n"
    "  - {name: n, type: int, value: rows*cols}\n"
    "launch: {grid: [rows], block: [B]}\n"
    "*/\n"
    "extern \"C\" __global__ void scale(float* y, int n) {}\n";

std::vector<KernelSpec> specs_of(const std::string& text) {
  std::vector<KernelSpec> out;
  for (const MarkedBlock& b : find_marked_blocks(text, "a.cu")) {
    SpecParse p = parse_marked_block(b, "a.cu");
    EXPECT_TRUE(p.errors.empty()) << p.errors.front().to_string();
    for (auto& s : p.specs) out.push_back(std::move(s));
  }
  return out;
}

TEST(AddDispatch, AddsOneLineBeforeTheBlocksEnd) {
  const auto got = add_dispatch(kSource, "a.cu", "cols");
  ASSERT_TRUE(got) << got.error().to_string();
  std::string want = kSource;
  const std::string close = "*/\nextern";
  want.insert(want.find(close), "dispatch: {by: [cols], buckets: per_problem}\n");
  EXPECT_EQ(*got, want);
  const auto specs = specs_of(*got);
  ASSERT_EQ(specs.size(), 1u);
  ASSERT_TRUE(specs[0].dispatch);
  EXPECT_EQ(specs[0].dispatch->by, "cols");
  // One bucket per distinct value, in order: [1024, 1025) and [4096, 4097).
  ASSERT_EQ(specs[0].dispatch->buckets.size(), 2u);
  EXPECT_EQ(specs[0].dispatch->buckets[0].to_string(), "[1024, 1025)");
  EXPECT_EQ(specs[0].dispatch->buckets[1].to_string(), "[4096, 4097)");
  EXPECT_TRUE(check_spec(specs[0]).empty());
}

TEST(AddDispatch, KeepsTheBlocksIndentationAndAClosingMarkOnAYamlLine) {
  std::string indented = kSource;
  for (const std::string key : {"id:", "params:", "problems:", "args:", "launch:"})
    indented.insert(indented.find("\n" + key) + 1, "  ");
  for (std::size_t at = indented.find("\n  - {"); at != std::string::npos;
       at = indented.find("\n  - {", at + 3))
    indented.insert(at + 1, "  ");
  const auto got = add_dispatch(indented, "a.cu", "rows");
  ASSERT_TRUE(got) << got.error().to_string();
  EXPECT_NE(got->find("\n  dispatch: {by: [rows], buckets: per_problem}\n*/"), std::string::npos)
      << *got;
  ASSERT_EQ(specs_of(*got).size(), 1u);

  std::string shared = kSource;
  shared.replace(shared.find("[B]}\n*/"), 6, "[B]} */");
  const auto same_line = add_dispatch(shared, "a.cu", "cols");
  ASSERT_TRUE(same_line) << same_line.error().to_string();
  EXPECT_NE(same_line->find("[B]} \ndispatch: {by: [cols], buckets: per_problem}\n*/"),
            std::string::npos)
      << *same_line;
}

// gemm_sm90.cu's four kernels (each with parameters of its own) are compiled per winner
// together, so every block gets the line.
TEST(AddDispatch, EveryMarkedKernelOfASourceDispatches) {
  std::string two = kSource + kSource;
  two.replace(two.rfind("id: scale"), 9, "id: scale2\nkernel: scale2");
  const auto got = add_dispatch(two, "two.cu", "cols");
  ASSERT_TRUE(got) << got.error().to_string();
  const auto specs = specs_of(*got);
  ASSERT_EQ(specs.size(), 2u);
  for (const KernelSpec& s : specs) {
    ASSERT_TRUE(s.dispatch) << s.id;
    EXPECT_EQ(s.dispatch->by, "cols");
  }
  std::string want = two;
  for (std::size_t at = want.rfind("*/\nextern"); at != std::string::npos;
       at = at == 0 ? std::string::npos : want.rfind("*/\nextern", at - 1))
    want.insert(at, "dispatch: {by: [cols], buckets: per_problem}\n");
  EXPECT_EQ(*got, want);
}

TEST(AddDispatch, RefusesWhatCannotDispatch) {
  auto got = add_dispatch(kSource, "a.cu", "depth");
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().message,
            "cannot dispatch kernel 'scale' by depth: dispatch.by: 'depth' is not a dimension of "
            "every problem (cols, rows)");
  got = add_dispatch(kSource, "a.cu", "cols], buckets: [[0, 1]]} #");
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message.find("a problem dimension's name"), std::string::npos);
  got = add_dispatch("extern \"C\" __global__ void f() {}\n", "f.cu", "cols");
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().message, "f.cu has no @kernelevo block to add dispatch to");
  std::string mixed = kSource + kSource;
  mixed.replace(mixed.rfind("id: scale"), 9, "id: scale_t\nkernel: scale_t<B>");
  got = add_dispatch(mixed, "two.cu", "cols");
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().message,
            "two.cu marks the macro-parameterised kernel 'scale' and the template kernel "
            "'scale_t'; a dispatching source marks kernels of one kind, so copy it without "
            "--dispatch");
  std::string twice = kSource;
  twice.insert(twice.find("*/"), "dispatch: {by: [rows], buckets: per_problem}\n");
  got = add_dispatch(twice, "a.cu", "cols");
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message.find("already has a dispatch"), std::string::npos);
  EXPECT_EQ(got.error().where.line, 4);
}

// Every shipped memory-bound template dispatches by the dimension its benchmark names
// (bench/templates/entries.py's dispatch_by), and only the spec gains a line.
TEST(AddDispatch, ShippedTemplatesDispatchByTheirSize) {
  const fs::path dir = fs::path(KERNELEVO_SOURCE_DIR) / "templates";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"softmax", "cols"},          {"softmax_bf16", "cols"},
      {"layernorm", "cols"},        {"layernorm_bf16", "cols"},
      {"rmsnorm", "cols"},          {"rmsnorm_bf16", "cols"},
      {"add_rmsnorm_bf16", "cols"}, {"sum", "n"},
      {"bias_gelu", "cols"},        {"transpose", "cols"},
      {"swiglu", "hidden"},         {"rope_bf16", "tokens"}};
  for (const auto& [name, dim] : cases) {
    const auto text = read_regular_file(dir / (name + ".cu"), kMaxSourceBytes);
    ASSERT_TRUE(text) << name;
    const auto got = add_dispatch(*text, name + ".cu", dim);
    ASSERT_TRUE(got) << name << ": " << got.error().to_string();
    const std::string line = "dispatch: {by: [" + dim + "], buckets: per_problem}\n";
    ASSERT_EQ(got->size(), text->size() + line.size()) << name;
    const std::size_t at = got->find(line);
    ASSERT_NE(at, std::string::npos) << name;
    EXPECT_EQ(got->substr(0, at) + got->substr(at + line.size()), *text) << name;
  }
  // gemm_sm90.cu marks four kernels: a winner per M for each, and each kernel's launcher
  // (NAME_launch) renamed per variant, so a dispatching build defines each once per variant.
  const auto gemm = read_regular_file(dir / "gemm_sm90.cu", kMaxSourceBytes);
  ASSERT_TRUE(gemm);
  const auto got = add_dispatch(*gemm, "gemm_sm90.cu", "M");
  ASSERT_TRUE(got) << got.error().to_string();
  std::size_t added = 0;
  for (const KernelSpec& s : specs_of(*got)) {
    ASSERT_TRUE(s.dispatch) << s.id;
    EXPECT_EQ(s.dispatch->buckets.size(), 3u) << s.id;  // M = 16, 4096, 8192
    EXPECT_EQ(s.dispatch->entries, std::vector<std::string>{s.kernel + "_launch"}) << s.id;
    added +=
        ("dispatch: {by: [M], buckets: per_problem, entries: [" + s.kernel + "_launch]}\n").size();
  }
  EXPECT_EQ(got->size(), gemm->size() + added);
}

// A kernel whose source defines a function named after it with `_launch` (a template's
// launcher) gets it in `entries`; a name that merely starts the same way does not count.
TEST(AddDispatch, ListsTheKernelsLauncherInItsEntries) {
  const std::string with = kSource +
                           "extern \"C\" int scale_launch(float* y, int n) { return 0; }\n"
                           "extern \"C\" int scale_launcher(float* y) { return 0; }\n";
  const auto got = add_dispatch(with, "a.cu", "cols");
  ASSERT_TRUE(got) << got.error().to_string();
  EXPECT_NE(got->find("dispatch: {by: [cols], buckets: per_problem, entries: [scale_launch]}\n"),
            std::string::npos)
      << *got;
  const std::string without = kSource + "extern \"C\" int scale_launcher(float* y) { return 0; }\n";
  const auto plain = add_dispatch(without, "a.cu", "cols");
  ASSERT_TRUE(plain) << plain.error().to_string();
  EXPECT_NE(plain->find("dispatch: {by: [cols], buckets: per_problem}\n"), std::string::npos);
}

}  // namespace
}  // namespace kev
