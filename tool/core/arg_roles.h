#pragma once
// What the GPU runner does with each kernel argument, decided from the spec alone: which
// arguments get seeded inputs, which are compared with the reference, and how many bytes an
// input set holds (cuda/run_inputs.cpp and cuda/timer.cpp allocate by these rules).
#include <cstdint>
#include <vector>

#include "core/arg_layout.h"
#include "core/spec.h"

namespace kev {

enum class Role { input, const_input, output, inout, scratch, scalar };

[[nodiscard]] Role role_of(const ArgSpec& a);
// Gets a seeded input before each launch (input, const, inout).
[[nodiscard]] bool has_input(Role r);
// Compared with the reference's outputs (output, inout).
[[nodiscard]] bool is_compared(Role r);

// One input set of timed launches: its inputs, reference outputs and const copies, sized by
// the reference's layout.
[[nodiscard]] std::int64_t input_set_bytes(const std::vector<ArgSpec>& args,
                                           const ResolvedProblem& reference_layout);

// The outputs a timed launch's verification compares.
[[nodiscard]] std::int64_t compared_bytes(const std::vector<ArgSpec>& args,
                                          const ResolvedProblem& layout);

}  // namespace kev
