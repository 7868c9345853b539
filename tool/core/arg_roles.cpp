#include "core/arg_roles.h"

namespace kev {

Role role_of(const ArgSpec& a) {
  if (!a.pointer) return Role::scalar;
  if (a.scratch) return Role::scratch;
  if (a.output) return Role::output;
  if (a.inout) return Role::inout;
  return a.is_const ? Role::const_input : Role::input;
}
bool has_input(Role r) { return r == Role::input || r == Role::const_input || r == Role::inout; }
bool is_compared(Role r) { return r == Role::output || r == Role::inout; }

std::int64_t input_set_bytes(const std::vector<ArgSpec>& args,
                             const ResolvedProblem& reference_layout) {
  std::int64_t set_bytes = 0;  // a set's inputs, reference outputs and const copies
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Role role = role_of(args[i]);
    if (has_input(role)) set_bytes += reference_layout.args[i].bytes;
    if (is_compared(role)) set_bytes += reference_layout.args[i].bytes;
    if (role == Role::const_input) set_bytes += reference_layout.args[i].bytes;  // its copy
  }
  return set_bytes;
}

std::int64_t compared_bytes(const std::vector<ArgSpec>& args, const ResolvedProblem& layout) {
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (is_compared(role_of(args[i]))) bytes += layout.args[i].bytes;
  return bytes;
}

}  // namespace kev
