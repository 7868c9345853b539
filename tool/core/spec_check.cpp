#include "core/spec_check.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

#include "core/arg_layout.h"
#include "core/spec_space.h"

namespace kev {
namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Offset of the first whole-word occurrence of `name` in the expression's text (0 if none).
std::size_t name_offset(const Expr& e, const std::string& name) {
  const std::string& text = e.text();
  for (std::size_t pos = text.find(name); pos != std::string::npos;
       pos = text.find(name, pos + 1)) {
    const bool starts = pos == 0 || !is_name_char(text[pos - 1]);
    const bool ends = pos + name.size() >= text.size() || !is_name_char(text[pos + name.size()]);
    if (starts && ends) return pos;
  }
  return 0;
}

// Location of that occurrence (the expression's start where it spans several lines).
SourceLocation name_location(const Expr& e, const std::string& name) {
  SourceLocation where = e.origin();
  if (where.column > 0 && e.text().find('\n') == std::string::npos)
    where.column += static_cast<int>(name_offset(e, name));
  return where;
}

std::string in_expression(const Expr& e, const std::string& name) {
  return " in expression " + quote_expression(e.text(), name_offset(e, name));
}

std::string reserved_sm_count(const std::string& what) {
  return std::string("'") + std::string(kSmCountName) + "' cannot name " + what +
         ": it is the device's multiprocessor count in expressions";
}

std::string list_names(const std::set<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

constexpr std::uint64_t kLaunchChecksInOrder = 256;
// What `sm_count` stands for where no device is at hand: whether a launch resolves at all
// (an H100's or H200's count).
constexpr int kStandInSmCount = 132;
constexpr int kLaunchChecksAtRandom = 32;

// An error when no configuration tried resolves (arguments, launch geometry and metrics for
// every problem and validate shape): a count that overflows everywhere is a spec error, not
// something the tuner finds out at every point. Tries the first valid points in order, then
// some drawn at random when there are more.
std::optional<Error> unlaunchable(const KernelSpec& spec, const SpecSpace& space,
                                  std::uint64_t count_steps) {
  std::vector<const Problem*> shapes;
  for (const auto& p : spec.problems) shapes.push_back(&p);
  for (const auto& p : spec.validate) shapes.push_back(&p);
  if (shapes.empty()) return std::nullopt;
  std::optional<Error> first;
  std::string first_at;
  std::uint64_t tried = 0;
  const auto launches = [&](const Point& p) {
    ++tried;
    const ParamSet params = space.to_params(p);
    for (const Problem* shape : shapes) {
      auto resolved = resolve_problem(spec, params, *shape, kStandInSmCount);
      if (resolved) continue;
      if (!first) {
        first = resolved.error();
        first_at = space.key(p) + ", problem " + shape->to_string();
      }
      return false;
    }
    return true;
  };
  bool launched = false;
  bool more = false;
  const bool searched = space.for_each_within(count_steps, [&](const Point& p) {
    if (tried == kLaunchChecksInOrder) {
      more = true;
      return false;
    }
    launched = launches(p);
    return !launched;
  });
  if (launched || !first) return std::nullopt;
  if (more || !searched) {
    Rng rng(1);
    for (int i = 0; i < kLaunchChecksAtRandom && !launched; ++i) {
      const auto p = space.sample(rng);
      if (!p) break;
      launched = launches(*p);
    }
    if (launched) return std::nullopt;
    return make_error("none of the " + std::to_string(tried) +
                          " configurations tried can be launched: " + first->message +
                          " (first at " + first_at + ")",
                      first->where);
  }
  return make_error(
      "no configuration can be launched: " + first->message + " (first at " + first_at + ")",
      first->where);
}

// "all 12 points of the space", or "every point of the space" beyond 2^64 - 1.
std::string all_points(const SpecSpace& space) {
  if (space.points() == std::numeric_limits<std::uint64_t>::max()) return "every point";
  return "all " + std::to_string(space.points()) + " points";
}

// The dimensions every one of `shapes` has.
std::set<std::string> shared_dims(const std::vector<const Problem*>& shapes) {
  std::set<std::string> common;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    std::set<std::string> dims;
    for (const auto& [name, value] : shapes[i]->dims) dims.insert(name);
    if (i == 0) {
      common = std::move(dims);
      continue;
    }
    std::set<std::string> both;
    std::set_intersection(common.begin(), common.end(), dims.begin(), dims.end(),
                          std::inserter(both, both.begin()));
    common = std::move(both);
  }
  return common;
}

// `dispatch`: its dimension is one every problem has, each bucket holds at least one problem
// (its winner is tuned on them), and each problem lies in a bucket (else no search would
// measure it).
void check_dispatch(const KernelSpec& spec, std::vector<Error>& errors) {
  const DispatchSpec& d = *spec.dispatch;
  std::vector<const Problem*> problems;
  for (const auto& p : spec.problems) problems.push_back(&p);
  const std::set<std::string> problem_dims = shared_dims(problems);
  if (spec.problems.empty()) {
    errors.push_back(make_error("'dispatch' needs problems to tune each bucket on", d.where));
    return;
  }
  if (!problem_dims.count(d.by)) {
    errors.push_back(
        make_error("dispatch.by: '" + clipped(d.by) + "' is not a dimension of every problem" +
                       (problem_dims.empty() ? std::string(" (the problems share no dimension)")
                                             : " (" + list_names(problem_dims) + ")"),
                   d.where));
    return;
  }
  std::string values;
  for (const Problem& p : spec.problems)
    values += (values.empty() ? "" : ", ") + std::to_string(p.dims.at(d.by));
  for (std::size_t b = 0; b < d.buckets.size(); ++b)
    if (problems_in(spec.problems, d.by, d.buckets[b]).empty())
      errors.push_back(make_error(
          "dispatch.buckets: bucket " + std::to_string(b) + " " + d.buckets[b].to_string() +
              " holds none of the problems (" + d.by + " = " + values +
              "); its winner is tuned on its problems, so add a problem inside it or remove it",
          b < d.bucket_where.size() ? d.bucket_where[b] : d.where));
  for (const Problem& p : spec.problems) {
    const std::int64_t v = p.dims.at(d.by);
    if (std::none_of(d.buckets.begin(), d.buckets.end(),
                     [&](const BucketRange& r) { return r.contains(v); }))
      errors.push_back(make_error("problem " + p.to_string() + " lies in no bucket of dispatch (" +
                                      d.by + " = " + std::to_string(v) +
                                      "); no bucket's search would measure it",
                                  p.where));
  }
}

// A tensor map covers a pointer argument's buffer.
void check_tensor_map_target(const KernelSpec& spec, const ArgSpec& a, std::vector<Error>& errors) {
  const auto target = std::find_if(spec.args.begin(), spec.args.end(),
                                   [&](const ArgSpec& b) { return b.name == a.tensor_map->of; });
  if (target == spec.args.end() || !target->pointer) {
    errors.push_back(make_error("tensor map '" + a.name + "' is of '" + clipped(a.tensor_map->of) +
                                    "', which is not a pointer argument of the kernel",
                                a.tensor_map->where));
  }
}

}  // namespace

