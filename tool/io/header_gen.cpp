#include "io/header_gen.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/source_defaults.h"
#include "io/atomic_file.h"
#include "io/dispatch_gen.h"
#include "io/file_read.h"

namespace kev {

namespace {

// ---------------------------------------------------------------------------------------
// Small text helpers

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Untrusted text (device names from the lockfile) going into a // comment: printable,
// no backslash (a line continuation would swallow the next line), short.
std::string comment_safe(std::string_view text) {
  constexpr std::size_t kMax = 60;
  std::string s;
  for (char c : text.substr(0, kMax)) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) ||
                    std::string_view(" _.,:;()+-=/[]@<>*&").find(c) != std::string_view::npos;
    s += ok ? c : '_';
  }
  if (text.size() > kMax) s += "...";
  return s;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : std::string(sep)) + p;
  return s;
}

// "sm_90a" -> 900 (the __CUDA_ARCH__ of code built for it)
int cuda_arch_number(const Arch& a) { return a.major * 100 + a.minor * 10; }

// Parameters named in the template arguments of `kernel: "f<A, B>"`: host code instantiates
// the kernel with them, so host code needs them as compile-time constants.
std::set<std::string> template_params(const KernelSpec& spec) {
  std::set<std::string> names;
  const auto open = spec.kernel.find('<');
  if (open == std::string::npos) return names;
  static const std::regex ident(R"([A-Za-z_][A-Za-z0-9_]*)");
  const std::string args = spec.kernel.substr(open);
  for (auto it = std::sregex_iterator(args.begin(), args.end(), ident);
       it != std::sregex_iterator(); ++it) {
    if (spec.param(it->str())) names.insert(it->str());
  }
  return names;
}

// ---------------------------------------------------------------------------------------
// What each architecture gets

struct Pick {
  const Value* value = nullptr;  // the spec's value; null: the source default
  std::string why;               // which lockfile entry, and why it was chosen
  bool per_bucket = false;       // the entry has a winner per bucket: no one value
};

struct Param {
  std::string name;
  const KernelSpec* spec = nullptr;
  bool template_arg = false;
  std::map<std::string, Pick> by_arch;  // arch string -> pick
};

struct Plan {
  std::vector<Arch> points;  // architectures with their own branch, highest first
  std::vector<Param> params;
  std::vector<std::string> entry_notes;  // one comment line per kernel and architecture
};

bool arch_order(const Arch& a, const Arch& b) {  // highest first; "sm_90a" before "sm_90"
  if (a.major != b.major) return a.major > b.major;
  if (a.minor != b.minor) return a.minor > b.minor;
  return a.suffix > b.suffix;
}

