#pragma once
// Reading nvcc's diagnostics from the host-code check (cli/host_use_check.h): which of its
// errors are a compile-time use of a parameter whose built architectures lock different
// values, told by the generated header's names (`::kernelevo_params::NAME_value()`) in the
// lines that quote the use, and which of its deprecation diagnostics are host uses of a
// derived constant (core/host_view.h).
#include <string>
#include <string_view>
#include <vector>

#include "core/host_view.h"
#include "core/result.h"

namespace kev {

struct HostDisagreement {
  std::string name;
  std::string values;  // "sm_80: 128, sm_90: 512"
};

struct HostUseDiagnostics {
  std::vector<Error> uses;  // one per use: the use's file:line, naming the parameter
  std::string other_error;  // the first other error line, when nvcc failed for another reason
};

[[nodiscard]] HostUseDiagnostics read_host_use_diagnostics(
    std::string_view nvcc_output, const std::vector<HostDisagreement>& disagreements,
    const std::vector<DerivedConstant>& derived = {});

}  // namespace kev
