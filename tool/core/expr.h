#pragma once
// The integer expression language of specs (DESIGN.md section 2): + - * / % with C
// semantics on int64, comparisons, && || !, parentheses, min, max, ceil_div.
// Division by zero and overflow are reported as errors, never undefined.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace kev {

// Looks a name up: a parameter or problem dimension. nullopt = undefined.
using NameLookup = std::function<std::optional<std::int64_t>(std::string_view)>;

struct ExprNode;

// `text` in double quotes for a message: whole when short, else the part around `offset`
// with "..." for what is left out, so an error never repeats a huge expression.
[[nodiscard]] std::string quote_expression(std::string_view text, std::size_t offset = 0);
// A name or number for a message: its first 40 characters and "..." when longer.
[[nodiscard]] std::string clipped(std::string_view text);

class Expr {
 public:
  Expr() = default;
  // `origin` is where the expression text starts (file, line and column of its first
  // character); error locations are computed from it.
  static Result<Expr> parse(std::string_view text, const SourceLocation& origin);

  [[nodiscard]] Result<std::int64_t> eval(const NameLookup& lookup) const;
  // Fast path for hot loops (counting 10^7-point spaces): names are resolved to slots once
  // by the caller; `slot_of_name[i]` is the index in `slots` of names()[i]. Returns false
  // on any error (division by zero, overflow); eval_slots_checked() says which.
  [[nodiscard]] bool eval_slots(const std::int64_t* slots, const std::uint32_t* slot_of_name,
                                std::int64_t& out) const noexcept;
  [[nodiscard]] Result<std::int64_t> eval_slots_checked(const std::int64_t* slots,
                                                        const std::uint32_t* slot_of_name) const;
  // Every identifier the expression refers to (not function names), each once, in order of
  // first appearance.
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }
  [[nodiscard]] bool mentions(std::string_view name) const;
  [[nodiscard]] const std::string& text() const { return text_; }
  [[nodiscard]] const SourceLocation& origin() const { return origin_; }

 private:
  std::shared_ptr<const ExprNode> root_;
  std::vector<std::string> names_;
  std::string text_;
  SourceLocation origin_;
  friend struct ExprParser;
};

}  // namespace kev