// Checks every entry of the source's kernels against their specs. Fresh entries must be
// entirely valid; a stale entry (another source version) keeps only the values its spec
// still lists. Returns the lockfile restricted to these kernels and checked values.
Result<Lockfile> checked_lockfile(const std::vector<KernelSpec>& specs, const Lockfile& lock,
                                  const HeaderOptions& options,
                                  std::vector<std::string>& warnings) {
  Lockfile checked;
  for (const KernelSpec& spec : specs) {
    const auto k = lock.kernels.find(spec.id);
    if (k == lock.kernels.end()) continue;
    const bool stale = is_stale(k->second, options.source_hash);
    const auto defaults = source_defaults(options.source_text, spec);
    const std::string retune = "kernelevo tune " + options.source_name + " --kernel " + spec.id;
    if (stale && options.strict)
      return make_error(options.lockfile_name + ": kernel " + spec.id +
                            " was tuned on another version of " + options.source_name +
                            " (source_hash " + comment_safe(k->second.source_hash) + ", now " +
                            options.source_hash + "); run `" + retune + "` to re-tune it",
                        {}, ExitCode::failure);
    if (stale)
      warnings.push_back(
          options.source_name + ": kernel " + spec.id + ": " + options.lockfile_name +
          " was tuned on another version of this source; keeping the values its spec "
          "still allows. Run `" +
          retune + "` to re-tune it");
    LockedKernel& out = checked.kernels[spec.id];
    out.source = k->second.source;
    out.source_hash = k->second.source_hash;
    for (const auto& [arch, devices] : k->second.targets) {
      for (const auto& [device, entry] : devices) {
        const std::string context = options.lockfile_name + ": kernel " + spec.id + ", " +
                                    comment_safe(arch) + ", device '" + comment_safe(device) + "'";
        LockEntry kept = entry;
        // The configuration the build compiles: the kept values over the source defaults,
        // which must satisfy the spec's constraints (when a default is unknown, the compile
        // decides).
        const auto constraints_hold = [&](const ParamSet& values,
                                          const std::string& where) -> Status {
          if (spec.constraints.empty()) return ok_status();
          ParamSet full = defaults ? *defaults : ParamSet{};
          for (const auto& [name, value] : values) full[name] = value;
          if (full.size() < spec.params.size()) return ok_status();
          return check_constraints(full, spec, where);
        };
        // A fresh entry must be entirely valid; a stale one keeps the values its spec allows.
        const auto keep_checked = [&](const ParamSet& given, ParamSet& into,
                                      const std::string& where) -> Status {
          if (!stale) {
            auto check = check_params(given, spec, where);
            if (!check) return check.error();
            return constraints_hold(given, where);
          }
          into.clear();
          for (const auto& [name, value] : given) {
            auto check = check_params(ParamSet{{name, value}}, spec, where);
            if (check)
              into.emplace(name, value);
            else
              warnings.push_back(check.error().message +
                                 " (stale entry: the source default applies)");
          }
          if (auto st = constraints_hold(into, where); !st) {
            warnings.push_back(st.error().message + " (stale entry: the source defaults apply)");
            into.clear();
          }
          return ok_status();
        };
        if (auto st = keep_checked(entry.params, kept.params, context); !st) return st.error();
        for (std::size_t b = 0; b < entry.buckets.size(); ++b)
          if (auto st =
                  keep_checked(entry.buckets[b].params, kept.buckets[b].params,
                               context + ", bucket " +
                                   bucket_label(comment_safe(entry.by), entry.buckets[b].range));
              !st)
            return st.error();
        out.targets[arch][device] = std::move(kept);
      }
    }
  }
  return checked;
}

Result<Plan> make_plan(const std::vector<KernelSpec>& specs, const Lockfile& lock,
                       const HeaderOptions& options) {
  Plan plan;
  std::set<std::string> seen;
  auto add_point = [&](const std::string& name) {
    const auto a = parse_arch(name);
    if (a && seen.insert(a->to_string()).second) plan.points.push_back(*a);
  };
  for (const auto& a : options.archs) add_point(a);
  for (const auto& [id, kernel] : lock.kernels)
    for (const auto& [arch, devices] : kernel.targets) add_point(arch);
  std::sort(plan.points.begin(), plan.points.end(), arch_order);

  std::set<std::string> names;
  for (const KernelSpec& spec : specs) {
    const auto templated = template_params(spec);
    for (const Arch& point : plan.points) {
      const LockChoice choice = lookup(lock, spec.id, point.to_string(), options.device);
      plan.entry_notes.push_back(point.to_string() + ": " + comment_safe(choice.why));
    }
    for (const ParamSpec& p : spec.params) {
      if (!is_identifier(p.name))
        return make_error("parameter '" + comment_safe(p.name) + "' of kernel " + spec.id +
                              " is not a C identifier",
                          p.where);
      if (!names.insert(p.name).second)
        return make_error("parameter " + p.name + " is used by two kernels of " +
                              options.source_name + "; names must be unique within a source",
                          p.where);
      Param param{p.name, &spec, templated.count(p.name) > 0, {}};
      for (const Arch& point : plan.points) {
        const LockChoice choice = lookup(lock, spec.id, point.to_string(), options.device);
        Pick pick;
        if (choice.entry && choice.entry->has_buckets()) {
          pick.per_bucket = true;
          pick.why = spec.id + " / " + choice.arch + " / \"" + comment_safe(choice.device) +
                     "\": a winner per bucket of " + comment_safe(choice.entry->by);
        } else if (choice.entry) {
          const auto v = choice.entry->params.find(p.name);
          if (v != choice.entry->params.end()) pick.value = listed_value(p, v->second);
          pick.why = spec.id + " / " + choice.arch + " / \"" + comment_safe(choice.device) +
                     "\" (" + to_string(choice.match) +
                     (choice.lower_arch ? ", nearest locked below " + point.to_string() : "") + ")";
          if (!pick.value) pick.why += ": entry lacks it, source default";
        }
        param.by_arch[point.to_string()] = std::move(pick);
      }
      plan.params.push_back(std::move(param));
    }
  }
  return plan;
}

