#include "io/dispatch_gen.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "core/source_defaults.h"

namespace kev {

namespace {

int arch_number(const Arch& a) { return a.major * 100 + a.minor * 10; }

bool numeric(const ParamSpec& p) {
  return std::none_of(p.values.begin(), p.values.end(),
                      [](const Value& v) { return v.is_string(); });
}

// The text a variant builds for `p`: the spec's value, else the source default.
std::optional<std::string> value_text(const ParamSet& variant, const ParamSpec& p,
                                      const std::string& source_text) {
  if (auto v = variant.find(p.name); v != variant.end())
    if (const Value* listed = listed_value(p, v->second)) return listed->to_string();
  if (auto d = source_default_text(source_text, p.name)) return "(" + *d + ")";
  return std::nullopt;
}

std::string variant_summary(const ParamSet& variant, const KernelSpec& spec) {
  std::string s;
  for (const ParamSpec& p : spec.params) {
    auto v = variant.find(p.name);
    const Value* listed = v == variant.end() ? nullptr : listed_value(p, v->second);
    s += (s.empty() ? "" : ", ") + p.name + "=" + (listed ? listed->to_string() : "default");
  }
  return s;
}

std::string base_name(const std::string& kernel) {
  std::string s = kernel.substr(0, kernel.find('<'));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Who uses a variant: "sm_90 cols [0, 2048)", "sm_80 (every problem)".
std::string users_of(const KernelDispatch& d, std::size_t variant) {
  std::string s;
  for (const DispatchArch& a : d.archs) {
    if (a.buckets.empty()) {
      if (a.variant == variant) s += (s.empty() ? "" : ", ") + a.arch + " (every problem)";
      continue;
    }
    for (const auto& [range, v] : a.buckets)
      if (v == variant) s += (s.empty() ? "" : ", ") + a.arch + " " + bucket_label(a.by, range);
  }
  return s;
}

// ", compiled with KERNELEVO_SIZE_cols=1024" for a variant with a size define.
std::string size_note(const KernelDispatch& d, std::size_t variant) {
  const auto& define = d.size_defines[variant];
  return define ? ", compiled with " + *define : std::string();
}

}  // namespace

const Value* listed_value(const ParamSpec& p, const Value& v) {
  for (const Value& listed : p.values)
    if (same_value(listed, v)) return &listed;
  return nullptr;
}

std::string host_value_type(const ParamSpec& p) {
  bool any_double = false;
  bool fits_int = true;
  for (const Value& v : p.values) {
    if (v.is_double()) any_double = true;
    if (v.is_int()) {
      const auto i = *v.as_int();
      fits_int =
          fits_int && i >= std::numeric_limits<int>::min() && i <= std::numeric_limits<int>::max();
    }
  }
  if (any_double) return "double";
  return fits_int ? "int" : "long long";
}

Result<std::vector<KernelDispatch>> plan_dispatch(const std::vector<KernelSpec>& specs,
                                                  const Lockfile& lock,
                                                  const std::vector<std::string>& archs,
                                                  const std::optional<std::string>& device,
                                                  const std::string& source_name) {
  // Host code tells images apart by __CUDA_ARCH__ only: sm_90a's entries serve an sm_90
  // number only when plain sm_90 is not among the architectures.
  std::vector<Arch> points;
  for (const auto& a : archs)
    if (auto parsed = parse_arch(a)) points.push_back(*parsed);
  std::sort(points.begin(), points.end(), [](const Arch& a, const Arch& b) {
    if (arch_number(a) != arch_number(b)) return arch_number(a) > arch_number(b);
    return a.suffix < b.suffix;  // the plain one first
  });
  points.erase(
      std::unique(points.begin(), points.end(),
                  [](const Arch& a, const Arch& b) { return arch_number(a) == arch_number(b); }),
      points.end());

  std::vector<KernelDispatch> plan;
  std::size_t macro_kernels = 0;
  for (const KernelSpec& spec : specs) {
    if (!spec.dispatch) continue;
    KernelDispatch d;
    d.spec = &spec;
    d.templated = is_template_kernel(spec);
    if (!d.templated) {
      ++macro_kernels;
      d.renamed.push_back(base_name(spec.kernel));
      if (spec.reference != "default" && spec.reference != d.renamed.front())
        d.renamed.push_back(base_name(spec.reference));
      for (const auto& e : spec.dispatch->entries)
        if (std::find(d.renamed.begin(), d.renamed.end(), e) == d.renamed.end())
          d.renamed.push_back(e);
    }
    const auto variant_of = [&](const ParamSet& params,
                                std::optional<std::string> size_define = std::nullopt) {
      for (std::size_t k = 0; k < d.variants.size(); ++k)
        if (d.variants[k] == params && d.size_defines[k] == size_define) return k;
      d.variants.push_back(params);
      d.size_defines.push_back(std::move(size_define));
      return d.variants.size() - 1;
    };
    for (const Arch& point : points) {
      const LockChoice choice = lookup(lock, spec.id, point.to_string(), device);
      DispatchArch a{point.to_string(), arch_number(point), choice.why, "", {}, 0};
      const LockEntry* e = choice.entry;
      if (e && e->has_buckets() && e->by == spec.dispatch->by) {
        a.by = e->by;
        for (const LockBucket& b : e->buckets)
          a.buckets.emplace_back(
              b.range, variant_of(b.params, bucket_compile_define(spec, e->by, b.range, b.sized)));
      } else {
        if (e && e->has_buckets())
          a.why += "; its buckets split " + e->by + ", not the spec's " + spec.dispatch->by +
                   ": source defaults";
        a.variant = variant_of(e && !e->has_buckets() ? e->params : ParamSet{});
      }
      d.archs.push_back(std::move(a));
    }
    if (d.archs.empty()) {
      d.archs.push_back(
          {"other", 0, "no architecture locked or built: source defaults", "", {}, 0});
      variant_of({});
    }
    plan.push_back(std::move(d));
  }
  // A source with a macro-parameterised dispatching kernel is compiled once per slot in place
  // of itself, so every kernel it marks must be one too: another kernel would be defined once
  // per slot (a macro kernel without dispatch) or instantiated there (a template kernel).
  if (macro_kernels > 0)
    for (const KernelSpec& spec : specs) {
      if (spec.dispatch && !is_template_kernel(spec)) continue;
      return make_error(source_name + ": kernel " + spec.id +
                            (spec.dispatch ? " is a template kernel" : " has no `dispatch`") +
                            ", but the source is compiled once per winner of its "
                            "macro-parameterised kernels with `dispatch`, so every kernel it "
                            "marks needs `dispatch` and macro parameters; move " +
                            spec.id + " to a source of its own",
                        spec.where);
    }
  return plan;
}

Result<std::string> dispatch_header_text(const std::vector<KernelDispatch>& plan,
                                         const std::string& source_text, bool runtime) {
  if (plan.empty()) return std::string();
  std::ostringstream os;
  os << "// Dispatch: the winner of each problem size (docs/build-integration.md).\n"
        "#ifndef KERNELEVO_DISPATCH_DETAIL_\n#define KERNELEVO_DISPATCH_DETAIL_\n"
        "namespace kernelevo {\nnamespace dispatch_detail {\n"
        "struct Bucket {\n  long long lo;\n  long long hi;  // exclusive, when bounded\n"
        "  bool bounded;\n  int variant;\n};\n"
        "// A size below 1 counts as 1: bucket distances are ratios.\n"
        "constexpr double size_of(long long x) { return x < 1 ? 1.0 : static_cast<double>(x); "
        "}\n"
        "// The variant of the bucket holding v, else of the nearest one by ratio (lo / v below\n"
        "// it, v / (hi - 1) above it; the lower on a tie), as kernelevo picks a bucket's winner.\n"
        "template <int N>\nconstexpr int pick(const Bucket (&buckets)[N], long long v) {\n"
        "  int best = 0;\n  double best_distance = -1;\n"
        "  for (int i = 0; i < N; ++i) {\n    const Bucket& b = buckets[i];\n"
        "    const double d = v < b.lo                 ? size_of(b.lo) / size_of(v)\n"
        "                     : b.bounded && v >= b.hi ? size_of(v) / size_of(b.hi - 1)\n"
        "                                              : 0.0;\n"
        "    if (best_distance < 0 || d < best_distance) {\n      best_distance = d;\n"
        "      best = i;\n    }\n  }\n"
        "  return buckets[best].variant;\n}\n"
        "}  // namespace dispatch_detail\n}  // namespace kernelevo\n#endif\n\n";
  for (const KernelDispatch& d : plan) {
    const KernelSpec& spec = *d.spec;
    const std::string& id = spec.id;
    const std::string fn = id;  // the dispatcher's name: the kernel id
    os << "// " << id << ": " << d.variants.size() << " compiled variant"
       << (d.variants.size() == 1 ? "" : "s") << ", by " << spec.dispatch->by << "\n";
    os << "namespace kernelevo {\nnamespace variants {\nnamespace " << id << " {\n"
       << "constexpr int count = " << d.variants.size() << ";\n"
       << "template <int K>\nstruct variant;\n";
    for (std::size_t k = 0; k < d.variants.size(); ++k) {
      os << "// " << variant_summary(d.variants[k], spec) << size_note(d, k) << "; serves "
         << users_of(d, k) << "\n"
         << "template <>\nstruct variant<" << k << "> {\n  static constexpr int index = " << k
         << ";\n";
      for (const ParamSpec& p : spec.params) {
        if (!numeric(p)) {
          os << "  // " << p.name << ": not a number; the variant's source gets it as a macro\n";
          continue;
        }
        const auto text = value_text(d.variants[k], p, source_text);
        if (!text) {
          os << "  // " << p.name << ": no source default found\n";
          continue;
        }
        os << "  static constexpr " << host_value_type(p) << " " << p.name << "_value = " << *text
           << ";\n";
      }
      os << "};\n";
    }
    os << "}  // namespace " << id << "\n}  // namespace variants\n\n"
       << "namespace dispatch {\n"
       << "// The variant of " << id << " serving " << spec.dispatch->by
       << " on code built for __CUDA_ARCH__ `arch`; a size outside every bucket takes the "
          "nearest\n// bucket's variant, an architecture not listed the lowest one's.\n"
       << "constexpr int " << fn << "_for_arch(int arch, long long " << spec.dispatch->by
       << ") {\n";
    for (std::size_t i = 0; i < d.archs.size(); ++i) {
      const DispatchArch& a = d.archs[i];
      const bool last = i + 1 == d.archs.size();
      std::string indent = "  ";
      if (!last) {
        os << "  if (arch >= " << a.number << " && arch < " << (a.number / 100 + 1) * 100
           << ") {  // " << a.arch << ": " << a.why << "\n";
        indent = "    ";
      } else {
        os << "  // " << a.arch << " and any other architecture: " << a.why << "\n";
      }
      if (a.buckets.empty()) {
        os << indent << "return " << a.variant << ";\n";
      } else {
        os << indent << "constexpr dispatch_detail::Bucket buckets[] = {";
        for (std::size_t b = 0; b < a.buckets.size(); ++b) {
          const BucketRange& r = a.buckets[b].first;
          os << (b ? ", " : "") << "{" << r.lo << "LL, " << (r.hi ? std::to_string(*r.hi) : "0")
             << "LL, " << (r.hi ? "true" : "false") << ", " << a.buckets[b].second << "}";
        }
        os << "};\n"
           << indent << "return dispatch_detail::pick(buckets, " << spec.dispatch->by << ");\n";
      }
      if (!last) os << "  }\n";
    }
    if (d.archs.size() == 1) os << "  (void)arch;\n";
    os << "}\n";
    const std::string call = d.archs.size() == 1 ? std::to_string(d.archs.front().number)
                                                 : std::string("::kernelevo_params::loaded_arch()");
    const bool needs_runtime = d.archs.size() > 1 && runtime;
    os << "// The variant of " << id << " serving " << spec.dispatch->by
       << " on the device image the runtime loads.\n";
    const std::string& by = spec.dispatch->by;
    if (needs_runtime)
      os << "#if defined(__CUDA_ARCH__)  // (host code seen by a device pass)\n"
         << "inline int " << fn << "(long long " << by << ") { return " << fn
         << "_for_arch(__CUDA_ARCH__, " << by << "); }\n#elif defined(__CUDACC__)\n";
    os << (needs_runtime ? "inline int " : "constexpr int ") << fn << "(long long " << by
       << ") {\n  return " << fn << "_for_arch(" << call << ", " << by << ");\n}\n";
    if (needs_runtime)
      os << "#else\nint " << fn << "(long long " << spec.dispatch->by
         << ") = delete;  // kernelevo: the built architectures dispatch " << id
         << " differently; a source nvcc does not compile cannot tell which device image "
            "loads: call it in a .cu source, or call "
         << fn << "_for_arch\n#endif\n";
    if (needs_runtime) os << "#if defined(__CUDA_ARCH__) || defined(__CUDACC__)\n";
    os << "// Calls f(kernelevo::variants::" << id << "::variant<K>{}) with that variant.\n"
       << "template <class F>\ndecltype(auto) " << fn << "(long long " << spec.dispatch->by
       << ", F&& f) {\n  switch (" << fn << "(" << spec.dispatch->by << ")) {\n";
    for (std::size_t k = 1; k < d.variants.size(); ++k)
      os << "    case " << k << ":\n      return f(variants::" << id << "::variant<" << k
         << ">{});\n";
    os << "    default:\n      return f(variants::" << id << "::variant<0>{});\n  }\n}\n";
    if (needs_runtime) os << "#endif\n";
    os << "}  // namespace dispatch\n}  // namespace kernelevo\n";
    os << "// X(K) for each compiled variant K of " << id << ".\n#define KERNELEVO_VARIANTS_" << id
       << "(X)";
    for (std::size_t k = 0; k < d.variants.size(); ++k) os << " X(" << k << ")";
    os << "\n\n";
  }
  return os.str();
}

Result<std::string> variant_slot_text(const std::vector<KernelDispatch>& plan, std::size_t slot,
                                      std::size_t slots, const std::string& included,
                                      const std::string& source_name,
                                      const std::string& source_text) {
  std::vector<const KernelDispatch*> macros;
  for (const KernelDispatch& d : plan)
    if (!d.templated) macros.push_back(&d);
  std::ostringstream os;
  os << "// kernelevo: slot " << slot << " of " << slots << " of " << source_name
     << " (generated by `kernelevo header`; do not edit).\n";
  if (macros.empty()) {
    if (slot == 0)
      os << "#include \"" << included << "\"\n";
    else
      os << "// Unused: the source is compiled once, in slot 0.\n";
    return os.str();
  }
  const KernelDispatch* most = *std::max_element(
      macros.begin(), macros.end(), [](const KernelDispatch* a, const KernelDispatch* b) {
        return a->variants.size() < b->variants.size();
      });
  if (most->variants.size() > slots)
    return make_error(source_name + ": kernel " + most->spec->id + " has " +
                          std::to_string(most->variants.size()) +
                          " distinct winners for the built architectures but the build compiles " +
                          std::to_string(slots) +
                          " variants of it; set KERNELEVO_DISPATCH_SLOTS to " +
                          std::to_string(most->variants.size()) + " or more and reconfigure",
                      most->spec->where);
  if (slot >= most->variants.size()) {
    os << "// Unused: " << most->spec->id << " has " << most->variants.size() << " variant"
       << (most->variants.size() == 1 ? "" : "s")
       << (macros.size() > 1 ? ", the most of the source's kernels" : "") << ".\n";
    return os.str();
  }
  // Each kernel's variant `slot`; a kernel with fewer variants is compiled here as its variant
  // 0 (renamed like the others, so it is a copy nothing calls).
  // Parameter names are unique within a source (spec_check), so the defines cannot clash.
  std::vector<std::pair<std::string, std::string>> defines;  // name -> text, in order
  std::vector<std::pair<std::string, std::string>> sizes;    // the own variants' size defines
  std::vector<std::string> renamed;
  for (const KernelDispatch* d : macros) {
    const bool own = slot < d->variants.size();
    const ParamSet& v = d->variants[own ? slot : 0];
    if (own && d->size_defines[slot]) {
      const std::string& define = *d->size_defines[slot];
      const auto eq = define.find('=');
      sizes.emplace_back(define.substr(0, eq), define.substr(eq + 1));
    }
    if (own)
      os << "// " << d->spec->id << " variant " << slot << ": " << variant_summary(v, *d->spec)
         << size_note(*d, slot) << "; serves " << users_of(*d, slot) << "\n";
    else
      os << "// " << d->spec->id << ": " << d->variants.size() << " variant"
         << (d->variants.size() == 1 ? "" : "s") << ", so this slot holds an unused copy of "
         << "variant 0\n";
    for (const ParamSpec& p : d->spec->params) {
      auto text = value_text(v, p, source_text);
      if (!text)
        return make_error("cannot find the source default of " + p.name + " (a `#define " + p.name +
                              " <value>` line) in " + source_name + "; each compiled variant of " +
                              d->spec->id + " defines every parameter",
                          p.where);
      defines.emplace_back(p.name, *text);
    }
    for (const auto& name : d->renamed)
      if (std::find(renamed.begin(), renamed.end(), name) == renamed.end()) renamed.push_back(name);
  }
  os << "#define KERNELEVO_VARIANT " << slot << "\n";
  for (const auto& [name, text] : defines) os << "#define " << name << " " << text << "\n";
  // Kernels of one source compiled in one slot share its macros: a size two of them need at
  // different values is defined for neither (each is then compiled for every size).
  std::vector<std::string> sized;
  for (const auto& [name, text] : sizes) {
    if (std::find(sized.begin(), sized.end(), name) != sized.end()) continue;
    sized.push_back(name);
    const bool agreed = std::all_of(sizes.begin(), sizes.end(), [&](const auto& other) {
      return other.first != name || other.second == text;
    });
    if (agreed)
      os << "#define " << name << " " << text << "\n";
    else
      os << "// " << name << ": the slot's kernels need different sizes, so it is not defined\n";
  }
  for (const auto& name : renamed)
    os << "#define " << name << " " << name << "_kev" << slot << "\n";
  os << "#include \"" << included << "\"\n";
  return os.str();
}

}  // namespace kev
