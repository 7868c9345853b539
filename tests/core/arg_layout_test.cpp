#include "core/arg_layout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/input_fill.h"
#include "core/source_defaults.h"

namespace kev {
namespace {

Expr parse(const std::string& text) {
  auto e = Expr::parse(text, SourceLocation{"k.cu", 3, 5});
  EXPECT_TRUE(e.ok()) << text;
  return std::move(e).value();
}

KernelSpec softmax_like() {
  KernelSpec s;
  s.id = "k";
  ArgSpec x;
  x.name = "x";
  x.pointer = true;
  x.is_const = true;
  x.count = parse("rows*cols");
  ArgSpec y = x;
  y.name = "y";
  y.is_const = false;
  y.output = true;
  ArgSpec rows;
  rows.name = "rows";
  rows.type = ScalarType::i32;
  rows.value_expr = parse("rows");
  ArgSpec eps;
  eps.name = "eps";
  eps.type = ScalarType::f32;
  eps.float_value = 0.5;
  ArgSpec big;
  big.name = "n";
  big.type = ScalarType::i64;
  big.value_expr = parse("rows*cols*1000000");
  s.args = {x, y, rows, eps, big};
  s.launch.grid = {parse("ceil_div(rows, BLOCK / 32)")};
  s.launch.block = {parse("BLOCK")};
  s.launch.shared_bytes = parse("BLOCK * 4");
  s.metric_bytes = parse("2*rows*cols*4");
  ParamSpec block;
  block.name = "BLOCK";
  block.values = {Value(128), Value(256)};
  s.params = {block};
  return s;
}

TEST(ArgLayout, CountsBytesScalarsAndGeometryPerProblem) {
  const KernelSpec s = softmax_like();
  Problem p;
  p.dims = {{"rows", 100}, {"cols", 3000}};
  auto r = resolve_problem(s, {{"BLOCK", Value(256)}}, p);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->args[0].count, 300000);
  EXPECT_EQ(r->args[1].bytes, 1200000u);
  EXPECT_EQ(r->buffer_bytes(), 2400000u);
  std::int32_t rows = 0;
  std::memcpy(&rows, r->args[2].scalar.data(), 4);
  EXPECT_EQ(rows, 100);
  float eps = 0;
  std::memcpy(&eps, r->args[3].scalar.data(), 4);
  EXPECT_EQ(eps, 0.5f);
  std::int64_t n = 0;
  ASSERT_EQ(r->args[4].scalar.size(), 8u);
  std::memcpy(&n, r->args[4].scalar.data(), 8);
  EXPECT_EQ(n, 300000000000LL);
  EXPECT_EQ(r->launch.grid[0], 13u);  // ceil(100 / 8)
  EXPECT_EQ(r->launch.block[0], 256u);
  EXPECT_EQ(r->launch.shared_bytes, 1024u);
  EXPECT_EQ(r->bytes.value_or(0), 2400000);
}

TEST(ArgLayout, ErrorsNameTheExpression) {
  KernelSpec s = softmax_like();
  Problem p;
  p.dims = {{"rows", 100}};  // cols missing
  auto r = resolve_problem(s, {{"BLOCK", Value(256)}}, p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where.file, "k.cu");
  p.dims["cols"] = 1;
  auto big = resolve_problem(s, {{"BLOCK", Value(2048)}}, p);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("block"), std::string::npos);
}

// sm_count: the device's multiprocessor count, as the runner gives it; a problem dimension or
// parameter of that name would come first (the spec check refuses both).
TEST(ArgLayout, SmCountIsTheDevicesWhereOneIsGiven) {
  KernelSpec s = softmax_like();
  s.launch.grid = {parse("min(rows, sm_count * 2)")};
  Problem p;
  p.dims = {{"rows", 1000}, {"cols", 8}};
  auto h200 = resolve_problem(s, {{"BLOCK", Value(128)}}, p, 132);
  ASSERT_TRUE(h200.ok()) << h200.error().to_string();
  EXPECT_EQ(h200->launch.grid[0], 264u);
  auto smaller = resolve_problem(s, {{"BLOCK", Value(128)}}, p, 114);
  ASSERT_TRUE(smaller.ok());
  EXPECT_EQ(smaller->launch.grid[0], 228u);
  auto unknown = resolve_problem(s, {{"BLOCK", Value(128)}}, p);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("sm_count"), std::string::npos) << unknown.error().message;
}