// ---------------------------------------------------------------------------------------
// Writing the header

std::string device_condition(const Arch& a) {
  const std::string n = std::to_string(cuda_arch_number(a));
  if (a.suffix == "a")
    return "__CUDA_ARCH__ == " + n +
           " && defined(__CUDA_ARCH_SPECIFIC__) && __CUDA_ARCH_SPECIFIC__ == " + n;
  if (a.suffix == "f")
    return "__CUDA_ARCH__ == " + n +
           " && defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH_FAMILY_SPECIFIC__ == " + n;
  return "__CUDA_ARCH__ >= " + n + " && __CUDA_ARCH__ < " + std::to_string((a.major + 1) * 100);
}

void write_device_section(std::ostream& os, const Plan& plan) {
  os << "#if defined(__CUDA_ARCH__)\n"
        "// Device code: the values of the architecture this pass compiles for.\n";
  bool first = true;
  for (const Arch& point : plan.points) {
    os << (first ? "#if " : "#elif ") << device_condition(point) << "  // " << point.to_string()
       << "\n";
    first = false;
    for (const Param& p : plan.params) {
      const Pick& pick = p.by_arch.at(point.to_string());
      if (!pick.value) continue;
      os << "#ifndef " << p.name << "\n#define " << p.name << " " << pick.value->to_string()
         << "  // " << pick.why << "\n#endif\n";
    }
  }
  if (!first) os << "#endif\n";
}

// Per __CUDA_ARCH__ number, the pick a host lookup by ptxVersion should return: the built
// architecture of that number (an arch-specific one when only it is built), else the plain one.
std::vector<std::pair<int, const Pick*>> numbered_picks(const Param& p, const Plan& plan,
                                                        const std::vector<std::string>& built) {
  std::vector<std::pair<int, const Pick*>> out;
  for (const Arch& point : plan.points) {
    const int n = cuda_arch_number(point);
    if (!out.empty() && out.back().first == n) {
      const bool plain_built = std::count(built.begin(), built.end(), point.to_string()) > 0;
      if (point.suffix.empty() && (plain_built || built.empty()))
        out.back().second = &p.by_arch.at(point.to_string());
      continue;
    }
    out.emplace_back(n, &p.by_arch.at(point.to_string()));
  }
  return out;
}

bool same_pick(const Pick* a, const Pick* b) {
  if (!a->value || !b->value) return a->value == b->value;
  return *a->value == *b->value;
}

std::string value_type(const Param& p) { return host_value_type(*p.spec->param(p.name)); }

bool all_numeric(const Param& p) {
  const auto& values = p.spec->param(p.name)->values;
  return std::none_of(values.begin(), values.end(), [](const Value& v) { return v.is_string(); });
}

std::string literal(const Value& v, const std::string& type) {
  std::string s = v.to_string();
  if (type == "double" && s.find_first_of(".eEn") == std::string::npos) s += ".0";
  if (type == "long long") s += "LL";
  return s;
}

std::string arch_values_text(const std::vector<std::pair<int, const Pick*>>& numbered,
                             const std::optional<std::string>& fallback) {
  std::vector<std::string> parts;
  for (auto it = numbered.rbegin(); it != numbered.rend(); ++it)
    parts.push_back(
        "sm_" + std::to_string(it->first / 10) + ": " +
        (it->second->value ? it->second->value->to_string() : fallback.value_or("default")));
  return join(parts, ", ");
}

}  // namespace

