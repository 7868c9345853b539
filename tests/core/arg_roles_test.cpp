// What the GPU runner does with each argument, and the bytes an input set takes.
#include "core/arg_roles.h"

#include <gtest/gtest.h>

namespace kev {
namespace {

ArgSpec pointer(bool is_const = false) {
  ArgSpec a;
  a.pointer = true;
  a.is_const = is_const;
  return a;
}

TEST(ArgRoles, RoleFromTheSpec) {
  ArgSpec scalar;
  EXPECT_EQ(role_of(scalar), Role::scalar);
  EXPECT_EQ(role_of(pointer()), Role::input);
  EXPECT_EQ(role_of(pointer(true)), Role::const_input);
  ArgSpec out = pointer();
  out.output = true;
  EXPECT_EQ(role_of(out), Role::output);
  ArgSpec io = pointer();
  io.inout = true;
  EXPECT_EQ(role_of(io), Role::inout);
  ArgSpec scratch = pointer();
  scratch.scratch = true;
  scratch.output = true;  // scratch wins: never compared
  EXPECT_EQ(role_of(scratch), Role::scratch);
}

TEST(ArgRoles, InputsAndComparedOutputs) {
  for (Role r : {Role::input, Role::const_input, Role::inout}) EXPECT_TRUE(has_input(r));
  for (Role r : {Role::output, Role::scratch, Role::scalar}) EXPECT_FALSE(has_input(r));
  for (Role r : {Role::output, Role::inout}) EXPECT_TRUE(is_compared(r));
  for (Role r : {Role::input, Role::const_input, Role::scratch, Role::scalar})
    EXPECT_FALSE(is_compared(r));
}

TEST(ArgRoles, InputSetBytesCountConstCopiesAndReferenceOutputs) {
  ArgSpec out = pointer();
  out.output = true;
  ArgSpec io = pointer();
  io.inout = true;
  ArgSpec scratch = pointer();
  scratch.scratch = true;
  const std::vector<ArgSpec> args{pointer(), pointer(true), out, io, scratch, ArgSpec{}};
  ResolvedProblem layout;
  for (std::size_t i = 0; i < args.size(); ++i) {
    ResolvedArg r;
    r.index = i;
    r.bytes = std::size_t{1} << (i + 1);  // 2, 4, 8, 16, 32, 64
    layout.args.push_back(r);
  }
  // input 2; const 4 and its copy 4; output's reference 8; inout's input and reference 16+16
  EXPECT_EQ(input_set_bytes(args, layout), 2 + 4 + 4 + 8 + 16 + 16);
  EXPECT_EQ(compared_bytes(args, layout), 8 + 16);
}

}  // namespace
}  // namespace kev
