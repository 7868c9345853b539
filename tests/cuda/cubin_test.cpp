#include "cuda/cubin.h"

#include <gtest/gtest.h>

namespace kev::cuda {
namespace {

TEST(Cubin, RejectsWhatIsNotAnElfFile) {
  EXPECT_FALSE(read_cubin("").has_value());
  EXPECT_FALSE(read_cubin(std::string(200, 'x')).has_value());
  std::string truncated =
      "\x7f"
      "ELF";
  truncated += std::string{'\x02', '\x01'};
  truncated.resize(80, '\xff');  // section table offset far past the end
  EXPECT_FALSE(read_cubin(truncated).has_value());
}

TEST(Cubin, DemanglesTemplateInstances) {
  EXPECT_EQ(demangle("_Z4fillILi3EEvPf"), "void fill<3>(float*)");
  EXPECT_EQ(demangle("softmax_rows"), "softmax_rows");
}

TEST(Cubin, FindsKernelSymbols) {
  const std::vector<std::string> symbols = {"scale", "_Z4fillILi3EEvPf", "_Z4fillILi7EEvPf",
                                            "_Z3sumILj256EEvPf", "_Z4onlyILi8EEvPf"};
  EXPECT_EQ(find_kernel_symbol("scale", symbols), "scale");
  EXPECT_EQ(find_kernel_symbol("fill<7>", symbols), "_Z4fillILi7EEvPf");
  EXPECT_EQ(find_kernel_symbol("fill< 3 >", symbols), "_Z4fillILi3EEvPf");
  // unsigned template argument: the demangler prints 256u
  EXPECT_EQ(find_kernel_symbol("sum<256>", symbols), "_Z3sumILj256EEvPf");
  // an unexpanded macro: the template's only instance
  EXPECT_EQ(find_kernel_symbol("only<ONLY_N>", symbols), "_Z4onlyILi8EEvPf");
  // ambiguous or absent
  EXPECT_FALSE(find_kernel_symbol("fill<N>", symbols).has_value());
  EXPECT_FALSE(find_kernel_symbol("missing", symbols).has_value());
}

}  // namespace
}  // namespace kev::cuda
