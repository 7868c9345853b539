#include "cli/spec_json.h"

#include <optional>
#include <string>

#include "core/source_defaults.h"
#include "io/file_read.h"
#include "io/json_value.h"

namespace kev::cli {
namespace {

using Json = nlohmann::ordered_json;

Json expr_json(const std::optional<Expr>& e) {
  if (!e) return nullptr;
  return e->text();
}

Json exprs_json(const std::vector<Expr>& exprs) {
  Json out = Json::array();
  for (const auto& e : exprs) out.push_back(e.text());
  return out;
}

Json strings_json(const std::vector<std::string>& strings) {
  Json out = Json::array();
  for (const auto& s : strings) out.push_back(s);
  return out;
}

Json defaults_json(const KernelSpec& spec) {
  const auto text = read_regular_file(spec.source, kMaxSourceBytes);
  if (!text) return nullptr;
  const auto defaults = source_defaults(*text, spec);
  if (!defaults) return nullptr;
  Json out = Json::object();
  for (const auto& [name, value] : *defaults) out[name] = io::value_to_json<Json>(value);
  return out;
}

Json arg_json(const ArgSpec& a) {
  if (a.tensor_map) {
    return {{"name", a.name},
            {"pointer", false},
            {"tensor_map",
             {{"of", a.tensor_map->of},
              {"dims", exprs_json(a.tensor_map->dims)},
              {"box", exprs_json(a.tensor_map->box)},
              {"swizzle", a.tensor_map->swizzle}}}};
  }
  Json out = {{"name", a.name}, {"type", cuda_name(a.type)}, {"pointer", a.pointer}};
  if (a.pointer) {
    out["const"] = a.is_const;
    out["count"] = expr_json(a.count);
    if (!a.output) {  // outputs are poisoned, never filled
      out["init"] = init_name(a.init);
      if (a.init == InitKind::constant) out["init_value"] = a.init_value;
      if (a.init == InitKind::uniform || a.init == InitKind::randint)
        out["init_range"] = {a.init_low, a.init_value};
    }
    out["output"] = a.output;
    out["inout"] = a.inout;
    out["scratch"] = a.scratch;
  } else if (a.float_value) {
    out["value"] = *a.float_value;
  } else {
    out["value"] = expr_json(a.value_expr);
  }
  return out;
}

}  // namespace

void add_spec_json(const KernelSpec& spec, Json& out) {
  out["defaults"] = defaults_json(spec);
  out["constraints"] = exprs_json(spec.constraints);  // `let` names expanded
  out["problems"] = io::problems_to_json<Json>(spec.problems);
  out["validate"] = io::problems_to_json<Json>(spec.validate);
  Json args = Json::array();
  for (const auto& a : spec.args) args.push_back(arg_json(a));
  out["args"] = std::move(args);
  out["launch"] = {{"grid", exprs_json(spec.launch.grid)},
                   {"block", exprs_json(spec.launch.block)},
                   {"shared_bytes", expr_json(spec.launch.shared_bytes)},
                   {"cluster", expr_json(spec.launch.cluster)}};
  out["reference"] = spec.reference;
  if (!spec.reference_source.empty()) out["reference_source"] = spec.reference_source;
  if (spec.language == SourceLanguage::triton) out["language"] = "triton";  // else CUDA
  out["tolerance"] = {{"rtol", spec.tolerance.rtol}, {"atol", spec.tolerance.atol}};
  out["metrics"] = {{"bytes", expr_json(spec.metric_bytes)},
                    {"flops", expr_json(spec.metric_flops)}};
  out["arch"] = spec.arch;
  out["include_dirs"] = strings_json(spec.include_dirs);
  out["defines"] = strings_json(spec.defines);
  out["flags"] = strings_json(spec.flags);
  if (spec.time_alone) out["timing"] = "alone";
  if (spec.objectives) {
    Json minimize = Json::array();
    for (Resource r : spec.objectives->minimize) minimize.push_back(to_string(r));
    out["objectives"] = {{"minimize", minimize}, {"within", spec.objectives->within}};
  }
}

}  // namespace kev::cli
