#include "core/expr.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <map>

#include "support/cpu_time.h"

namespace kev {
namespace {

const SourceLocation kOrigin{"k.cu", 7, 10};

Result<std::int64_t> eval(std::string_view text,
                          const std::map<std::string, std::int64_t>& names = {}) {
  auto e = Expr::parse(text, kOrigin);
  if (!e) return e.error();
  return e->eval([&](std::string_view n) -> std::optional<std::int64_t> {
    const auto it = names.find(std::string(n));
    if (it == names.end()) return std::nullopt;
    return it->second;
  });
}

std::int64_t value_of(std::string_view text,
                      const std::map<std::string, std::int64_t>& names = {}) {
  auto r = eval(text, names);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? *r : -999999;
}

std::string error_of(std::string_view text, const std::map<std::string, std::int64_t>& names = {}) {
  auto r = eval(text, names);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.error().to_string();
}

TEST(Expr, Precedence) {
  EXPECT_EQ(value_of("1 + 2 * 3"), 7);
  EXPECT_EQ(value_of("(1 + 2) * 3"), 9);
  EXPECT_EQ(value_of("10 - 4 - 3"), 3);
  EXPECT_EQ(value_of("100 / 10 / 5"), 2);
  EXPECT_EQ(value_of("2 * 3 % 4"), 2);
  EXPECT_EQ(value_of("1 + 2 < 4"), 1);
  EXPECT_EQ(value_of("1 < 2 == 1"), 1);
  EXPECT_EQ(value_of("1 || 0 && 0"), 1);
  EXPECT_EQ(value_of("-2 * -3"), 6);
  EXPECT_EQ(value_of("!0 + 1"), 2);
  EXPECT_EQ(value_of("!(3 > 2)"), 0);
  EXPECT_EQ(value_of("- - 5"), 5);
}

TEST(Expr, CSemanticsOfDivisionAndModulo) {
  EXPECT_EQ(value_of("7 / 2"), 3);
  EXPECT_EQ(value_of("-7 / 2"), -3);
  EXPECT_EQ(value_of("7 / -2"), -3);
  EXPECT_EQ(value_of("7 % 3"), 1);
  EXPECT_EQ(value_of("-7 % 3"), -1);
  EXPECT_EQ(value_of("7 % -3"), 1);
  EXPECT_EQ(value_of("-7 % -3"), -1);
}

TEST(Expr, ComparisonsAndLogic) {
  EXPECT_EQ(value_of("3 <= 3"), 1);
  EXPECT_EQ(value_of("3 >= 4"), 0);
  EXPECT_EQ(value_of("3 != 4"), 1);
  EXPECT_EQ(value_of("5 && 7"), 1);
  EXPECT_EQ(value_of("0 || 7"), 1);
  EXPECT_EQ(value_of("0 || 0"), 0);
  // Short-circuit as in C: the right side is not evaluated.
  EXPECT_EQ(value_of("0 && 1 / 0"), 0);
  EXPECT_EQ(value_of("1 || 1 / 0"), 1);
}

TEST(Expr, Functions) {
  EXPECT_EQ(value_of("min(3, 9)"), 3);
  EXPECT_EQ(value_of("max(3, 9)"), 9);
  EXPECT_EQ(value_of("ceil_div(10, 4)"), 3);
  EXPECT_EQ(value_of("ceil_div(8, 4)"), 2);
  EXPECT_EQ(value_of("ceil_div(-7, 2)"), -3);
  EXPECT_EQ(value_of("ceil_div(-7, -2)"), 4);
  EXPECT_EQ(value_of("max(min(a, b), 2) * 2", {{"a", 5}, {"b", 4}}), 8);
}

TEST(Expr, NamesAndLimits) {
  auto e = Expr::parse("rows * cols + min(rows, BLOCK)", kOrigin);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->names(), (std::vector<std::string>{"rows", "cols", "BLOCK"}));
  EXPECT_TRUE(e->mentions("cols"));
  EXPECT_FALSE(e->mentions("min"));
  EXPECT_EQ(value_of("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(value_of("-9223372036854775807 - 1"), INT64_MIN);
  EXPECT_EQ(value_of("(-9223372036854775807 - 1) % -1"), 0);
  EXPECT_EQ(value_of("x_1 + _y", {{"x_1", 1}, {"_y", 2}}), 3);
}

TEST(Expr, SlotEvaluationMatchesLookup) {
  auto e = Expr::parse("ceil_div(n, B) * B - n % 3", kOrigin);
  ASSERT_TRUE(e.ok());
  const std::int64_t slots[] = {7, 100, 32};  // unused, n, B
  const std::uint32_t slot_of_name[] = {1, 2};
  std::int64_t out = 0;
  ASSERT_TRUE(e->eval_slots(slots, slot_of_name, out));
  EXPECT_EQ(out, 4 * 32 - 1);
  const std::int64_t zero_slots[] = {0, 100, 0};
  EXPECT_FALSE(e->eval_slots(zero_slots, slot_of_name, out));
  auto checked = e->eval_slots_checked(zero_slots, slot_of_name);
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().to_string(),
            "k.cu:7:10: error: division by zero at 'ceil_div' in expression \"ceil_div(n, B) * B - "
            "n % 3\"");
}

TEST(Expr, EvaluationErrorsNameLocationAndToken) {
  EXPECT_EQ(error_of("rows / x", {{"rows", 4}, {"x", 0}}),
            "k.cu:7:15: error: division by zero at '/' in expression \"rows / x\"");
  EXPECT_EQ(error_of("1 + 5 % 0"),
            "k.cu:7:16: error: modulo by zero at '%' in expression \"1 + 5 % 0\"");
  EXPECT_EQ(error_of("9223372036854775807 + 1"),
            "k.cu:7:30: error: integer overflow at '+' in expression \"9223372036854775807 + 1\"");
  EXPECT_EQ(error_of("a * a", {{"a", 4294967296}}),
            "k.cu:7:12: error: integer overflow at '*' in expression \"a * a\"");
  EXPECT_EQ(error_of("0 - a - 2", {{"a", INT64_MAX}}),
            "k.cu:7:16: error: integer overflow at '-' in expression \"0 - a - 2\"");
  EXPECT_EQ(error_of("-a", {{"a", INT64_MIN}}),
            "k.cu:7:10: error: integer overflow at '-' in expression \"-a\"");
  EXPECT_EQ(error_of("a / -1", {{"a", INT64_MIN}}),
            "k.cu:7:12: error: integer overflow at '/' in expression \"a / -1\"");
  EXPECT_EQ(error_of("2 * rows + cols", {{"rows", 1}}),
            "k.cu:7:21: error: undefined name 'cols' in expression \"2 * rows + cols\"; expected a "
            "parameter or problem dimension");
}

TEST(Expr, ParseErrorsNameTokenAndExpectation) {
  EXPECT_EQ(error_of(""),
            "k.cu:7:10: error: unexpected end of expression in expression \"\"; expected a number, "
            "a name, '(', '-' or '!'");
  EXPECT_EQ(
      error_of("1 +"),
      "k.cu:7:13: error: unexpected end of expression in expression \"1 +\"; expected a number, "
      "a name, '(', '-' or '!'");
  EXPECT_EQ(
      error_of("(1 + 2"),
      "k.cu:7:16: error: unexpected end of expression in expression \"(1 + 2\"; expected ')'");
  EXPECT_EQ(
      error_of("1 2"),
      "k.cu:7:12: error: unexpected '2' in expression \"1 2\"; expected an operator or end of "
      "expression");
  EXPECT_EQ(error_of("a $ b"),
            "k.cu:7:12: error: unexpected character '$' in expression \"a $ b\"");
  EXPECT_EQ(
      error_of("a = b"),
      "k.cu:7:12: error: unexpected '=' in expression \"a = b\"; expected '==' for comparison");
  EXPECT_EQ(error_of("a & b"),
            "k.cu:7:12: error: unexpected '&' in expression \"a & b\"; expected '&&'");
  EXPECT_EQ(error_of("a | b"),
            "k.cu:7:12: error: unexpected '|' in expression \"a | b\"; expected '||'");
  EXPECT_EQ(error_of("1e-5"),
            "k.cu:7:10: error: invalid number '1e' in expression \"1e-5\"; expected an integer");
  EXPECT_EQ(
      error_of("2.5 * x"),
      "k.cu:7:10: error: invalid number '2.5' in expression \"2.5 * x\"; expected an integer");
  EXPECT_EQ(error_of("99999999999999999999"),
            "k.cu:7:10: error: integer literal '99999999999999999999' does not fit in 64 bits in "
            "expression \"99999999999999999999\"");
  EXPECT_EQ(
      error_of("pow(2, 3)"),
      "k.cu:7:10: error: unknown function 'pow' in expression \"pow(2, 3)\"; expected min, max "
      "or ceil_div");
  EXPECT_EQ(error_of("min(1)"),
            "k.cu:7:15: error: unexpected ')' in expression \"min(1)\"; expected ',' (min takes 2 "
            "arguments)");
  EXPECT_EQ(
      error_of("max(1, 2, 3)"),
      "k.cu:7:18: error: unexpected ',' in expression \"max(1, 2, 3)\"; expected ')' (max takes "
      "2 arguments)");
  EXPECT_EQ(error_of(")"),
            "k.cu:7:10: error: unexpected ')' in expression \")\"; expected a number, a name, '(', "
            "'-' or '!'");
  EXPECT_EQ(error_of(std::string(300, '(') + "1" + std::string(300, ')')).substr(0, 47),
            "k.cu:7:266: error: expression nested too deeply");
}

TEST(Expr, DeepNestingIsRefusedWithAShortMessage) {
  const test_support::ThreadCpuTimer cpu;  // other processes on the machine do not count
  for (const std::string open : {"(", "-", "!", "min(1, ", "-(", "!!"}) {
    std::string text;
    for (int i = 0; i < 100000; ++i) text += open;
    text += "1";
    for (int i = 0; i < 100000; ++i)
      for (char c : open)
        if (c == '(') text += ')';
    auto e = Expr::parse(text, kOrigin);
    ASSERT_FALSE(e.ok()) << open;
    EXPECT_NE(e.error().message.find("expression nested too deeply (more than 256 levels)"),
              std::string::npos)
        << open << ": " << e.error().message.substr(0, 200);
    EXPECT_LT(e.error().message.size(), 300u) << open;
    EXPECT_EQ(e.error().where.line, 7);
  }
  EXPECT_LT(cpu.seconds(), 0.5);
}

// Parses `text` on a thread with a small stack: the nesting limit keeps the parser's
// recursion well inside it.
bool parses_on_small_stack(const std::string& text) {
  struct Job {
    const std::string* text;
    bool ok = false;
  } job{&text};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 2u << 20);  // a quarter of a main thread's usual 8 MiB
  pthread_t thread;
  const auto body = [](void* arg) -> void* {
    auto* j = static_cast<Job*>(arg);
    j->ok = Expr::parse(*j->text, kOrigin).ok();
    return nullptr;
  };
  EXPECT_EQ(pthread_create(&thread, &attr, body, &job), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return job.ok;
}

TEST(Expr, TheDeepestAllowedNestingParsesOnASmallStack) {
  std::string text;
  for (int i = 0; i < 64; ++i) text += "(-min(!x, ";
  text += "1";
  for (int i = 0; i < 64; ++i) text += "))";
  EXPECT_TRUE(parses_on_small_stack(text));
  EXPECT_TRUE(parses_on_small_stack(std::string(256, '(') + "1" + std::string(256, ')')));
  EXPECT_FALSE(parses_on_small_stack(std::string(257, '(') + "1" + std::string(257, ')')));
}

TEST(Expr, ErrorsQuoteAnExcerptOfALongExpression) {
  std::string sum;
  for (int i = 0; i < 50000; ++i) sum += "x + ";
  // A parse error far into the text.
  auto bad = Expr::parse(sum + "$", kOrigin);
  ASSERT_FALSE(bad.ok());
  EXPECT_LT(bad.error().message.size(), 300u);
  EXPECT_NE(bad.error().message.find("unexpected character '$' in expression \"..."),
            std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("x + $\""), std::string::npos) << bad.error().message;
  // An evaluation error: the excerpt is around the failing operator.
  auto e = Expr::parse(sum + "1 / y + " + sum + "1", kOrigin);
  ASSERT_TRUE(e.ok());
  auto r =
      e->eval([](std::string_view n) -> std::optional<std::int64_t> { return n == "y" ? 0 : 1; });
  ASSERT_FALSE(r.ok());
  EXPECT_LT(r.error().message.size(), 300u);
  EXPECT_NE(r.error().message.find("division by zero at '/' in expression \"..."),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("x + 1 / y + x"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.substr(r.error().message.size() - 4), "...\"");
  // So are long names and numbers.
  const std::string name(100000, 'n');
  auto undefined = Expr::parse(name + " + 1", kOrigin);
  ASSERT_TRUE(undefined.ok());
  auto u = undefined->eval([](std::string_view) -> std::optional<std::int64_t> { return {}; });
  ASSERT_FALSE(u.ok());
  EXPECT_LT(u.error().message.size(), 400u);
  EXPECT_NE(u.error().message.find("undefined name '" + std::string(40, 'n') + "...'"),
            std::string::npos)
      << u.error().message;
  auto number = Expr::parse("1" + name, kOrigin);
  ASSERT_FALSE(number.ok());
  EXPECT_LT(number.error().message.size(), 400u);
  // Short expressions are quoted whole.
  EXPECT_EQ(quote_expression("a + b", 2), "\"a + b\"");
}

TEST(Expr, ManyDistinctNamesParseQuickly) {
  std::string text = "a0";
  for (int i = 1; i < 50000; ++i) text += " + a" + std::to_string(i);
  const test_support::ThreadCpuTimer cpu;  // other processes on the machine do not count
  auto e = Expr::parse(text, kOrigin);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->names().size(), 50000u);
  EXPECT_EQ(e->names()[49999], "a49999");
  EXPECT_LT(cpu.seconds(), 0.5);
}

TEST(Expr, MultiLineTextLocatesLineAndColumn) {
  auto e = Expr::parse("a +\n  b / 0", kOrigin);
  ASSERT_TRUE(e.ok());
  auto r = e->eval([](std::string_view) -> std::optional<std::int64_t> { return 1; });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where.to_string(), "k.cu:8:5");
}

TEST(Expr, DefaultConstructedReportsEmpty) {
  Expr e;
  auto r = e.eval([](std::string_view) -> std::optional<std::int64_t> { return 1; });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "empty expression");
}

}  // namespace
}  // namespace kev
