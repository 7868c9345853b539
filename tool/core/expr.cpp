#include "core/expr.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <unordered_map>

#include "core/expr_program.h"

namespace kev {
namespace {

enum class TokenKind { number, name, op, lparen, rparen, comma, end };

struct Token {
  TokenKind kind = TokenKind::end;
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
  std::int64_t number = 0;
};

// Parentheses, unary operators and calls nest the parser's recursion (about 14 frames a
// level): 256 levels stay far inside any thread's stack.
constexpr int kMaxNesting = 256;
constexpr std::size_t kQuotedWhole = 120;   // longer expressions are quoted in part
constexpr std::size_t kQuotedBefore = 60;   // characters kept before the offset
constexpr std::size_t kQuotedLength = 120;  // characters kept in all
constexpr std::size_t kClippedLength = 40;  // of a name or number in a message

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

enum class Failure { none, undefined_name, division_by_zero, modulo_by_zero, overflow };

// Runs the program; `fetch(name_index, value)` returns false for an undefined name.
template <class Fetch>
Failure run(const ExprNode& prog, const Fetch& fetch, std::int64_t& out,
            std::size_t& failed_at) noexcept {
  std::array<std::int64_t, 32> small;  // NOLINT: every slot is written before it is read
  std::vector<std::int64_t> large;
  std::int64_t* stack = small.data();
  if (prog.max_depth > small.size()) {
    large.resize(prog.max_depth);
    stack = large.data();
  }
  std::size_t sp = 0;  // number of values on the stack
  const auto& code = prog.code;
  for (std::size_t ip = 0; ip < code.size(); ++ip) {
    const ExprInstr& in = code[ip];
    switch (in.op) {
      case ExprOp::push_const:
        stack[sp++] = in.imm;
        continue;
      case ExprOp::push_name:
        if (!fetch(in.arg, stack[sp])) {
          failed_at = ip;
          return Failure::undefined_name;
        }
        ++sp;
        continue;
      case ExprOp::neg:
        if (__builtin_sub_overflow(std::int64_t{0}, stack[sp - 1], &stack[sp - 1])) {
          failed_at = ip;
          return Failure::overflow;
        }
        continue;
      case ExprOp::logical_not:
        stack[sp - 1] = stack[sp - 1] == 0 ? 1 : 0;
        continue;
      case ExprOp::to_bool:
        stack[sp - 1] = stack[sp - 1] != 0 ? 1 : 0;
        continue;
      case ExprOp::and_jump:
        if (stack[sp - 1] == 0) {
          ip = in.arg - 1;
        } else {
          --sp;
        }
        continue;
      case ExprOp::or_jump:
        if (stack[sp - 1] != 0) {
          stack[sp - 1] = 1;
          ip = in.arg - 1;
        } else {
          --sp;
        }
        continue;
      default:
        break;
    }
    // Binary operators.
    const std::int64_t b = stack[--sp];
    std::int64_t& a = stack[sp - 1];
    bool overflow = false;
    switch (in.op) {
      case ExprOp::add:
        overflow = __builtin_add_overflow(a, b, &a);
        break;
      case ExprOp::sub:
        overflow = __builtin_sub_overflow(a, b, &a);
        break;
      case ExprOp::mul:
        overflow = __builtin_mul_overflow(a, b, &a);
        break;
      case ExprOp::div:
      case ExprOp::mod:
      case ExprOp::ceil_div: {
        if (b == 0) {
          failed_at = ip;
          return in.op == ExprOp::mod ? Failure::modulo_by_zero : Failure::division_by_zero;
        }
        if (b == -1 && a == INT64_MIN) {
          if (in.op == ExprOp::mod) {
            a = 0;
            break;
          }
          overflow = true;
          break;
        }
        if (in.op == ExprOp::div) {
          a = a / b;
        } else if (in.op == ExprOp::mod) {
          a = a % b;
        } else {
          const std::int64_t q = a / b;
          a = (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
        }
        break;
      }
      case ExprOp::lt:
        a = a < b ? 1 : 0;
        break;
      case ExprOp::le:
        a = a <= b ? 1 : 0;
        break;
      case ExprOp::gt:
        a = a > b ? 1 : 0;
        break;
      case ExprOp::ge:
        a = a >= b ? 1 : 0;
        break;
      case ExprOp::eq:
        a = a == b ? 1 : 0;
        break;
      case ExprOp::ne:
        a = a != b ? 1 : 0;
        break;
      case ExprOp::min:
        a = std::min(a, b);
        break;
      case ExprOp::max:
        a = std::max(a, b);
        break;
      default:
        break;
    }
    if (overflow) {
      failed_at = ip;
      return Failure::overflow;
    }
  }
  out = sp > 0 ? stack[sp - 1] : 0;
  return Failure::none;
}

bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string clipped(std::string_view text) {
  if (text.size() <= kClippedLength) return std::string(text);
  std::size_t end = kClippedLength;
  while (end < text.size() && is_utf8_continuation(text[end])) ++end;
  return std::string(text.substr(0, end)) + "...";
}

std::string quote_expression(std::string_view text, std::size_t offset) {
  if (text.size() <= kQuotedWhole) return "\"" + std::string(text) + "\"";
  std::size_t begin = offset > kQuotedBefore ? offset - kQuotedBefore : 0;
  begin = std::min(begin, text.size() - kQuotedLength);
  std::size_t end = begin + kQuotedLength;
  while (begin > 0 && is_utf8_continuation(text[begin])) --begin;
  while (end < text.size() && is_utf8_continuation(text[end])) ++end;
  return "\"" + std::string(begin > 0 ? "..." : "") + std::string(text.substr(begin, end - begin)) +
         (end < text.size() ? "..." : "") + "\"";
}

struct ExprParser {
  std::string_view text;
  SourceLocation origin;
  std::vector<Token> tokens;
  std::size_t pos = 0;
  std::shared_ptr<ExprNode> prog = std::make_shared<ExprNode>();
  std::vector<std::string> names;
  std::unordered_map<std::string, std::uint32_t> name_index;  // into names
  std::uint32_t depth = 0;
  int nesting = 0;
  std::optional<Error> error;

  SourceLocation location_at(std::uint32_t offset) const {
    SourceLocation loc = origin;
    const std::string_view before = text.substr(0, offset);
    const auto newlines = std::count(before.begin(), before.end(), '\n');
    if (newlines == 0) {
      if (loc.column > 0) loc.column += static_cast<int>(offset);
      return loc;
    }
    loc.line += static_cast<int>(newlines);
    loc.column = static_cast<int>(offset - before.rfind('\n'));
    return loc;
  }

  std::string quoted(std::uint32_t offset) const {
    return "in expression " + quote_expression(text, offset);
  }
  std::string too_deep() const {
    return "expression nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)";
  }

  bool fail_at(std::uint32_t offset, std::string message) {
    if (!error) error = make_error(std::move(message), location_at(offset));
    return false;
  }

  std::string describe(const Token& t) const {
    if (t.kind == TokenKind::end) return "end of expression";
    std::string quoted_token(1, '\'');
    quoted_token.append(clipped(text.substr(t.offset, t.length)));
    quoted_token.push_back('\'');
    return quoted_token;
  }

  bool unexpected(const char* expected) {
    const Token& t = tokens[pos];
    return fail_at(t.offset,
                   "unexpected " + describe(t) + " " + quoted(t.offset) + "; expected " + expected);
  }

  bool lex() {
    std::uint32_t i = 0;
    const auto n = static_cast<std::uint32_t>(text.size());
    while (i < n) {
      const char c = text[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      Token t;
      t.offset = i;
      if (std::isdigit(static_cast<unsigned char>(c))) {
        std::uint32_t j = i;
        while (j < n && (is_name_char(text[j]) || text[j] == '.')) ++j;
        const std::string_view word = text.substr(i, j - i);
        if (!std::all_of(word.begin(), word.end(),
                         [](char d) { return std::isdigit(static_cast<unsigned char>(d)); })) {
          return fail_at(
              i, "invalid number '" + clipped(word) + "' " + quoted(i) + "; expected an integer");
        }
        const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), t.number);
        if (ec != std::errc{}) {
          return fail_at(
              i, "integer literal '" + clipped(word) + "' does not fit in 64 bits " + quoted(i));
        }
        t.kind = TokenKind::number;
        t.length = j - i;
        i = j;
      } else if (is_name_start(c)) {
        std::uint32_t j = i;
        while (j < n && is_name_char(text[j])) ++j;
        t.kind = TokenKind::name;
        t.length = j - i;
        i = j;
      } else {
        t.length = 1;
        const char next = i + 1 < n ? text[i + 1] : '\0';
        switch (c) {
          case '(':
            t.kind = TokenKind::lparen;
            break;
          case ')':
            t.kind = TokenKind::rparen;
            break;
          case ',':
            t.kind = TokenKind::comma;
            break;
          case '+':
          case '-':
          case '*':
          case '/':
          case '%':
            t.kind = TokenKind::op;
            break;
          case '<':
          case '>':
          case '=':
          case '!':
            t.kind = TokenKind::op;
            if (next == '=') {
              t.length = 2;
            } else if (c == '=') {
              return fail_at(i, "unexpected '=' " + quoted(i) + "; expected '==' for comparison");
            }
            break;
          case '&':
          case '|':
            if (next != c) {
              return fail_at(i, std::string("unexpected '") + c + "' " + quoted(i) +
                                    "; expected '" + c + c + "'");
            }
            t.kind = TokenKind::op;
            t.length = 2;
            break;
          default:
            return fail_at(i, std::string("unexpected character '") + c + "' " + quoted(i));
        }
        i += t.length;
      }
      tokens.push_back(t);
    }
    Token end;
    end.offset = n;
    tokens.push_back(end);
    return true;
  }

  [[nodiscard]] bool at_op(std::string_view op) const {
    const Token& t = tokens[pos];
    return t.kind == TokenKind::op && text.substr(t.offset, t.length) == op;
  }

  void emit(ExprOp op, const Token& t, std::uint32_t arg = 0, std::int64_t imm = 0) {
    ExprInstr in;
    in.op = op;
    in.arg = arg;
    in.imm = imm;
    in.token_offset = t.offset;
    in.token_length = t.length;
    prog->code.push_back(in);
    switch (op) {
      case ExprOp::push_const:
      case ExprOp::push_name:
        ++depth;
        prog->max_depth = std::max(prog->max_depth, depth);
        break;
      case ExprOp::neg:
      case ExprOp::logical_not:
      case ExprOp::to_bool:
        break;
      default:  // binary operators and the short-circuit jumps consume one value
        --depth;
        break;
    }
  }

  using Level = bool (ExprParser::*)();

  // One left-associative binary level: operand (op operand)*.
  bool binary(Level operand, std::initializer_list<std::pair<std::string_view, ExprOp>> ops) {
    if (!(this->*operand)()) return false;
    for (;;) {
      const auto it =
          std::find_if(ops.begin(), ops.end(), [&](const auto& o) { return at_op(o.first); });
      if (it == ops.end()) return true;
      const Token op_token = tokens[pos++];
      if (!(this->*operand)()) return false;
      emit(it->second, op_token);
    }
  }

  bool short_circuit(Level operand, std::string_view op, ExprOp jump) {
    if (!(this->*operand)()) return false;
    while (at_op(op)) {
      const Token op_token = tokens[pos++];
      const std::size_t jump_at = prog->code.size();
      emit(jump, op_token);
      if (!(this->*operand)()) return false;
      emit(ExprOp::to_bool, op_token);
      prog->code[jump_at].arg = static_cast<std::uint32_t>(prog->code.size());
    }
    return true;
  }

  bool parse_or() { return short_circuit(&ExprParser::parse_and, "||", ExprOp::or_jump); }
  bool parse_and() { return short_circuit(&ExprParser::parse_equality, "&&", ExprOp::and_jump); }
  bool parse_equality() {
    return binary(&ExprParser::parse_relational, {{"==", ExprOp::eq}, {"!=", ExprOp::ne}});
  }
  bool parse_relational() {
    return binary(&ExprParser::parse_additive,
                  {{"<=", ExprOp::le}, {">=", ExprOp::ge}, {"<", ExprOp::lt}, {">", ExprOp::gt}});
  }
  bool parse_additive() {
    return binary(&ExprParser::parse_multiplicative, {{"+", ExprOp::add}, {"-", ExprOp::sub}});
  }
  bool parse_multiplicative() {
    return binary(&ExprParser::parse_unary,
                  {{"*", ExprOp::mul}, {"/", ExprOp::div}, {"%", ExprOp::mod}});
  }

  bool parse_unary() {
    if (at_op("-") || at_op("!")) {
      const Token op_token = tokens[pos++];
      if (++nesting > kMaxNesting)
        return fail_at(op_token.offset, too_deep() + " " + quoted(op_token.offset));
      const bool ok = parse_unary();
      --nesting;
      if (!ok) return false;
      const bool negate = text[op_token.offset] == '-';
      // Fold "-literal" into the constant: keeps constant expressions compact.
      auto& last = prog->code.back();
      if (negate && last.op == ExprOp::push_const && last.imm != INT64_MIN) {
        last.imm = -last.imm;
        return true;
      }
      emit(negate ? ExprOp::neg : ExprOp::logical_not, op_token);
      return true;
    }
    return parse_primary();
  }

  bool parse_primary() {
    const Token t = tokens[pos];
    switch (t.kind) {
      case TokenKind::number:
        ++pos;
        emit(ExprOp::push_const, t, 0, t.number);
        return true;
      case TokenKind::lparen: {
        ++pos;
        if (++nesting > kMaxNesting) return fail_at(t.offset, too_deep() + " " + quoted(t.offset));
        if (!parse_or()) return false;
        --nesting;
        if (tokens[pos].kind != TokenKind::rparen) return unexpected("')'");
        ++pos;
        return true;
      }
      case TokenKind::name: {
        ++pos;
        const std::string name(text.substr(t.offset, t.length));
        if (tokens[pos].kind == TokenKind::lparen) return parse_call(t, name);
        const auto [it, added] = name_index.emplace(name, static_cast<std::uint32_t>(names.size()));
        if (added) names.push_back(name);
        emit(ExprOp::push_name, t, it->second);
        return true;
      }
      default:
        return unexpected("a number, a name, '(', '-' or '!'");
    }
  }

  bool parse_call(const Token& fn, const std::string& name) {
    ExprOp op = ExprOp::min;
    if (name == "min") {
      op = ExprOp::min;
    } else if (name == "max") {
      op = ExprOp::max;
    } else if (name == "ceil_div") {
      op = ExprOp::ceil_div;
    } else {
      return fail_at(fn.offset, "unknown function '" + clipped(name) + "' " + quoted(fn.offset) +
                                    "; expected min, max or ceil_div");
    }
    ++pos;  // '('
    if (++nesting > kMaxNesting) return fail_at(fn.offset, too_deep() + " " + quoted(fn.offset));
    if (!parse_or()) return false;
    if (tokens[pos].kind != TokenKind::comma) {
      return unexpected(("',' (" + name + " takes 2 arguments)").c_str());
    }
    ++pos;
    if (!parse_or()) return false;
    if (tokens[pos].kind != TokenKind::rparen) {
      return unexpected(("')' (" + name + " takes 2 arguments)").c_str());
    }
    ++pos;
    --nesting;
    emit(op, fn);
    return true;
  }

  bool parse_all() {
    if (!lex()) return false;
    if (!parse_or()) return false;
    if (tokens[pos].kind != TokenKind::end) return unexpected("an operator or end of expression");
    return true;
  }
};

Result<Expr> Expr::parse(std::string_view text, const SourceLocation& origin) {
  ExprParser parser;
  parser.text = text;
  parser.origin = origin;
  if (text.size() > UINT32_MAX / 2) return make_error("expression too long", origin);
  if (!parser.parse_all()) return *parser.error;
  Expr e;
  e.root_ = parser.prog;
  e.names_ = std::move(parser.names);
  e.text_ = std::string(text);
  e.origin_ = origin;
  return e;
}

bool Expr::mentions(std::string_view name) const {
  return std::find(names_.begin(), names_.end(), name) != names_.end();
}

namespace {

Error failure_error(const Expr& e, const ExprNode& prog, Failure f, std::size_t at) {
  const ExprInstr& in = prog.code[at];
  ExprParser locator;
  locator.text = e.text();
  locator.origin = e.origin();
  const std::string token =
      clipped(std::string_view(e.text()).substr(in.token_offset, in.token_length));
  const std::string where = " in expression " + quote_expression(e.text(), in.token_offset);
  std::string message;
  switch (f) {
    case Failure::undefined_name:
      message =
          "undefined name '" + token + "'" + where + "; expected a parameter or problem dimension";
      break;
    case Failure::division_by_zero:
      message = "division by zero at '" + token + "'" + where;
      break;
    case Failure::modulo_by_zero:
      message = "modulo by zero at '" + token + "'" + where;
      break;
    case Failure::overflow:
      message = "integer overflow at '" + token + "'" + where;
      break;
    case Failure::none:
      break;
  }
  return make_error(std::move(message), locator.location_at(in.token_offset));
}

}  // namespace

Result<std::int64_t> Expr::eval(const NameLookup& lookup) const {
  if (!root_) return make_error("empty expression", origin_);
  std::int64_t out = 0;
  std::size_t at = 0;
  const auto fetch = [&](std::uint32_t i, std::int64_t& v) {
    const auto found = lookup(names_[i]);
    if (!found) return false;
    v = *found;
    return true;
  };
  const Failure f = run(*root_, fetch, out, at);
  if (f != Failure::none) return failure_error(*this, *root_, f, at);
  return out;
}

bool Expr::eval_slots(const std::int64_t* slots, const std::uint32_t* slot_of_name,
                      std::int64_t& out) const noexcept {
  if (!root_) return false;
  std::size_t at = 0;
  const auto fetch = [&](std::uint32_t i, std::int64_t& v) {
    v = slots[slot_of_name[i]];
    return true;
  };
  return run(*root_, fetch, out, at) == Failure::none;
}

Result<std::int64_t> Expr::eval_slots_checked(const std::int64_t* slots,
                                              const std::uint32_t* slot_of_name) const {
  if (!root_) return make_error("empty expression", origin_);
  std::int64_t out = 0;
  std::size_t at = 0;
  const auto fetch = [&](std::uint32_t i, std::int64_t& v) {
    v = slots[slot_of_name[i]];
    return true;
  };
  const Failure f = run(*root_, fetch, out, at);
  if (f != Failure::none) return failure_error(*this, *root_, f, at);
  return out;
}

}  // namespace kev
