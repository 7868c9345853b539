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

}  // namespace
}  // namespace kev