Result<GeneratedHeader> generate_params_header(const std::vector<KernelSpec>& specs,
                                               const Lockfile* lock, const HeaderOptions& options) {
  GeneratedHeader out;
  Lockfile checked;
  if (lock) {
    auto c = checked_lockfile(specs, *lock, options, out.warnings);
    if (!c) return c.error();
    checked = std::move(c.value());
  }
  auto planned = make_plan(specs, checked, options);
  if (!planned) return planned.error();
  const Plan& plan = planned.value();

  std::vector<std::string> built;
  for (const auto& a : options.archs)
    if (auto parsed = parse_arch(a)) built.push_back(parsed->to_string());

  std::ostringstream os;
  os << "// kernelevo/params.h for " << comment_safe(options.source_name)
     << ": generated by `kernelevo header`; do not edit.\n"
     << "// Lockfile: " << comment_safe(options.lockfile_name)
     << (lock ? "" : " (absent: every kernel builds with its source defaults)") << "\n"
     << "// Build architectures: "
     << (built.empty() ? std::string("not given (decided from __CUDA_ARCH_LIST__)")
                       : join(built, ";"))
     << (options.device ? "; device: " + comment_safe(*options.device) : std::string()) << "\n";
  for (const KernelSpec& spec : specs) {
    os << "// Kernel " << spec.id << ":\n";
    for (const Arch& point : plan.points) {
      const LockChoice choice = lookup(checked, spec.id, point.to_string(), options.device);
      os << "//   " << point.to_string() << ": " << comment_safe(choice.why) << "\n";
    }
    os << "//   other architectures: the source defaults\n";
  }
  os << "#pragma once\n\n";

  // Host decisions first: they tell whether the run-time lookup is needed at all.
  struct HostDecision {
    const Param* param;
    std::vector<std::pair<int, const Pick*>> numbered;
    bool agree = true;
    const Pick* common = nullptr;
    std::optional<std::string> fallback;  // the source default's text
    std::string type;
  };
  std::vector<HostDecision> host;
  bool need_runtime = false;
  bool need_arch_list = false;
  std::vector<std::string> served = built;  // the architectures the dispatchers serve
  if (served.empty())
    for (const Arch& a : plan.points) served.push_back(a.to_string());
  auto dispatch = plan_dispatch(specs, checked, served, options.device, options.source_name);
  if (!dispatch) return dispatch.error();
  for (const KernelDispatch& d : *dispatch)
    if (d.archs.size() > 1) need_runtime = need_arch_list = true;  // ask the loaded image
  // A parameter whose kernel has a winner per bucket on a built architecture has no one
  // value outside the compiled variants (each defines its own): there, using it is an error.
  std::vector<const Param*> per_bucket;
  for (const Param& p : plan.params) {
    bool bucketed = false;
    for (const auto& [arch, pick] : p.by_arch)
      bucketed = bucketed || (pick.per_bucket &&
                              (built.empty() || std::count(built.begin(), built.end(), arch) > 0));
    if (bucketed) per_bucket.push_back(&p);
  }
  for (const Param& p : plan.params) {
    if (std::find(per_bucket.begin(), per_bucket.end(), &p) != per_bucket.end()) continue;
    HostDecision d{&p, numbered_picks(p, plan, built), true, nullptr, {}, value_type(p)};
    d.fallback = source_default_text(options.source_text, p.name);
    if (!built.empty()) {
      std::vector<const Pick*> picks;
      for (const auto& a : built) picks.push_back(&p.by_arch.at(a));
      for (const Pick* pick : picks) d.agree = d.agree && same_pick(pick, picks.front());
      d.common = picks.empty() ? nullptr : picks.front();
    } else {
      // Unknown architectures: anything from the lowest point down gets the source default.
      static const Pick kDefault{};
      d.common = d.numbered.empty() ? &kDefault : d.numbered.front().second;
      for (const auto& [n, pick] : d.numbered) d.agree = d.agree && same_pick(pick, d.common);
      d.agree = d.agree && !d.common->value;
      if (d.numbered.empty()) d.agree = true;
    }
    if (!d.agree) {
      need_arch_list = true;
      if (all_numeric(p) && !p.template_arg) need_runtime = true;
    }
    host.push_back(std::move(d));
  }

  if (need_runtime) {
    // Guarded: a source of the target that is not marked includes every marked source's
    // header (cmake/KernelEvo.cmake), and one compiled by a host compiler alone has no kernels.
    os << "#if defined(__CUDACC__) && !defined(KERNELEVO_PARAMS_PROBE_)\n"
          "#define KERNELEVO_PARAMS_PROBE_\n"
          "// An empty kernel of this file's own: the runtime's attributes of it tell host code\n"
          "// which of this file's device images it loads (docs/spike-build.md).\n"
          "namespace {\nnamespace kernelevo_params {\n__global__ void probe() {}\n"
          "}  // namespace kernelevo_params\n}  // namespace\n#endif\n\n";
  }
  write_device_section(os, plan);
  // The host-code check (cli/host_use_check.h) compiles device passes too, and its copy of
  // the source names these in derived constants; their value does not matter there.
  std::string check_names;
  for (const HostDecision& d : host)
    if (!d.agree && all_numeric(*d.param))
      check_names += "constexpr " + d.type + " " + d.param->name + "_for(int) { return 1; }\n";
  if (!check_names.empty())
    os << "#ifdef KERNELEVO_PARAMS_HOST_CHECK\nnamespace {\nnamespace kernelevo_params {\n"
          "constexpr int lowest_built_arch() { return 0; }\n"
       << check_names << "}  // namespace kernelevo_params\n}  // namespace\n#endif\n";
  os << "#else\n// Host code: the values of the device image the runtime loads.\n";

  if (need_runtime)
    os << "#ifdef __CUDACC__\n#include <cuda_runtime.h>\n\n#include <atomic>\n#endif\n\n";
  if (need_arch_list || !built.empty()) {
    os << "namespace {\nnamespace kernelevo_params {\n\n#ifndef KERNELEVO_PARAMS_ARCH_HELPERS_\n"
          "#define KERNELEVO_PARAMS_ARCH_HELPERS_\n";
    os << "// The lowest architecture this compilation builds (nvcc defines __CUDA_ARCH_LIST__ in\n"
          "// every pass).\n"
          "constexpr int lowest_built_arch() {\n#ifdef __CUDA_ARCH_LIST__\n"
          "  constexpr int list[] = {__CUDA_ARCH_LIST__};\n  int lowest = list[0];\n"
          "  for (int arch : list) lowest = arch < lowest ? arch : lowest;\n  return lowest;\n"
          "#else\n  return 0;\n#endif\n}\n\n";
    if (!built.empty()) {
      std::vector<std::string> numbers;
      for (const auto& a : built)
        numbers.push_back(std::to_string(cuda_arch_number(*parse_arch(a))));
      numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
      os << "// Host values below assume the architectures the header was generated for.\n"
            "constexpr bool built_as_generated() {\n#ifdef __CUDA_ARCH_LIST__\n"
            "  constexpr int expected[] = {"
         << join(numbers, ", ")
         << "};\n  constexpr int list[] = {__CUDA_ARCH_LIST__};\n"
            "  for (int arch : list) {\n    bool found = false;\n"
            "    for (int e : expected) found = found || e == arch;\n    if (!found) return "
            "false;\n  }\n"
            "  for (int e : expected) {\n    bool found = false;\n"
            "    for (int arch : list) found = found || e == arch;\n    if (!found) return "
            "false;\n  }\n"
            "#endif\n  return true;\n}\n"
            "static_assert(built_as_generated(), \"kernelevo: kernelevo/params.h of "
         << comment_safe(options.source_name) << " was generated for the architectures "
         << join(built, ";")
         << " but this compilation builds others; pass the build's architectures to kernelevo "
            "header --archs\");\n\n";
    }
    os << "#endif\n\n";
    if (need_runtime) {
      os << "#if defined(__CUDACC__) && !defined(KERNELEVO_PARAMS_LOADED_ARCH_)\n"
            "#define KERNELEVO_PARAMS_LOADED_ARCH_\n"
            "// __CUDA_ARCH__ of the image the runtime loads on the current device: it picks a "
            "SASS\n"
            "// image or JIT-compiles a PTX one; ptxVersion names the virtual architecture either "
            "way.\n"
            "inline int loaded_arch() {\n  constexpr int max_devices = 64;\n  int device = 0;\n"
            "  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= max_devices) "
            "return 0;\n"
            "  static std::atomic<int> cache[max_devices];\n"
            "  int arch = cache[device].load(std::memory_order_relaxed);\n  if (arch == 0) {\n"
            "    cudaFuncAttributes attr{};\n"
            "    if (cudaFuncGetAttributes(&attr, probe) != cudaSuccess) return 0;\n"
            "    arch = attr.ptxVersion * 10;\n    cache[device].store(arch, "
            "std::memory_order_relaxed);\n"
            "  }\n  return arch;\n}\n#endif\n\n";
    }
    for (const HostDecision& d : host) {
      if (d.agree || !all_numeric(*d.param)) continue;
      const Param& p = *d.param;
      bool defaults_used = false;
      for (const auto& [n, pick] : d.numbered) defaults_used = defaults_used || !pick->value;
      defaults_used = defaults_used || built.empty();
      if (defaults_used && !d.fallback)
        return make_error(
            "cannot find the source default of " + p.name + " (a `#define " + p.name +
                " <value>` line) in " + options.source_name +
                "; host code needs it because the built architectures get different values",
            p.spec->where);
      os << "constexpr " << d.type << " " << p.name << "_for(int arch) {\n";
      for (const auto& [n, pick] : d.numbered) {
        const std::string value =
            pick->value ? literal(*pick->value, d.type) : "(" + *d.fallback + ")";
        os << "  if (arch >= " << n << " && arch < " << (n / 100 + 1) * 100 << ") return " << value
           << ";\n";
      }
      os << "  return " << (d.fallback ? "(" + *d.fallback + ")" : std::string("0"))
         << ";  // source default\n}\n";
      if (p.template_arg) {
        os << "constexpr bool " << p.name << "_agrees() {\n#ifdef __CUDA_ARCH_LIST__\n"
           << "  constexpr int list[] = {__CUDA_ARCH_LIST__};\n"
           << "  for (int arch : list)\n    if (" << p.name << "_for(arch) != " << p.name
           << "_for(list[0])) return false;\n#endif\n  return true;\n}\n"
           << "static_assert(" << p.name << "_agrees(), \"kernelevo: " << p.name
           << " is a template argument of " << comment_safe(p.spec->kernel)
           << ", so host code needs one compile-time value, but the lockfile gives the built "
              "architectures different values ("
           << arch_values_text(d.numbered, d.fallback)
           << "). Build for one of these architectures, or lock the same value for all of "
              "them.\");\n\n";
      } else {
        const std::string values = arch_values_text(d.numbered, d.fallback);
        out.host_disagreements.push_back({p.name, values});
        os << "#ifdef __CUDACC__\n"
           << "// No value of this name: the built architectures disagree (" << values << ").\n"
           << "inline " << d.type << " " << p.name
           << "_has_no_compile_time_value_in_host_code() { return 0; }\n"
           << "// (Constant for no built architecture; the parameter keeps a compiler from "
              "calling it never constant.)\n"
           << "constexpr " << d.type << " " << p.name << "_at_compile_time(int arch) {\n"
           << "  return arch < 0 ? 0 : " << p.name
           << "_has_no_compile_time_value_in_host_code();\n}\n"
           << "// Run-time host code gets the loaded image's value. nvcc checks device bodies in "
              "the host\n"
              "// pass too, so in a marked source constant evaluation gets the lowest built\n"
              "// architecture's value; in the target's other sources it is an error.\n"
           << "constexpr " << d.type << " " << p.name << "_value() {\n"
           << "  if (__builtin_is_constant_evaluated()) {\n"
              "#if defined(KERNELEVO_PARAMS_OTHER_SOURCE) || defined(KERNELEVO_PARAMS_HOST_CHECK)\n"
           << "    return " << p.name << "_at_compile_time(lowest_built_arch());\n#else\n"
           << "    return " << p.name << "_for(lowest_built_arch());\n#endif\n  }\n"
           << "  return " << p.name << "_for(loaded_arch());\n}\n"
           << "#else\n"
           << d.type << " " << p.name << "_value() = delete;  // kernelevo: " << p.name
           << " differs between the built architectures (" << values
           << "); a source nvcc does not compile cannot tell which device image loads: read it "
              "in a .cu source\n"
           << "#endif\n\n";
      }
    }
    os << "}  // namespace kernelevo_params\n}  // namespace\n\n";
  }
  for (const HostDecision& d : host) {
    const Param& p = *d.param;
    if (d.agree) {
      if (!d.common || !d.common->value) continue;  // the source default holds everywhere
      os << "#ifndef " << p.name << "\n#define " << p.name << " " << d.common->value->to_string()
         << "  // every built architecture: " << d.common->why << "\n#endif\n";
    } else if (!all_numeric(p)) {
      // A type or name cannot be chosen at run time: host code sees the lowest built
      // architecture's value (or the source default when the architectures are unknown).
      if (built.empty() || !p.by_arch.at(built.front()).value) continue;
      std::string lowest = built.front();
      for (const auto& a : built)
        if (arch_order(*parse_arch(lowest), *parse_arch(a))) lowest = a;
      const Pick& pick = p.by_arch.at(lowest);
      if (!pick.value) continue;
      os << "#ifndef " << p.name << "\n#define " << p.name << " " << pick.value->to_string()
         << "  // differs between architectures; host code sees " << lowest << ": " << pick.why
         << "\n#endif\n";
    } else if (p.template_arg) {
      os << "#ifndef " << p.name << "\n#define " << p.name << " (::kernelevo_params::" << p.name
         << "_for(::kernelevo_params::lowest_built_arch()))  // one value for every built "
            "architecture\n#endif\n";
    } else {
      os << "#ifndef " << p.name << "\n#define " << p.name << " (::kernelevo_params::" << p.name
         << "_value())  // differs between architectures: "
         << arch_values_text(d.numbered, d.fallback) << "\n#endif\n";
    }
  }
  os << "#endif\n";
  if (!per_bucket.empty()) {
    os << "\n// Kernels with a winner per bucket: each compiled variant defines its own values; "
          "any\n"
          "// other use of these names is an error (read them from kernelevo::variants, or "
          "through\n"
          "// kernelevo::dispatch, docs/build-integration.md).\n"
          "namespace {\nnamespace kernelevo_params {\n";
    for (const Param* p : per_bucket) {
      std::vector<std::string> archs;
      for (const auto& [arch, pick] : p->by_arch)
        if (pick.per_bucket) archs.push_back(arch);
      os << "#ifdef __CUDACC__\n__host__ __device__\n#endif\n"
         << "int " << p->name
         << "_has_a_winner_per_bucket() = delete;  // kernelevo: " << p->spec->id
         << " has a winner per bucket of "
         << comment_safe(p->spec->dispatch ? p->spec->dispatch->by
                                           : std::string("a problem dimension"))
         << " on " << join(archs, ", ") << ", so " << p->name
         << " has no one value here: use kernelevo::dispatch::" << p->spec->id
         << "(size, f) and decltype(variant)::" << p->name << "_value\n";
    }
    os << "}  // namespace kernelevo_params\n}  // namespace\n";
    for (const Param* p : per_bucket)
      os << "#ifndef " << p->name << "\n#define " << p->name << " (::kernelevo_params::" << p->name
         << "_has_a_winner_per_bucket())\n#endif\n";
  }
  if (!dispatch->empty()) {
    auto text = dispatch_header_text(*dispatch, options.source_text, need_runtime);
    if (!text) return text.error();
    os << "\n" << *text;
  }
  out.text = os.str();
  out.dispatch = std::move(*dispatch);
  for (const Param& p : plan.params)
    for (const auto& [arch, pick] : p.by_arch)
      if (pick.value) {
        out.tuned.push_back(p.name);
        break;
      }
  return out;
}

