#include "core/spec_check.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/spec_space.h"

namespace kev {
namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Location of the first whole-word occurrence of `name` in the expression's text.
SourceLocation name_location(const Expr& e, const std::string& name) {
  SourceLocation where = e.origin();
  const std::string& text = e.text();
  for (std::size_t pos = text.find(name); pos != std::string::npos;
       pos = text.find(name, pos + 1)) {
    const bool starts = pos == 0 || !is_name_char(text[pos - 1]);
    const bool ends = pos + name.size() >= text.size() || !is_name_char(text[pos + name.size()]);
    if (starts && ends && where.column > 0 && text.find('\n') == std::string::npos) {
      where.column += static_cast<int>(pos);
      break;
    }
  }
  return where;
}

std::string list_names(const std::set<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::vector<Error> check_spec(const KernelSpec& spec, bool names_only,
                              std::uint64_t max_points_checked) {
  std::vector<Error> errors;
  std::set<std::string> params;
  for (const auto& p : spec.params) params.insert(p.name);
  if (!names_only && std::none_of(spec.args.begin(), spec.args.end(),
                                  [](const ArgSpec& a) { return a.output || a.inout; }))
    errors.push_back(make_error(
        "no output argument: mark the pointer the kernel writes its result to `output: true` "
        "(or `inout: true`), so that its result can be verified",
        spec.args.empty() ? spec.where : spec.args.front().where));

  // Dimensions that every shape has; a name used in an expression must be one of them.
  std::vector<const Problem*> shapes;
  for (const auto& p : spec.problems) shapes.push_back(&p);
  for (const auto& p : spec.validate) shapes.push_back(&p);
  std::set<std::string> common_dims;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    std::set<std::string> dims;
    for (const auto& [name, value] : shapes[i]->dims) {
      if (params.count(name)) {
        errors.push_back(make_error("problem dimension '" + name + "' has the name of a parameter",
                                    shapes[i]->where));
      }
      dims.insert(name);
    }
    if (i == 0) {
      common_dims = dims;
    } else {
      std::set<std::string> both;
      std::set_intersection(common_dims.begin(), common_dims.end(), dims.begin(), dims.end(),
                            std::inserter(both, both.begin()));
      common_dims = std::move(both);
    }
  }

  const auto check_names = [&](const Expr& e) {
    for (const auto& name : e.names()) {
      if (params.count(name)) {
        const ParamSpec* p = spec.param(name);
        const bool all_int = std::all_of(p->values.begin(), p->values.end(),
                                         [](const Value& v) { return v.is_int(); });
        if (!all_int) {
          errors.push_back(make_error(
              "parameter '" + name +
                  "' has non-integer values and cannot be used in expression \"" + e.text() + "\"",
              name_location(e, name)));
        }
        continue;
      }
      if (common_dims.count(name)) continue;
      std::string expected = "; expected a parameter";
      if (!shapes.empty()) {
        expected += common_dims.empty()
                        ? " (the problems share no dimension)"
                        : " or a dimension of every problem (" + list_names(common_dims) + ")";
      } else {
        expected += " (no problems are listed)";
      }
      errors.push_back(
          make_error("undefined name '" + name + "' in expression \"" + e.text() + "\"" + expected,
                     name_location(e, name)));
    }
  };
  for (const auto& c : spec.constraints) check_names(c);
  for (const auto& a : spec.args) {
    if (a.count) check_names(*a.count);
    if (a.value_expr) check_names(*a.value_expr);
  }
  for (const auto& e : spec.launch.grid) check_names(e);
  for (const auto& e : spec.launch.block) check_names(e);
  if (spec.launch.shared_bytes) check_names(*spec.launch.shared_bytes);
  if (spec.metric_bytes) check_names(*spec.metric_bytes);
  if (spec.metric_flops) check_names(*spec.metric_flops);
  if (names_only || !errors.empty() || spec.params.empty()) return errors;

  // Empty spaces: first under the parameter-only constraints, then per problem.
  const SpecSpace unconstrained_by_problems(spec, {});
  if (unconstrained_by_problems.points() > max_points_checked) return errors;
  if (unconstrained_by_problems.empty()) {
    const SourceLocation where =
        spec.constraints.empty() ? spec.where : spec.constraints.front().origin();
    errors.push_back(make_error("no valid configuration: the constraints exclude all " +
                                    std::to_string(unconstrained_by_problems.points()) +
                                    " points of the space",
                                where));
    return errors;
  }
  if (!unconstrained_by_problems.depends_on_problems()) return errors;
  for (const auto& problem : spec.problems) {
    const SpecSpace space(spec, {problem});
    if (space.empty()) {
      errors.push_back(make_error("no valid configuration for problem " + problem.to_string() +
                                      ": the constraints exclude all " +
                                      std::to_string(space.points()) + " points of the space",
                                  problem.where));
    }
  }
  if (errors.empty() && spec.problems.size() > 1 && SpecSpace(spec, spec.problems).empty()) {
    errors.push_back(
        make_error("no configuration is valid for every problem at once; tune the problems "
                   "with separate kernel specs",
                   spec.problems.front().where));
  }
  return errors;
}

}  // namespace kev
