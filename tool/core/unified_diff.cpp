#include "core/unified_diff.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kev {

namespace {

struct Lines {
  std::vector<std::string_view> text;
  bool newline_at_end = true;
};

Lines split(std::string_view s) {
  Lines out;
  std::size_t start = 0;
  while (start < s.size()) {
    const auto nl = s.find('\n', start);
    if (nl == std::string_view::npos) {
      out.text.push_back(s.substr(start));
      out.newline_at_end = false;
      break;
    }
    out.text.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

enum class Op { keep, remove, add };
struct Step {
  Op op;
  std::size_t a;  // index into before (keep/remove)
  std::size_t b;  // index into after (keep/add)
};

// Longest-common-subsequence edit script; common prefix and suffix are peeled off first so
// the quadratic table only covers the changed middle.
std::vector<Step> edit_script(const std::vector<std::string_view>& a,
                              const std::vector<std::string_view>& b) {
  std::size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    ++suf;
  const std::size_t n = a.size() - pre - suf;
  const std::size_t m = b.size() - pre - suf;
  std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      at(i, j) =
          a[pre + i] == b[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  std::vector<Step> steps;
  for (std::size_t k = 0; k < pre; ++k) steps.push_back({Op::keep, k, k});
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[pre + i] == b[pre + j]) {
      steps.push_back({Op::keep, pre + i++, pre + j++});
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      steps.push_back({Op::remove, pre + i++, pre + j});  // removals first, as diff -u
    } else {
      steps.push_back({Op::add, pre + i, pre + j++});
    }
  }
  for (std::size_t k = 0; k < suf; ++k)
    steps.push_back({Op::keep, a.size() - suf + k, b.size() - suf + k});
  return steps;
}

std::string range(std::size_t start, std::size_t count) {
  // diff -u: "l,s"; a count of 1 is omitted; an empty range names the line before it.
  const std::size_t first = count == 0 ? start : start + 1;
  if (count == 1) return std::to_string(first);
  return std::to_string(first) + "," + std::to_string(count);
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after,
                         std::string_view before_label, std::string_view after_label, int context) {
  if (before == after) return {};
  const Lines a = split(before);
  const Lines b = split(after);
  const auto steps = edit_script(a.text, b.text);
  const auto ctx = static_cast<std::size_t>(std::max(context, 0));

  std::string out = "--- " + std::string(before_label) + "\n+++ " + std::string(after_label) + "\n";
  auto line_out = [&](char tag, const Lines& lines, std::size_t index) {
    out += tag;
    out += lines.text[index];
    out += '\n';
    if (index + 1 == lines.text.size() && !lines.newline_at_end)
      out += "\\ No newline at end of file\n";
  };

  std::size_t s = 0;
  while (s < steps.size()) {
    // Next change, then extend the hunk while changes are within 2*context lines.
    while (s < steps.size() && steps[s].op == Op::keep) ++s;
    if (s == steps.size()) break;
    std::size_t begin = s >= ctx ? s - ctx : 0;
    while (begin < s && steps[begin].op != Op::keep) ++begin;
    std::size_t end = s;
    std::size_t keeps = 0;
    for (std::size_t k = s; k < steps.size(); ++k) {
      if (steps[k].op == Op::keep) {
        if (++keeps > 2 * ctx) break;
      } else {
        keeps = 0;
        end = k + 1;
      }
    }
    const std::size_t hunk_end = std::min(steps.size(), end + ctx);
    std::size_t a_count = 0;
    std::size_t b_count = 0;
    for (std::size_t k = begin; k < hunk_end; ++k) {
      if (steps[k].op != Op::add) ++a_count;
      if (steps[k].op != Op::remove) ++b_count;
    }
    out +=
        "@@ -" + range(steps[begin].a, a_count) + " +" + range(steps[begin].b, b_count) + " @@\n";
    for (std::size_t k = begin; k < hunk_end; ++k) {
      switch (steps[k].op) {
        case Op::keep:
          line_out(' ', a, steps[k].a);
          break;
        case Op::remove:
          line_out('-', a, steps[k].a);
          break;
        case Op::add:
          line_out('+', b, steps[k].b);
          break;
      }
    }
    s = hunk_end;
  }
  return out;
}

}  // namespace kev
