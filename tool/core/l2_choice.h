#pragma once
// The L2 state `tune --l2` and `evolve --l2` time from, by name, and the lockfile `timing`
// that records it: one mapping for every command that takes the option.
#include <string>
#include <string_view>
#include <vector>

#include "core/timing_names.h"

namespace kev {

struct L2Choice {
  bool dirty_l2 = false;          // TimingOptions::dirty_l2
  bool charge_writeback = false;  // TimingOptions::charge_writeback
};

// The option's values, for the command line's check.
[[nodiscard]] inline std::vector<std::string> l2_choice_names() {
  return {"clean", "dirty", "clean+write-back"};
}

// `name` one of l2_choice_names() (the command line checked it); anything else is clean.
[[nodiscard]] inline L2Choice l2_choice(std::string_view name) {
  return {name == "dirty", name == "clean+write-back"};
}

// The lockfile entry's `timing` of times taken so: empty for the default clean L2.
[[nodiscard]] inline std::string lock_timing(const L2Choice& c) {
  if (c.dirty_l2) return kTimingColdDirtyL2;
  return c.charge_writeback ? kTimingWriteBack : "";
}

}  // namespace kev