std::vector<Error> check_spec(const KernelSpec& spec, bool names_only, std::uint64_t count_steps) {
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
  for (const Problem* shape : shapes)
    for (const auto& [name, value] : shape->dims) {
      if (params.count(name))
        errors.push_back(make_error("problem dimension '" + name + "' has the name of a parameter",
                                    shape->where));
      if (name == kSmCountName)
        errors.push_back(make_error(reserved_sm_count("a problem dimension"), shape->where));
    }
  for (const auto& p : spec.params)
    if (p.name == kSmCountName)
      errors.push_back(make_error(reserved_sm_count("a parameter"), p.where));
  const std::set<std::string> common_dims = shared_dims(shapes);

  // `device_known`: the expression is evaluated at launch, where `sm_count` has a value.
  const auto check_names = [&](const Expr& e, bool device_known = true) {
    for (const auto& name : e.names()) {
      if (name == kSmCountName && !params.count(name) && !common_dims.count(name)) {
        if (!device_known)
          errors.push_back(make_error(
              "'sm_count' (the device's multiprocessor count) is known only at launch" +
                  in_expression(e, name) +
                  ": a constraint must hold on every device (use it in launch, args or metrics)",
              name_location(e, name)));
        continue;
      }
      if (params.count(name)) {
        const ParamSpec* p = spec.param(name);
        const bool all_int = std::all_of(p->values.begin(), p->values.end(),
                                         [](const Value& v) { return v.is_int(); });
        if (!all_int) {
          errors.push_back(make_error("parameter '" + name +
                                          "' has non-integer values and cannot be used" +
                                          in_expression(e, name),
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
          make_error("undefined name '" + clipped(name) + "'" + in_expression(e, name) + expected,
                     name_location(e, name)));
    }
  };
  for (const auto& c : spec.constraints) check_names(c, false);
  for (const auto& a : spec.args) {
    if (a.count) check_names(*a.count);
    if (a.value_expr) check_names(*a.value_expr);
    if (a.tensor_map) {
      for (const auto& e : a.tensor_map->dims) check_names(e);
      for (const auto& e : a.tensor_map->box) check_names(e);
      check_tensor_map_target(spec, a, errors);
    }
  }
  for (const auto& e : spec.launch.grid) check_names(e);
  for (const auto& e : spec.launch.block) check_names(e);
  if (spec.launch.shared_bytes) check_names(*spec.launch.shared_bytes);
  if (spec.launch.cluster) check_names(*spec.launch.cluster);
  if (spec.metric_bytes) check_names(*spec.metric_bytes);
  if (spec.metric_flops) check_names(*spec.metric_flops);
  if (spec.dispatch) check_dispatch(spec, errors);
  if (names_only || !errors.empty() || spec.params.empty()) return errors;

  // Empty spaces: first under the parameter-only constraints, then per problem. A space too
  // costly to count is taken to be non-empty (the tuner's sampler finds out).
  const SpecSpace unconstrained_by_problems(spec, {}, count_steps);
  if (unconstrained_by_problems.empty()) {
    const SourceLocation where =
        spec.constraints.empty() ? spec.where : spec.constraints.front().origin();
    errors.push_back(make_error("no valid configuration: the constraints exclude " +
                                    all_points(unconstrained_by_problems) + " of the space",
                                where));
    return errors;
  }
  if (unconstrained_by_problems.depends_on_problems()) {
    for (const auto& problem : spec.problems) {
      const SpecSpace space(spec, {problem}, count_steps);
      if (space.empty()) {
        errors.push_back(make_error("no valid configuration for problem " + problem.to_string() +
                                        ": the constraints exclude " + all_points(space) +
                                        " of the space",
                                    problem.where));
      }
    }
    if (!errors.empty()) return errors;
  }
  if (spec.dispatch) {
    // Each bucket is searched on its own problems.
    for (std::size_t b = 0; b < spec.dispatch->buckets.size(); ++b) {
      const KernelSpec one = bucket_spec(spec, b);
      const SpecSpace bucket_space(one, one.problems, count_steps);
      if (one.problems.size() > 1 && bucket_space.empty())
        errors.push_back(make_error("no configuration is valid for every problem of bucket " +
                                        bucket_label(spec.dispatch->by, spec.dispatch->buckets[b]) +
                                        " at once; split the bucket",
                                    spec.dispatch->bucket_where[b]));
    }
    if (!errors.empty()) return errors;
    const SpecSpace any(spec, {}, count_steps);
    if (auto e = unlaunchable(spec, any, count_steps)) errors.push_back(std::move(*e));
    return errors;
  }
  const SpecSpace space(spec, spec.problems, count_steps);
  if (spec.problems.size() > 1 && space.empty()) {
    errors.push_back(
        make_error("no configuration is valid for every problem at once; tune the problems "
                   "with separate kernel specs",
                   spec.problems.front().where));
    return errors;
  }
  if (auto e = unlaunchable(spec, space, count_steps)) errors.push_back(std::move(*e));
  return errors;
}

}  // namespace kev