Result<std::vector<std::string>> parse_cuda_architectures(std::string_view list) {
  std::vector<std::string> archs;
  std::string item;
  std::stringstream ss{std::string(list)};
  while (std::getline(ss, item, ';')) {
    if (item.empty()) continue;
    if (item == "native" || item == "all" || item == "all-major" || item == "OFF" || item == "off")
      return std::vector<std::string>{};
    std::string base = item;
    for (const char* suffix : {"-real", "-virtual"}) {
      const std::string s = suffix;
      if (base.size() > s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0)
        base.resize(base.size() - s.size());
    }
    const auto arch = parse_arch("sm_" + base);
    if (!arch)
      return make_error("'" + comment_safe(item) +
                        "' is not a CUDA architecture (expected e.g. 80, 90-real, 90a-virtual)");
    archs.push_back(arch->to_string());
  }
  std::sort(archs.begin(), archs.end());
  archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
  return archs;
}

Result<bool> write_if_changed(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  // Anything but a regular file holding `text` (read no further: a bigger file differs)
  // is replaced.
  if (auto current = read_file_if_exists(path, text.size()); current && *current == text)
    return false;
  std::error_code ec;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec)
    return make_error("cannot create " + target.parent_path().string() + ": " + ec.message(), {},
                      ExitCode::environment);
  // A temporary file of its own, renamed over the target: concurrent builds writing the same
  // file never see a part, and a link at the target is replaced, not followed.
  if (auto written = write_file_atomically(target, text); !written) return written.error();
  return true;
}

}  // namespace kev
