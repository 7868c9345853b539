#include "core/ratio_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kev {

std::string percent_change(double ratio) {
  char buf[32];
  const double pct = (ratio - 1.0) * 100.0;
  std::snprintf(buf, sizeof buf, "%+.1f%%", std::abs(pct) < 0.05 ? 0.0 : pct);
  return buf;
}

std::string speedup_text(double speedup) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", speedup);
  return buf;
}

std::string ratio_interval_text(double low, double high) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f..%.3f", low, high);
  return buf;
}

std::string speedup_interval_text(double ratio_low, double ratio_high) {
  return speedup_text(1.0 / ratio_high) + ".." + speedup_text(1.0 / ratio_low);
}

std::string p_value_text(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, p < 0.001 ? "%.1e" : "%.3f", p);
  return buf;
}

std::string short_revision(std::string_view revision) {
  const bool full_hash =
      (revision.size() == 40 || revision.size() == 64) &&
      std::all_of(revision.begin(), revision.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      });
  return std::string(full_hash ? revision.substr(0, kShortCommitDigits) : revision);
}

}  // namespace kev
