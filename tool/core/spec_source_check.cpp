#include "core/spec_source_check.h"

#include <algorithm>
#include <set>
#include <string>

#include "core/compiler.h"
#include "core/kernel_regions.h"
#include "core/python_source.h"
#include "core/source_lexer.h"

namespace kev {

namespace {

struct KernelParam {
  std::string text;  // as written, whitespace collapsed
  bool pointer = false;
};

bool is(const Token& t, std::string_view source, std::string_view text) {
  return t.text(source) == text;
}

// The parameters of the function whose signature is `signature` (declaration start up to
// the body's '{'), or nullopt when the list cannot be told (a parameter pack, a macro).
std::optional<std::vector<KernelParam>> kernel_params(std::string_view signature,
                                                      std::string_view name) {
  std::vector<Token> code;
  for (const Token& t : lex_cuda(signature))
    if (t.kind != TokenKind::comment && t.kind != TokenKind::directive) code.push_back(t);
  std::size_t open = 0;
  while (open + 1 < code.size() &&
         !(code[open].kind == TokenKind::identifier && is(code[open], signature, name) &&
           is(code[open + 1], signature, "(")))
    ++open;
  if (open + 1 >= code.size()) return std::nullopt;
  ++open;  // the '('
  std::vector<KernelParam> params;
  std::vector<std::vector<Token>> parts(1);
  int depth = 0;  // (), [], {} and <> inside the list
  std::size_t k = open + 1;
  for (; k < code.size(); ++k) {
    const std::string_view t = code[k].text(signature);
    if (code[k].kind == TokenKind::punct) {
      if (t == "(" || t == "[" || t == "{" || t == "<") ++depth;
      if (t == ")" || t == "]" || t == "}" || t == ">") {
        if (depth == 0) break;
        --depth;
      }
      if (t == "," && depth == 0) {
        parts.emplace_back();
        continue;
      }
    }
    parts.back().push_back(code[k]);
  }
  if (k >= code.size()) return std::nullopt;
  if (parts.size() == 1 &&
      (parts[0].empty() || (parts[0].size() == 1 && is(parts[0][0], signature, "void"))))
    return params;
  for (const auto& part : parts) {
    if (part.empty()) return std::nullopt;
    KernelParam p;
    std::size_t identifiers = 0;
    for (const Token& t : part) {
      if (is(t, signature, "=")) break;                // a default argument
      if (is(t, signature, ".")) return std::nullopt;  // a parameter pack
      if (is(t, signature, "*") || is(t, signature, "[")) p.pointer = true;
      if (t.kind == TokenKind::identifier) ++identifiers;
    }
    if (identifiers < 1) return std::nullopt;
    p.text = normalize_whitespace(
        signature.substr(part.front().begin, part.back().end - part.front().begin));
    params.push_back(std::move(p));
  }
  return params;
}

// Identifiers of the source that are uses of a macro: code, and directives except the name a
// `#define`, `#undef`, `#ifdef` or `#ifndef` is about and the operand of `defined`.
std::set<std::string, std::less<>> used_names(std::string_view source) {
  std::set<std::string, std::less<>> used;
  for (const Token& t : lex_cuda(source)) {
    if (t.kind == TokenKind::identifier) used.emplace(t.text(source));
    if (t.kind != TokenKind::directive) continue;
    const std::string_view d = t.text(source);
    const std::string_view body = d.substr(d[0] == '#' ? 1 : 2);
    const auto tokens = lex_cuda(body);
    std::size_t i = 0;
    if (!tokens.empty()) {
      const std::string_view keyword = tokens[0].text(body);
      i = keyword == "define" || keyword == "undef" || keyword == "ifdef" || keyword == "ifndef"
              ? 2
              : 1;
    }
    for (; i < tokens.size(); ++i) {
      if (tokens[i].kind != TokenKind::identifier) continue;
      if (is(tokens[i], body, "defined")) {
        if (i + 1 < tokens.size() && is(tokens[i + 1], body, "(")) ++i;
        ++i;
        continue;
      }
      used.emplace(tokens[i].text(body));
    }
  }
  return used;
}

// Names an `#ifndef NAME` (or `#if !defined(NAME)`) guards.
std::set<std::string, std::less<>> guarded_names(std::string_view source) {
  std::set<std::string, std::less<>> guarded;
  for (const Token& t : lex_cuda(source)) {
    if (t.kind != TokenKind::directive) continue;
    const std::string_view d = t.text(source);
    const std::string_view body = d.substr(d[0] == '#' ? 1 : 2);
    const auto tokens = lex_cuda(body);
    if (tokens.size() >= 2 && is(tokens[0], body, "ifndef")) guarded.emplace(tokens[1].text(body));
    if (tokens.size() >= 4 && is(tokens[0], body, "if") && is(tokens[1], body, "!") &&
        is(tokens[2], body, "defined")) {
      const std::size_t at = is(tokens[3], body, "(") ? 4 : 3;
      if (at < tokens.size()) guarded.emplace(tokens[at].text(body));
    }
  }
  return guarded;
}

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

void check_args(const KernelSpec& spec, std::string_view source, const KernelRegions& regions,
                SourceCheck& out) {
  const std::string name = entry_base_name(spec.kernel);
  const std::string_view signature =
      source.substr(regions.signature.begin, regions.signature.end - regions.signature.begin);
  const SourceLocation at_kernel{spec.source, line_of(source, regions.signature.begin), 0};
  bool global = false;
  for (const Token& t : lex_cuda(signature)) global = global || is(t, signature, "__global__");
  if (!global) {
    out.errors.push_back(make_error("kernel `" + name + "` (defined at " + at_kernel.to_string() +
                                        ") is not a __global__ function",
                                    spec.where));
    return;
  }
  const auto params = kernel_params(signature, name);
  if (!params) return;
  if (params->size() != spec.args.size()) {
    out.errors.push_back(make_error("the spec lists " + plural(spec.args.size(), "argument") +
                                        " but kernel `" + name + "` (" + at_kernel.to_string() +
                                        ") takes " + plural(params->size(), "parameter"),
                                    spec.args.empty() ? spec.where : spec.args.front().where));
    return;
  }
  for (std::size_t i = 0; i < params->size(); ++i) {
    const ArgSpec& a = spec.args[i];
    const KernelParam& p = (*params)[i];
    if (a.pointer == p.pointer) continue;
    out.errors.push_back(make_error(
        "argument '" + a.name + "' is " + (a.pointer ? "a pointer" : "a scalar") +
            " but parameter " + std::to_string(i + 1) + " of kernel `" + name + "` (`" + p.text +
            "`, " + at_kernel.to_string() + ") is " + (p.pointer ? "a pointer" : "a scalar"),
        a.where));
  }
}

}  // namespace

SourceCheck check_spec_against_source(const KernelSpec& spec, std::string_view source_text) {
  SourceCheck out;
  const std::string name = entry_base_name(spec.kernel);
  const auto regions = locate_kernel_regions(source_text, {spec.source, spec.kernel, ""});
  if (!regions) {
    out.errors.push_back(make_error("kernel `" + name + "` is not defined in " + spec.source +
                                        " (no __global__ function of that name with a body)",
                                    spec.where));
  } else {
    check_args(spec, source_text, *regions, out);
  }

  auto used = used_names(source_text);
  for (const Token& t : lex_cuda(spec.kernel))
    if (t.kind == TokenKind::identifier) used.emplace(t.text(spec.kernel));
  const auto guarded = guarded_names(source_text);
  for (const auto& p : spec.params) {
    if (!used.count(p.name))
      out.warnings.push_back(make_error("parameter " + p.name + " is never used by " + spec.source +
                                            ": tuning it changes nothing",
                                        p.where));
    if (!guarded.count(p.name))
      out.warnings.push_back(make_error(
          "parameter " + p.name + " has no `#ifndef " + p.name + "` default in " + spec.source +
              ": add `#ifndef " + p.name + "` / `#define " + p.name +
              " <value>` / `#endif` so that the source builds without kernelevo and a tuned "
              "value is not redefined",
          p.where));
  }
  return out;
}

SourceCheck check_triton_spec_against_source(const KernelSpec& spec, std::string_view source_text) {
  SourceCheck out;
  const auto error = [&](std::string message, const SourceLocation& where) {
    out.errors.push_back(make_error(std::move(message), where));
  };
  const PySource py = scan_python(source_text);
  const PyFunction* f = find_function(py, spec.kernel);
  if (f == nullptr) {
    error("kernel `" + spec.kernel + "` is not defined in " + spec.source + " (no top-level `def " +
              spec.kernel + "(...)`)",
          spec.where);
    return out;
  }
  const SourceLocation at_kernel{spec.source, f->def_line, 0};
  const std::string named = "kernel `" + spec.kernel + "` (" + at_kernel.to_string() + ")";
  if (!f->triton_jit) {
    error(named + " is not a @triton.jit function", spec.where);
    return out;
  }
  if (!f->params_known) {
    error(named +
              " takes *args, **kwargs or positional-only markers; kernelevo needs plain "
              "parameters",
          spec.where);
    return out;
  }
  std::vector<const PyParam*> runtime;
  for (const auto& p : f->params)
    if (!p.is_constexpr) runtime.push_back(&p);
  if (runtime.size() != spec.args.size()) {
    error("the spec lists " + plural(spec.args.size(), "argument") + " but " + named + " takes " +
              plural(runtime.size(), "parameter") + " that are not tl.constexpr",
          spec.args.empty() ? spec.where : spec.args.front().where);
  } else {
    for (std::size_t i = 0; i < runtime.size(); ++i) {
      if (runtime[i]->name == spec.args[i].name) continue;
      error("argument " + std::to_string(i + 1) + " is '" + spec.args[i].name + "' but parameter " +
                std::to_string(i + 1) + " of " + named + " is '" + runtime[i]->name +
                "' (args name the kernel's non-constexpr parameters in order)",
            spec.args[i].where);
    }
  }
  for (const auto& p : spec.params) {
    if (is_triton_option(p.name)) {
      for (const auto& v : p.values) {
        const auto i = v.as_int();
        const bool pow2 = i && *i > 0 && (*i & (*i - 1)) == 0;
        const bool bad = p.name == "num_ctas"    ? (!pow2 || *i > kMaxPortableClusterCtas)
                         : p.name == "num_warps" ? (!pow2 || *i > 32)
                                                 : (!i || *i < 1 || *i > 16);
        if (bad)
          error(p.name +
                    (p.name == "num_ctas"
                         ? " must be 1, 2, 4 or 8 (the CTAs of a thread-block cluster, of "
                           "the portable sizes)"
                     : p.name == "num_warps" ? " must be a power of two from 1 to 32"
                                             : " must be an integer from 1 to 16") +
                    ", got '" + v.to_string() + "'",
                p.where);
      }
      continue;
    }
    const auto it = std::find_if(f->params.begin(), f->params.end(),
                                 [&](const PyParam& q) { return q.name == p.name; });
    if (it == f->params.end() || !it->is_constexpr)
      error("parameter " + p.name + " is not a tl.constexpr parameter of " + named +
                " (a Triton kernel tunes its constexpr parameters and num_warps, num_stages, "
                "num_ctas)",
            p.where);
  }
  for (const auto& q : f->params) {
    if (!q.is_constexpr || !q.default_text.empty() || spec.param(q.name) != nullptr) continue;
    error("constexpr parameter " + q.name + " of " + named +
              " has no default and is not tuned: list it under params or give it a default",
          spec.where);
  }
  return out;
}

}  // namespace kev
