"""The integer expression language of kernelevo specs (counts, launch geometry, metrics).

Same rules as tool/core/expr.cpp: C semantics on 64-bit integers (division truncates toward
zero, the remainder takes the dividend's sign), + - * / %, comparisons, && || !, parentheses,
min, max, ceil_div. Division by zero, overflow and unknown names raise ExprError.
"""

import functools
import re

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


class ExprError(ValueError):
    pass


_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_]\w*)|(<=|>=|==|!=|&&|\|\||[-+*/%<>!(),]))")


def _tokens(text):
    pos, out = 0, []
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise ExprError(f"unexpected character {text[pos:].lstrip()[0]!r} in expression {text!r}")
        number, name, op = m.groups()
        out.append(("num", int(number)) if number else ("name", name) if name else ("op", op))
        pos = m.end()
    out.append(("end", None))
    return out


def _checked(value, text):
    if value < INT64_MIN or value > INT64_MAX:
        raise ExprError(f"overflow in expression {text!r}")
    return value


def _c_div(a, b, text):
    if b == 0:
        raise ExprError(f"division by zero in expression {text!r}")
    q = abs(a) // abs(b)
    return _checked(q if (a < 0) == (b < 0) else -q, text)


def _c_mod(a, b, text):
    if b == 0:
        raise ExprError(f"modulo by zero in expression {text!r}")
    return a - b * _c_div(a, b, text) if not (a == INT64_MIN and b == -1) else 0


def _ceil_div(a, b, text):
    q = _c_div(a, b, text)
    return q + 1 if _c_mod(a, b, text) != 0 and (a < 0) == (b < 0) else q


_BINARY = [  # lowest precedence first; && and || short-circuit
    {"||"},
    {"&&"},
    {"==", "!="},
    {"<=", ">=", "<", ">"},
    {"+", "-"},
    {"*", "/", "%"},
]
_FUNCTIONS = {"min": min, "max": max}


class _Parser:
    def __init__(self, text, names):
        self.text, self.names = text, names
        self.toks, self.i = _tokens(text), 0

    def peek(self):
        return self.toks[self.i]

    def take(self):
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, op):
        tok = self.take()
        if tok != ("op", op):
            raise ExprError(f"expected {op!r} in expression {self.text!r}")

    def parse(self):
        value = self.binary(0, True)
        if self.peek()[0] != "end":
            raise ExprError(f"unexpected {self.peek()[1]!r} in expression {self.text!r}")
        return value

    # `live` is False on the skipped side of && and ||: it is parsed, and its arithmetic
    # errors (division by zero, overflow) are ignored, as C's short-circuit never runs it.
    def binary(self, level, live):
        if level == len(_BINARY):
            return self.unary(live)
        value = self.binary(level + 1, live)
        while self.peek()[0] == "op" and self.peek()[1] in _BINARY[level]:
            op = self.take()[1]
            rhs_live = live and not (op == "&&" and value == 0) and not (op == "||" and value != 0)
            rhs = self.binary(level + 1, rhs_live)
            value = self.guarded(live, self.apply, op, value, rhs)
        return value

    @staticmethod
    def guarded(live, fn, *args):
        try:
            return fn(*args)
        except ExprError:
            if live:
                raise
            return 0

    def apply(self, op, a, b):
        t = self.text
        if op == "||":
            return 1 if a != 0 or b != 0 else 0
        if op == "&&":
            return 1 if a != 0 and b != 0 else 0
        if op in ("==", "!=", "<=", ">=", "<", ">"):
            return int({"==": a == b, "!=": a != b, "<=": a <= b, ">=": a >= b, "<": a < b, ">": a > b}[op])
        if op == "+":
            return _checked(a + b, t)
        if op == "-":
            return _checked(a - b, t)
        if op == "*":
            return _checked(a * b, t)
        if op == "/":
            return _c_div(a, b, t)
        return _c_mod(a, b, t)

    def unary(self, live):
        if self.peek() in (("op", "-"), ("op", "!")):
            op = self.take()[1]
            value = self.unary(live)
            return self.guarded(live, _checked, -value, self.text) if op == "-" else int(value == 0)
        return self.primary(live)

    def primary(self, live):
        kind, value = self.take()
        if kind == "num":
            return _checked(value, self.text)
        if kind == "op" and value == "(":
            inner = self.binary(0, live)
            self.expect(")")
            return inner
        if kind == "name":
            if self.peek() == ("op", "("):
                return self.call(value, live)
            if value not in self.names:
                raise ExprError(f"unknown name {value!r} in expression {self.text!r}")
            return int(self.names[value])
        raise ExprError(f"unexpected {value!r} in expression {self.text!r}")

    def call(self, fn, live):
        if fn not in ("min", "max", "ceil_div"):
            raise ExprError(f"unknown function {fn!r} in expression {self.text!r}")
        self.expect("(")
        a = self.binary(0, live)
        self.expect(",")
        b = self.binary(0, live)
        self.expect(")")
        if fn == "ceil_div":
            return self.guarded(live, _ceil_div, a, b, self.text)
        return _FUNCTIONS[fn](a, b)


def evaluate(text, names):
    """Evaluates `text` with `names` (parameter and dimension name -> int)."""
    return _evaluate(str(text), tuple(sorted(names.items())))


# Exported operators evaluate the same few expressions at every call; the recursive parser
# costs tens of microseconds on a let-heavy launch expression, the lookup about one.
@functools.lru_cache(maxsize=4096)
def _evaluate(text, names):
    return _Parser(text, dict(names)).parse()
