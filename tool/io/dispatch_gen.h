#pragma once
// The host dispatcher of kernels with `dispatch` (docs/build-integration.md): the distinct
// winners of the built architectures' buckets become compiled variants, and generated code
// picks a variant from a problem's dimension on the loaded device image. `kernelevo/params.h`
// gets the dispatcher (`kernelevo::dispatch::<id>`) and the variants' values
// (`kernelevo::variants::<id>::variant<K>`); a macro-parameterised kernel also gets one
// source file per variant (variant_slot_text), compiled in its place with its entry symbols
// renamed `<name>_kev<K>`. A source may mark several macro-parameterised kernels with
// `dispatch` (each with parameters of its own): slot K compiles each one's variant K.
#include <optional>
#include <string>
#include <vector>

#include "core/lockfile.h"
#include "core/result.h"
#include "core/spec.h"

namespace kev {

// The spec's own value equal to `v` (the text a header writes: never the lockfile's), or null.
[[nodiscard]] const Value* listed_value(const ParamSpec& p, const Value& v);
// The C++ type that holds every value of `p` in host code: int, long long or double.
[[nodiscard]] std::string host_value_type(const ParamSpec& p);

struct DispatchArch {
  std::string arch;  // "sm_90"
  int number = 0;    // its __CUDA_ARCH__ (900)
  std::string why;   // the lockfile entry it uses, or the source defaults
  std::string by;    // the buckets' dimension; empty: one variant for every problem
  std::vector<std::pair<BucketRange, std::size_t>> buckets;  // range -> variant (by order)
  std::size_t variant = 0;  // without buckets: the variant of every problem
};

struct KernelDispatch {
  const KernelSpec* spec = nullptr;
  bool templated = false;  // `kernel: f<P...>`: instantiated per variant in one source
  // Each distinct parameter set; the values are the spec's (a missing one: the source default).
  std::vector<ParamSet> variants;
  // Per variant: the size define it is compiled with (bucket_size_define: a macro kernel's
  // winner of a one-size bucket), none otherwise. A winner of two such buckets is two variants.
  std::vector<std::optional<std::string>> size_defines;
  std::vector<DispatchArch> archs;   // highest first; the last serves unknown architectures
  std::vector<std::string> renamed;  // macro kind: the names each variant's copy renames
};

// The dispatch of each spec with `dispatch` among `specs`, from `lock` (checked against the
// specs already). `archs`: the architectures to serve, highest first.
[[nodiscard]] Result<std::vector<KernelDispatch>> plan_dispatch(
    const std::vector<KernelSpec>& specs, const Lockfile& lock,
    const std::vector<std::string>& archs, const std::optional<std::string>& device,
    const std::string& source_name);

// The dispatcher and variant section of params.h (host code only). `runtime`: several
// architectures are built, so the loaded image is asked at run time (needs
// kernelevo_params::loaded_arch(), which the header then provides).
[[nodiscard]] Result<std::string> dispatch_header_text(const std::vector<KernelDispatch>& plan,
                                                       const std::string& source_text,
                                                       bool runtime);

// The source compiled as slot `slot` of a macro-parameterised dispatching source: each
// kernel's variant `slot` (a kernel with fewer: an unused copy of its variant 0), the
// renames of all, then `#include "<included>"` (the source as the build
// selects it); an empty file where there are fewer variants. Template kernels: slot 0 is
// the source itself, the others empty.
[[nodiscard]] Result<std::string> variant_slot_text(const std::vector<KernelDispatch>& plan,
                                                    std::size_t slot, std::size_t slots,
                                                    const std::string& included,
                                                    const std::string& source_name,
                                                    const std::string& source_text);

}  // namespace kev
