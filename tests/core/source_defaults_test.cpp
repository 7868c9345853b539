// A source's `#define` defaults, read once for the tuner and for the generated header.
#include "core/source_defaults.h"

#include <gtest/gtest.h>

namespace kev {
namespace {

TEST(SourceDefaults, TheTextIsReadAsThePreprocessorReadsIt) {
  const std::string src =
      "#ifndef A\n#define A (4 * 32)\n#endif\n"
      "#define B 256 // threads\n"
      "#define C /* tile */ 64\n"
      "#define D \\\n  512\n"
      "#define E(x) (x)\n#define E 7\n"
      "  #  define F 1.5\r\n"
      "#define G float4\n"
      "#define A 99\n"  // the first one counts
      "#define H\n";
  EXPECT_EQ(source_default_text(src, "A"), "(4 * 32)");
  EXPECT_EQ(source_default_text(src, "B"), "256");
  EXPECT_EQ(source_default_text(src, "C"), "64");
  EXPECT_EQ(source_default_text(src, "D"), "512");
  EXPECT_EQ(source_default_text(src, "E"), "7");  // the function-like one is not a default
  EXPECT_EQ(source_default_text(src, "F"), "1.5");
  EXPECT_EQ(source_default_text(src, "G"), "float4");
  EXPECT_EQ(source_default_text(src, "H"), std::nullopt);
  EXPECT_EQ(source_default_text(src, "Z"), std::nullopt);
  EXPECT_EQ(source_default_text("// #define A 3\nconst char* s = \"#define A 4\";\n", "A"),
            std::nullopt);
}

TEST(SourceDefaults, TheTunerSeesNumbersWhereTheTextIsOne) {
  KernelSpec spec;
  for (const char* name : {"A", "B", "F", "G"}) {
    ParamSpec p;
    p.name = name;
    spec.params.push_back(p);
  }
  auto d = source_defaults(
      "#define A (4 * 32)\n#define B 256 // threads\n#define F 1.5\n#define G float4\n", spec);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->at("A"), Value(std::int64_t{128}));
  EXPECT_EQ(d->at("B"), Value(std::int64_t{256}));
  EXPECT_EQ(d->at("F"), Value(1.5));
  EXPECT_EQ(d->at("G"), Value(std::string("float4")));
  ParamSpec missing;
  missing.name = "M";
  spec.params.push_back(missing);
  EXPECT_FALSE(source_defaults("#define A 1\n", spec).ok());
}

}  // namespace
}  // namespace kev