// launch.cluster: CTAs per cluster along x, the grid still counted in CTAs.
TEST(ArgLayout, AClusterExpressionSetsTheClusterAndMustDivideTheGrid) {
  KernelSpec s = softmax_like();
  s.launch.grid = {parse("rows * C")};
  s.launch.cluster = parse("C");
  ParamSpec c;
  c.name = "C";
  c.values = {Value(1), Value(2), Value(3), Value(4), Value(16)};
  s.params.push_back(c);
  Problem p;
  p.dims = {{"rows", 6}, {"cols", 8}};
  auto r = resolve_problem(s, {{"BLOCK", Value(128)}, {"C", Value(4)}}, p);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->launch.grid[0], 24u);
  EXPECT_EQ(r->launch.cluster_x, 4u);
  auto none = resolve_problem(s, {{"BLOCK", Value(128)}, {"C", Value(1)}}, p);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->launch.cluster_x, 1u);

  auto odd = resolve_problem(s, {{"BLOCK", Value(128)}, {"C", Value(3)}}, p);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error().message, "cluster \"C\" is 3; a portable cluster has 1, 2, 4 or 8 CTAs");
  EXPECT_EQ(odd.error().where.file, "k.cu");
  auto big = resolve_problem(s, {{"BLOCK", Value(128)}, {"C", Value(16)}}, p);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("outside 0..8"), std::string::npos) << big.error().message;

  s.launch.grid = {parse("rows")};
  auto ragged = resolve_problem(s, {{"BLOCK", Value(128)}, {"C", Value(4)}}, p);
  ASSERT_FALSE(ragged.ok());
  EXPECT_EQ(ragged.error().message, "cluster \"C\" is 4, which does not divide the grid's x (6)");
}

TEST(InputFill, SeededAndDifferentPerSeed) {
  ArgSpec a;
  a.type = ScalarType::f32;
  a.init = InitKind::normal;
  const auto one = make_input(a, 1000, 7);
  EXPECT_EQ(one, make_input(a, 1000, 7));
  EXPECT_NE(one, make_input(a, 1000, 8));
  a.init = InitKind::iota;
  a.type = ScalarType::i32;
  const auto iota = make_input(a, 5, 1);
  std::int32_t v[5];
  std::memcpy(v, iota.data(), sizeof v);
  EXPECT_EQ(v[4], 4);
  const auto decoy = make_decoy(ScalarType::f32, 100, 3);
  for (std::size_t i = 0; i < 100; ++i) {
    float f;
    std::memcpy(&f, decoy.data() + 4 * i, 4);
    EXPECT_TRUE(std::isfinite(f) && std::fabs(f) >= 1.0f);
  }
}

TEST(SourceDefaults, ReadsTheFallbackDefines) {
  KernelSpec s = softmax_like();
  ParamSpec vec;
  vec.name = "VEC";
  ParamSpec type;
  type.name = "T";
  s.params = {s.params[0], vec, type};
  const std::string src =
      "#ifndef BLOCK\n#define BLOCK 256   // default\n#endif\n#  define VEC 4\n#define T float4\n";
  auto d = source_defaults(src, s);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->at("BLOCK"), Value(256));
  EXPECT_EQ(d->at("VEC"), Value(4));
  EXPECT_EQ(d->at("T"), Value(std::string("float4")));
  auto missing = source_defaults("#define BLOCK 1\n", s);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("VEC"), std::string::npos);
}

TEST(ImageLaunch, TritonsClustersMultiplyTheGridAlongXAndSetTheClusterDimension) {
  ResolvedLaunch l;
  l.grid = {100, 3, 1};
  l.block = {64, 1, 1};
  ImageLaunch image;
  image.block_threads = 256;
  image.shared_bytes = 4096;
  image.trailing_null_pointers = 2;
  image.cluster_ctas = 4;
  EXPECT_FALSE(image.empty());
  apply_image_launch(image, l);
  EXPECT_EQ(l.grid, (std::array<unsigned, 3>{400, 3, 1}));
  EXPECT_EQ(l.block, (std::array<unsigned, 3>{256, 1, 1}));
  EXPECT_EQ(l.cluster_x, 4u);
  EXPECT_EQ(l.shared_bytes, 4096u);
  EXPECT_EQ(l.trailing_null_pointers, 2u);

  // A grid too large once multiplied is left too large (the driver refuses it), not wrapped.
  ResolvedLaunch huge;
  huge.grid = {0x7fffffffu, 1, 1};
  apply_image_launch(image, huge);
  EXPECT_EQ(huge.grid[0], 0xffffffffu);

  ResolvedLaunch plain;
  plain.grid = {7, 1, 1};
  apply_image_launch(ImageLaunch{}, plain);
  EXPECT_EQ(plain.grid[0], 7u);
  EXPECT_EQ(plain.cluster_x, 1u);
  EXPECT_TRUE(ImageLaunch{}.empty());
}

