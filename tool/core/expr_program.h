#pragma once
// The compiled form of an Expr: a flat postfix program run on a small value stack.
// Short-circuit && and || are jumps, so `0 && 1/0` is 0 as in C.
#include <cstdint>
#include <vector>

namespace kev {

enum class ExprOp : std::uint8_t {
  push_const,  // imm
  push_name,   // arg = index into Expr::names()
  neg,
  logical_not,
  add,
  sub,
  mul,
  div,
  mod,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  min,
  max,
  ceil_div,
  and_jump,  // top == 0: replace by 0 and jump to arg; else pop
  or_jump,   // top != 0: replace by 1 and jump to arg; else pop
  to_bool,
};

struct ExprInstr {
  ExprOp op = ExprOp::push_const;
  std::uint32_t arg = 0;
  std::int64_t imm = 0;
  std::uint32_t token_offset = 0;  // where the token that produced it starts in the text
  std::uint32_t token_length = 0;
};

struct ExprNode {
  std::vector<ExprInstr> code;
  std::uint32_t max_depth = 0;
};

}  // namespace kev
