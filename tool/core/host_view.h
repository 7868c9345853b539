#pragma once
// A marked source as its host code alone: what nvcc's host pass keeps of it once device
// code is set aside. nvcc's front end evaluates device bodies in the host pass too
// (`__shared__ float s[BLOCK]`), so a host-code check (`kernelevo header`, when the built
// architectures lock different values) compiles this view instead of the source:
// - the bodies of device-only functions (`__global__`, and `__device__` without
//   `__host__`, lambdas included) and every `__launch_bounds__(...)`,
//   `__cluster_dims__(...)` and `__maxnreg__(...)` are blanked;
// - at namespace and class scope, `static_assert`s are blanked (every device pass checks
//   them with its own values), and so are the array bounds of `__device__`, `__constant__`
//   and `__managed__` variables that name a watched parameter;
// - a namespace- or class-scope `constexpr` variable whose initializer names a watched
//   parameter (or such a variable), and a namespace-scope `using X = T<...>` that names
//   one, is derived: kernels use it with their own architecture's value, but host code
//   would get one value for all. The watched parameters in its initializer read the lowest
//   built architecture's value as a constant (`lowest_value_of`, from the generated
//   header), and the declaration is `[[deprecated("kernelevo: derived from PARAM")]]`, so
//   every host use of it is a diagnostic.
// Every byte keeps its line, so a diagnostic's line number is the source's.
#include <string>
#include <string_view>
#include <vector>

namespace kev {

struct DerivedConstant {
  std::string name;       // as declared: "kBlock"
  std::string parameter;  // the watched parameter it comes from
  int line = 0;           // of its declaration
};

struct HostCodeView {
  std::string text;
  std::vector<DerivedConstant> derived;
};

// `watched`: the parameters whose host value is in question.
[[nodiscard]] HostCodeView host_code_view(std::string_view source,
                                          const std::vector<std::string>& watched = {});

// The generated header's constant for `parameter` at the lowest built architecture.
[[nodiscard]] std::string lowest_value_of(std::string_view parameter);

// The deprecation message of a derived constant of `parameter`.
[[nodiscard]] std::string derived_marker(std::string_view parameter);

}  // namespace kev