// A GEMM's A[M, K] (bf16) as a tensor map: dims innermost first, a box of 64 x (64 * MW).
KernelSpec gemm_with_map(const std::string& box_rows = "64 * MW", int swizzle = 128) {
  KernelSpec s;
  s.id = "g";
  ArgSpec a;
  a.name = "A";
  a.type = ScalarType::bf16;
  a.pointer = true;
  a.is_const = true;
  a.count = parse("M*K");
  ArgSpec map;
  map.name = "map_a";
  TensorMapSpec t;
  t.of = "A";
  t.dims = {parse("K"), parse("M")};
  t.box = {parse("64"), parse(box_rows)};
  t.swizzle = swizzle;
  map.tensor_map = t;
  s.args = {a, map};
  s.launch.grid = {parse("1")};
  s.launch.block = {parse("128")};
  return s;
}

TEST(ArgLayout, TensorMapsResolveTheirDimensionsStridesAndParameterisedBox) {
  Problem p;
  p.dims = {{"M", 300}, {"K", 1000}};
  auto r = resolve_problem(gemm_with_map(), {{"MW", Value(2)}}, p);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->args[1].tensor_map.has_value());
  const ResolvedTensorMap& m = *r->args[1].tensor_map;
  EXPECT_EQ(m.of, 0u);
  EXPECT_EQ(m.type, ScalarType::bf16);
  EXPECT_EQ(m.rank, 2u);
  EXPECT_EQ(m.dims[0], 1000u);
  EXPECT_EQ(m.dims[1], 300u);
  EXPECT_EQ(m.strides[0], 2000u);  // one row of K bf16, in bytes
  EXPECT_EQ(m.box[0], 64u);
  EXPECT_EQ(m.box[1], 128u);
  EXPECT_EQ(m.swizzle, 128);
  EXPECT_EQ(m.unencodable, "");
  EXPECT_EQ(tensor_map_unusable(m, 0x10000), "");
  EXPECT_EQ(tensor_map_unusable(m, 0x10008), "the buffer's address is not 16-byte aligned");
  EXPECT_EQ(r->args[1].bytes, 0u);  // no buffer of its own
  EXPECT_EQ(r->buffer_bytes(), 600000u);
}

TEST(ArgLayout, ATensorTheDriverCannotDescribeIsUnencodableNotAnError) {
  Problem p;
  p.dims = {{"M", 3}, {"K", 33}};  // a row of 66 bytes: the kernel takes its other path
  auto r = resolve_problem(gemm_with_map(), {{"MW", Value(1)}}, p);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->args[1].tensor_map->unencodable,
            "the stride of dimension 1 is 66 bytes, not a multiple of 16 below 2^40");
  EXPECT_EQ(tensor_map_unusable(*r->args[1].tensor_map, 0x10000),
            r->args[1].tensor_map->unencodable);
  p.dims = {{"M", 0}, {"K", 64}};
  auto empty = resolve_problem(gemm_with_map(), {{"MW", Value(1)}}, p);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->args[1].tensor_map->unencodable, "dimension 1 is 0, outside 1..2^32");
}

TEST(ArgLayout, TensorMapBoxesTheDriverRefusesAreErrorsOfTheConfiguration) {
  Problem p;
  p.dims = {{"M", 4096}, {"K", 4096}};
  auto big = resolve_problem(gemm_with_map(), {{"MW", Value(6)}}, p);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message, "tensor map 'map_a': box \"64 * MW\" is 384, outside 1..256");
  auto ragged = resolve_problem(gemm_with_map("8", 128), {}, p);
  ASSERT_TRUE(ragged.ok()) << ragged.error().to_string();
  KernelSpec narrow = gemm_with_map();
  narrow.args[1].tensor_map->box[0] = parse("4");  // 8 bytes
  auto r = resolve_problem(narrow, {{"MW", Value(1)}}, p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "tensor map 'map_a': the box's inner size is 8 bytes, not a multiple of 16");
  auto swizzled = resolve_problem(gemm_with_map("64", 64), {}, p);
  ASSERT_FALSE(swizzled.ok());
  EXPECT_EQ(swizzled.error().message,
            "tensor map 'map_a': the box's inner size is 128 bytes, more than its 64-byte "
            "swizzle span");
}

// A spec from a pull request cannot make the copies read past the buffer it names.
TEST(ArgLayout, ATensorMapLargerThanItsBufferIsRefused) {
  KernelSpec s = gemm_with_map();
  s.args[1].tensor_map->dims = {parse("K"), parse("M * 2")};
  Problem p;
  p.dims = {{"M", 128}, {"K", 64}};
  auto r = resolve_problem(s, {{"MW", Value(1)}}, p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "tensor map 'map_a' covers 16384 elements of 'A', which holds 8192");
  s.args[1].tensor_map->dims = {parse("4294967296"), parse("4294967296")};
  auto overflow = resolve_problem(s, {{"MW", Value(1)}}, p);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error().message,
            "tensor map 'map_a' covers more than 2^64 elements of 'A', which holds 8192");
}

}  // namespace
}  // namespace kev
