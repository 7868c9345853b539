#include "core/spec.h"

#include <array>

namespace kev {
namespace {

struct TypeInfo {
  ScalarType type;
  std::size_t size;
  const char* cuda;
};

constexpr std::array<TypeInfo, 13> kTypes{{
    {ScalarType::f16, 2, "__half"},
    {ScalarType::bf16, 2, "__nv_bfloat16"},
    {ScalarType::f32, 4, "float"},
    {ScalarType::f64, 8, "double"},
    {ScalarType::i8, 1, "int8_t"},
    {ScalarType::i16, 2, "int16_t"},
    {ScalarType::i32, 4, "int32_t"},
    {ScalarType::i64, 8, "int64_t"},
    {ScalarType::u8, 1, "uint8_t"},
    {ScalarType::u16, 2, "uint16_t"},
    {ScalarType::u32, 4, "uint32_t"},
    {ScalarType::u64, 8, "uint64_t"},
    {ScalarType::fp8_e4m3, 1, "__nv_fp8_e4m3"},
}};

const TypeInfo& info(ScalarType t) { return kTypes[static_cast<std::size_t>(t)]; }

}  // namespace

std::size_t size_of(ScalarType t) { return info(t).size; }

const char* init_name(InitKind kind) {
  switch (kind) {
    case InitKind::normal:
      return "normal";
    case InitKind::uniform:
      return "uniform";
    case InitKind::constant:
      return "constant";
    case InitKind::iota:
      return "iota";
    case InitKind::randint:
      return "randint";
    case InitKind::zeros:
      return "zeros";
  }
  return "normal";
}

const char* cuda_name(ScalarType t) { return info(t).cuda; }

std::optional<ScalarType> parse_scalar_type(std::string_view text) {
  struct Alias {
    std::string_view name;
    ScalarType type;
  };
  static constexpr std::array<Alias, 26> kAliases{{
      {"float", ScalarType::f32},         {"double", ScalarType::f64},
      {"half", ScalarType::f16},          {"__half", ScalarType::f16},
      {"bfloat16", ScalarType::bf16},     {"__nv_bfloat16", ScalarType::bf16},
      {"int8", ScalarType::i8},           {"int16", ScalarType::i16},
      {"int32", ScalarType::i32},         {"int64", ScalarType::i64},
      {"int", ScalarType::i32},           {"uint8", ScalarType::u8},
      {"uint16", ScalarType::u16},        {"uint32", ScalarType::u32},
      {"uint64", ScalarType::u64},        {"int8_t", ScalarType::i8},
      {"int16_t", ScalarType::i16},       {"int32_t", ScalarType::i32},
      {"int64_t", ScalarType::i64},       {"uint8_t", ScalarType::u8},
      {"uint16_t", ScalarType::u16},      {"uint32_t", ScalarType::u32},
      {"uint64_t", ScalarType::u64},      {"unsigned", ScalarType::u32},
      {"fp8_e4m3", ScalarType::fp8_e4m3}, {"__nv_fp8_e4m3", ScalarType::fp8_e4m3},
  }};
  for (const auto& a : kAliases) {
    if (a.name == text) return a.type;
  }
  return std::nullopt;
}

std::string Problem::to_string() const {
  std::string s;
  for (const auto& [name, value] : dims) {
    if (!s.empty()) s += ',';
    s += name + "=" + std::to_string(value);
  }
  return s;
}

const ParamSpec* KernelSpec::param(std::string_view name) const {
  for (const auto& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<Problem> problems_in(const std::vector<Problem>& problems, const std::string& dim,
                                 const BucketRange& range) {
  std::vector<Problem> out;
  for (const Problem& p : problems)
    if (auto d = p.dims.find(dim); d != p.dims.end() && range.contains(d->second)) out.push_back(p);
  return out;
}

std::optional<std::string> bucket_size_define(const std::string& by, const BucketRange& range) {
  if (!range.hi || *range.hi != range.lo + 1) return std::nullopt;
  return kBucketSizeMacroPrefix + by + "=" + std::to_string(range.lo);
}

std::optional<std::string> bucket_compile_define(const KernelSpec& spec, const std::string& by,
                                                 const BucketRange& range, bool sized) {
  // A template kernel's variants are instantiated in one source by the build, and Triton
  // takes no defines: neither can be compiled with a define of its own per bucket.
  if (!sized || is_template_kernel(spec) || spec.language == SourceLanguage::triton)
    return std::nullopt;
  return bucket_size_define(by, range);
}

KernelSpec spec_for_bucket(const KernelSpec& spec, const std::string& by, const BucketRange& range,
                           bool sized) {
  KernelSpec s = spec;
  s.dispatch.reset();
  s.problems = problems_in(spec.problems, by, range);
  auto define = bucket_compile_define(spec, by, range, sized);
  if (!define) return s;
  const std::string name = kBucketSizeMacroPrefix + by;
  std::erase_if(s.defines, [&](const std::string& d) { return d.substr(0, d.find('=')) == name; });
  s.defines.push_back(std::move(*define));
  return s;
}

KernelSpec bucket_spec(const KernelSpec& spec, std::size_t bucket) {
  if (!spec.dispatch || bucket >= spec.dispatch->buckets.size()) {
    KernelSpec s = spec;
    s.dispatch.reset();
    return s;
  }
  return spec_for_bucket(spec, spec.dispatch->by, spec.dispatch->buckets[bucket], true);
}

}  // namespace kev
