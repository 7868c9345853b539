#include "core/lockfile.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/params_text.h"
#include "core/time_text.h"

namespace kev {

std::optional<double> LockEntry::speedup() const {
  if (!time_us || !baseline_us || *time_us <= 0.0) return std::nullopt;
  return *baseline_us / *time_us;
}

LockEntry LockEntry::bucket_winner(const LockBucket& bucket) const {
  LockEntry one = *this;
  one.by.clear();
  one.buckets.clear();
  one.params = bucket.params;
  one.time_us = bucket.time_us;
  one.baseline_us = bucket.baseline_us;
  return one;
}

const LockBucket* LockEntry::bucket_for(std::int64_t value) const {
  if (buckets.empty()) return nullptr;
  std::vector<BucketRange> ranges;
  for (const auto& b : buckets) ranges.push_back(b.range);
  return &buckets[nearest_bucket(ranges, value)];
}

const ParamSet& LockEntry::params_for(std::int64_t value) const {
  const LockBucket* b = bucket_for(value);
  return b ? b->params : params;
}

// --- architectures ----------------------------------------------------------------------

std::string Arch::to_string() const {
  return "sm_" + std::to_string(major) + std::to_string(minor) + suffix;
}

std::optional<Arch> parse_arch(std::string_view text) {
  if (text.substr(0, 3) != "sm_") return std::nullopt;
  text.remove_prefix(3);
  std::string suffix;
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) {
    suffix = std::string(1, text.back());
    text.remove_suffix(1);
  }
  if (text.size() < 2 || text.size() > 3 || text.front() == '0') return std::nullopt;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  Arch a;
  a.minor = text.back() - '0';
  a.major = std::stoi(std::string(text.substr(0, text.size() - 1)));
  a.suffix = std::move(suffix);
  return a;
}

// --- lookup -----------------------------------------------------------------------------

const char* to_string(LockMatch m) {
  switch (m) {
    case LockMatch::named_device:
      return "named device";
    case LockMatch::only_device:
      return "only device";
    case LockMatch::default_device:
      return "default device";
    case LockMatch::none:
      return "none";
  }
  return "none";
}

namespace {

// Picks a device among one architecture's entries; nullopt when none applies.
std::optional<std::pair<std::string, LockMatch>> choose_device(
    const DeviceEntries& devices, const std::optional<std::string>& device) {
  if (device && devices.count(*device)) return std::pair{*device, LockMatch::named_device};
  if (devices.size() == 1) return std::pair{devices.begin()->first, LockMatch::only_device};
  for (const auto& [name, entry] : devices)
    if (entry.is_default) return std::pair{name, LockMatch::default_device};
  return std::nullopt;
}

// Architectures to try for `arch`, in order (see lookup's comment).
std::vector<std::string> candidate_archs(const LockedKernel& kernel, const std::string& arch) {
  std::vector<std::string> order{arch};
  const auto wanted = parse_arch(arch);
  if (!wanted) return order;
  if (!wanted->suffix.empty()) order.push_back(Arch{wanted->major, wanted->minor, ""}.to_string());
  std::vector<std::pair<int, std::string>> lower;
  for (const auto& [name, devices] : kernel.targets) {
    const auto a = parse_arch(name);
    if (a && a->suffix.empty() && a->major == wanted->major && a->minor < wanted->minor)
      lower.emplace_back(a->minor, name);
  }
  std::sort(lower.begin(), lower.end(), std::greater<>());
  for (auto& [minor, name] : lower) order.push_back(name);
  return order;
}

}  // namespace

std::string lock_arch(const KernelSpec* spec, const std::string& gpu_arch) {
  return spec != nullptr && !spec->arch.empty() ? spec->arch : gpu_arch;
}

LockChoice lookup(const Lockfile& lock, const std::string& kernel_id, const std::string& arch,
                  const std::optional<std::string>& device) {
  LockChoice choice;
  const auto k = lock.kernels.find(kernel_id);
  if (k == lock.kernels.end()) {
    choice.why = kernel_id + ": not in the lockfile; source defaults";
    return choice;
  }
  std::string skipped;  // architectures passed over because no device could be chosen
  for (const std::string& candidate : candidate_archs(k->second, arch)) {
    const auto t = k->second.targets.find(candidate);
    if (t == k->second.targets.end()) continue;
    const auto picked = choose_device(t->second, device);
    if (!picked) {
      skipped += (skipped.empty() ? "" : ", ") + candidate;
      continue;
    }
    choice.entry = &t->second.at(picked->first);
    choice.arch = candidate;
    choice.device = picked->first;
    choice.match = picked->second;
    choice.lower_arch = candidate != arch;
    choice.why = kernel_id + ": " + candidate + " / " + picked->first + " (" +
                 to_string(picked->second) +
                 (choice.lower_arch ? ", nearest locked below " + arch : "") + ")";
    break;
  }
  if (!choice.entry) choice.why = kernel_id + ": nothing locked for " + arch + "; source defaults";
  if (!skipped.empty())
    choice.why += "; skipped " + skipped + ": several devices and none named or marked default";
  return choice;
}

// --- checks against the spec ------------------------------------------------------------

namespace {

std::string listed_values(const ParamSpec& p) {
  std::string s;
  for (const Value& v : p.values) s += (s.empty() ? "" : ", ") + v.to_string();
  return "[" + s + "]";
}

// Values from an untrusted file are quoted and cut short before they reach a message.
std::string quoted_excerpt(const std::string& text) {
  constexpr std::size_t kMax = 40;
  std::string s;
  for (char c : text.substr(0, kMax)) s += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return "'" + s + (text.size() > kMax ? "...'" : "'");
}

}  // namespace

Result<ParamCheck> check_params(const ParamSet& params, const KernelSpec& spec,
                                const std::string& context) {
  for (const auto& [name, value] : params) {
    const ParamSpec* p = spec.param(name);
    if (!p)
      return make_error(context + ": " + quoted_excerpt(name) + " is not a parameter of kernel '" +
                        spec.id + "' (" + spec.where.to_string() + ")");
    const Value& locked = value;  // (clang before 16 cannot capture a structured binding)
    const bool listed = std::any_of(p->values.begin(), p->values.end(),
                                    [&](const Value& v) { return same_value(v, locked); });
    if (!listed)
      return make_error(context + ": " + name + " = " + quoted_excerpt(value.to_string()) +
                        " is not one of the values " + listed_values(*p) + " listed at " +
                        p->where.to_string());
  }
  ParamCheck check;
  for (const ParamSpec& p : spec.params)
    if (!params.count(p.name)) check.missing.push_back(p.name);
  return check;
}

Status check_constraints(const ParamSet& full, const KernelSpec& spec, const std::string& context) {
  for (const Expr& c : spec.constraints) {
    const auto holds = [&](const Problem* problem) {
      const auto r = c.eval([&](std::string_view name) -> std::optional<std::int64_t> {
        if (auto it = full.find(std::string(name)); it != full.end()) return it->second.as_int();
        if (problem != nullptr)
          if (auto d = problem->dims.find(std::string(name)); d != problem->dims.end())
            return d->second;
        return std::nullopt;
      });
      return r.ok() && *r != 0;
    };
    const bool on_problems = std::any_of(c.names().begin(), c.names().end(),
                                         [&](const std::string& n) { return !spec.param(n); });
    const auto broken = [&](const std::string& where) {
      return make_error(context + ": " + params_text(full) + " break the constraint " +
                            quote_expression(c.text()) + where,
                        c.origin());
    };
    if (!on_problems || spec.problems.empty()) {
      if (!holds(nullptr)) return broken("");
      continue;
    }
    for (const Problem& p : spec.problems)
      if (!holds(&p)) return broken(" at " + p.to_string());
  }
  return ok_status();
}

int required_schema_version(const Lockfile& lock) {
  bool buckets = false;
  for (const auto& [id, kernel] : lock.kernels)
    for (const auto& [arch, devices] : kernel.targets)
      for (const auto& [device, entry] : devices)
        for (const LockBucket& b : entry.buckets) {
          if (!b.sized) return 4;
          buckets = true;
        }
  if (buckets) return 3;
  for (const auto& [id, kernel] : lock.kernels)
    if (kernel.variant && kernel.variant->has_hashes()) return 2;
  return 1;
}

bool is_stale(const LockedKernel& kernel, const std::string& current_source_hash) {
  return kernel.source_hash != current_source_hash;
}

// --- changes ----------------------------------------------------------------------------

void set_entry(Lockfile& lock, const std::string& kernel_id, const std::string& source,
               const std::string& source_hash, const std::string& arch, const std::string& device,
               LockEntry entry) {
  LockedKernel& k = lock.kernels[kernel_id];
  k.source = source;
  k.source_hash = source_hash;
  DeviceEntries& devices = k.targets[arch];
  const auto old = devices.find(device);
  if (old != devices.end()) {
    entry.is_default = old->second.is_default;
  } else {
    entry.is_default = std::none_of(devices.begin(), devices.end(),
                                    [](const auto& d) { return d.second.is_default; });
  }
  devices[device] = std::move(entry);
}

void set_bucket(Lockfile& lock, const std::string& kernel_id, const std::string& source,
                const std::string& source_hash, const std::string& arch, const std::string& device,
                const std::string& by, LockBucket bucket, const std::string& tuned_with,
                const std::string& timing, const std::string& compiler, int flush) {
  LockEntry entry;
  if (auto k = lock.kernels.find(kernel_id);
      k != lock.kernels.end() && k->second.source_hash == source_hash)
    if (auto a = k->second.targets.find(arch); a != k->second.targets.end())
      if (auto d = a->second.find(device);
          d != a->second.end() && d->second.by == by &&
          l2_state_text(d->second.timing) == l2_state_text(timing) &&
          device_code_of(d->second) == device_code_of(compiler) && d->second.flush == flush)
        entry = d->second;
  entry.params.clear();
  entry.time_us.reset();
  entry.baseline_us.reset();
  entry.by = by;
  entry.tuned_with = tuned_with;
  entry.timing = timing;
  entry.compiler = compiler;
  entry.flush = flush;
  const BucketRange& r = bucket.range;
  std::erase_if(entry.buckets, [&](const LockBucket& b) {
    const bool below = b.range.hi && *b.range.hi <= r.lo;
    const bool above = r.hi && *r.hi <= b.range.lo;
    return !below && !above;
  });
  entry.buckets.push_back(std::move(bucket));
  std::sort(entry.buckets.begin(), entry.buckets.end(),
            [](const LockBucket& a, const LockBucket& b) { return a.range.lo < b.range.lo; });
  set_entry(lock, kernel_id, source, source_hash, arch, device, std::move(entry));
}

std::optional<Measured> measured(const Outcome& outcome) {
  if (!outcome.passed() || !outcome.time_us) return std::nullopt;
  Measured m;
  m.median_us = *outcome.time_us;
  m.ci_low_us = outcome.ci_low_us.value_or(m.median_us);
  m.ci_high_us = outcome.ci_high_us.value_or(m.median_us);
  return m;
}

bool should_replace(const Measured& locked, const Measured& challenger, const ReplaceRule& rule) {
  const bool faster_enough =
      challenger.median_us <= locked.median_us * (1.0 - rule.min_improvement);
  const bool intervals_apart = challenger.ci_high_us < locked.ci_low_us;
  return faster_enough && intervals_apart;
}

std::optional<MeasuredOtherwise> measured_otherwise(const LockEntry& first,
                                                    const LockEntry& second) {
  if (l2_state_text(first.timing) != l2_state_text(second.timing))
    return MeasuredOtherwise{MeasuredOtherwise::Kind::l2_state, l2_state_text(first.timing),
                             l2_state_text(second.timing)};
  if (device_code_of(first) != device_code_of(second))
    return MeasuredOtherwise{MeasuredOtherwise::Kind::compiler,
                             compiler_name(device_code_of(first)),
                             compiler_name(device_code_of(second))};
  if (first.flush != second.flush)
    return MeasuredOtherwise{MeasuredOtherwise::Kind::flush, flush_text(first.flush),
                             flush_text(second.flush)};
  return std::nullopt;
}

std::string l2_state_text(const std::string& timing) {
  if (timed_dirty(timing)) return "dirty";
  return timed_with_writeback(timing) ? "clean (write-back charged)" : "clean";
}

std::string l2_provenance(const std::string& timing) {
  if (timed_dirty(timing)) return ", dirty L2";
  return timed_with_writeback(timing) ? ", write-back charged" : "";
}

std::string flush_text(int flush) {
  return flush > 0 ? "revision " + std::to_string(flush)
                   : "revision " + std::to_string(kFlushRevisionBeforeTracesSaid) + " or older";
}

// --- merging ----------------------------------------------------------------------------

namespace {

std::string describe_time(const LockEntry& e) {
  if (!e.time_us) return "no time";
  return format_time_us(*e.time_us);
}

std::string describe_params(const ParamSet& params) {
  return "{" + params_text(params, ",", "") + "}";
}

// "sha256:0123456789ab" (12 hex digits are plenty to tell two sources apart in a message).
std::string short_hash(const std::string& hash) { return hash.substr(0, 7 + 12); }

// True when `incoming` wins a conflict over `base` for the same slot (an entry or a bucket).
template <class Slot>
bool incoming_is_faster(const Slot& base, const Slot& incoming) {
  if (!incoming.time_us) return false;
  if (!base.time_us) return true;
  return *incoming.time_us < *base.time_us;
}

// Why the times of two entries for one slot do not compare, as a conflict says it of
// `incoming` against `base`; empty when they do.
std::string measured_otherwise_text(const LockEntry& base, const LockEntry& incoming) {
  const auto why = measured_otherwise(incoming, base);
  if (!why) return "";
  if (why->kind == MeasuredOtherwise::Kind::l2_state)
    return "it was timed from a " + why->first + " L2, the other from a " + why->second + " one";
  if (why->kind == MeasuredOtherwise::Kind::flush)
    return "it was timed after the L2 flush of " + why->first + ", the other after " + why->second;
  return "its code was compiled by " + why->first + ", the other's by " + why->second;
}

std::string bucket_time(const LockBucket& b) {
  return b.time_us ? format_time_us(*b.time_us) : std::string("no time");
}

// One kernel / arch / device locked on both sides, one of them with buckets. Buckets of one
// dimension merge per bucket: the same range with other params keeps the faster; a range
// overlapping one of base's but not equal keeps base's; the others are added. Otherwise
// (buckets against plain params, or another dimension) the incoming entry wins whole.
void merge_bucket_entries(LockEntry& into, const LockEntry& incoming, const std::string& id,
                          const std::string& arch, const std::string& device,
                          std::vector<MergeConflict>& conflicts) {
  if (const std::string why = measured_otherwise_text(into, incoming); !why.empty()) {
    conflicts.push_back(
        {id, arch, device,
         "kept incoming over base: " + why + ", so the times do not compare; the later file wins"});
    const bool was_default = into.is_default;
    into = incoming;
    into.is_default = was_default;
    return;
  }
  if (into.by != incoming.by) {
    if (into == incoming) return;
    const auto layout = [](const LockEntry& e) {
      return e.has_buckets() ? "buckets of " + e.by : std::string("one winner for every problem");
    };
    conflicts.push_back({id, arch, device,
                         "kept incoming (" + layout(incoming) + ") over base (" + layout(into) +
                             "): different layouts, the later file wins"});
    const bool was_default = into.is_default;
    into = incoming;
    into.is_default = was_default;
    return;
  }
  for (const LockBucket& b : incoming.buckets) {
    const std::string where = device + " " + bucket_label(into.by, b.range);
    auto same = std::find_if(into.buckets.begin(), into.buckets.end(),
                             [&](const LockBucket& x) { return x.range == b.range; });
    if (same != into.buckets.end()) {
      if (same->params == b.params && same->sized == b.sized) continue;
      const bool take = incoming_is_faster(*same, b);
      const LockBucket& kept = take ? b : *same;
      const LockBucket& dropped = take ? *same : b;
      const auto build = [](const LockBucket& x) {
        return describe_params(x.params) + (x.sized ? "" : " without its size define");
      };
      conflicts.push_back({id, arch, where,
                           std::string("kept ") + (take ? "incoming " : "base ") + build(kept) +
                               " (" + bucket_time(kept) + ") over " + build(dropped) + " (" +
                               bucket_time(dropped) + "): faster wins"});
      if (take) *same = b;
      continue;
    }
    const bool overlaps = std::any_of(into.buckets.begin(), into.buckets.end(), [&](const auto& x) {
      const bool below = x.range.hi && *x.range.hi <= b.range.lo;
      const bool above = b.range.hi && *b.range.hi <= x.range.lo;
      return !below && !above;
    });
    if (overlaps) {
      conflicts.push_back({id, arch, where,
                           "dropped incoming bucket: it overlaps base's buckets of another range"});
      continue;
    }
    into.buckets.push_back(b);
  }
  std::sort(into.buckets.begin(), into.buckets.end(),
            [](const LockBucket& a, const LockBucket& b) { return a.range.lo < b.range.lo; });
}

void merge_same_source(LockedKernel& into, const LockedKernel& incoming, const std::string& id,
                       std::vector<MergeConflict>& conflicts) {
  for (const auto& [arch, devices] : incoming.targets) {
    DeviceEntries& target = into.targets[arch];
    std::string base_default;
    for (const auto& [device, entry] : target)
      if (entry.is_default) base_default = device;
    for (const auto& [device, entry] : devices) {
      auto existing = target.find(device);
      if (existing == target.end()) {
        target.emplace(device, entry);
        continue;
      }
      if (existing->second.has_buckets() || entry.has_buckets()) {
        merge_bucket_entries(existing->second, entry, id, arch, device, conflicts);
        continue;
      }
      if (existing->second.params == entry.params) continue;
      const std::string otherwise = measured_otherwise_text(existing->second, entry);
      const bool take = !otherwise.empty() || incoming_is_faster(existing->second, entry);
      const LockEntry& kept = take ? entry : existing->second;
      const LockEntry& dropped = take ? existing->second : entry;
      conflicts.push_back(
          {id, arch, device,
           std::string("kept ") + (take ? "incoming " : "base ") + describe_params(kept.params) +
               " (" + describe_time(kept) + ") over " + describe_params(dropped.params) + " (" +
               describe_time(dropped) + "): " +
               (otherwise.empty()
                    ? std::string("faster wins")
                    : otherwise + ", so the times do not compare; the later file wins")});
      if (take) {
        const bool was_default = existing->second.is_default;
        existing->second = entry;
        existing->second.is_default = was_default;
      }
    }
    // At most one default per architecture: base's mark stays.
    std::string kept_default = base_default;
    for (auto& [device, entry] : target) {
      if (!entry.is_default || device == kept_default) continue;
      if (kept_default.empty()) {
        kept_default = device;
        continue;
      }
      entry.is_default = false;
      conflicts.push_back({id, arch, device,
                           "default mark dropped: base marks " + kept_default + " as " + arch +
                               "'s default device"});
    }
  }
}

}  // namespace

MergeResult merge(const Lockfile& base, const Lockfile& incoming, const MergeOptions& options) {
  MergeResult result;
  result.merged = base;
  for (const auto& [id, theirs] : incoming.kernels) {
    auto mine = result.merged.kernels.find(id);
    if (mine == result.merged.kernels.end()) {
      result.merged.kernels.emplace(id, theirs);
      continue;
    }
    LockedKernel& ours = mine->second;
    if (ours.source_hash == theirs.source_hash && ours.variant == theirs.variant) {
      merge_same_source(ours, theirs, id, result.conflicts);
      continue;
    }
    std::optional<std::string> current;
    if (options.current_source_hash) current = options.current_source_hash(theirs.source);
    const bool base_current = current && *current == ours.source_hash;
    const bool incoming_current = current && *current == theirs.source_hash;
    const bool keep_base = base_current && !incoming_current;
    const char* why = keep_base || incoming_current ? "it matches the current source"
                      : current ? "the current source matches neither side, so the later file wins"
                                : "the current source is unknown, so the later file wins";
    const LockedKernel& dropped = keep_base ? theirs : ours;
    std::size_t dropped_entries = 0;
    for (const auto& [arch, devices] : dropped.targets) dropped_entries += devices.size();
    result.conflicts.push_back(
        {id, "", "",
         std::string("different sources: kept ") + (keep_base ? "base" : "incoming") + " (" +
             short_hash(keep_base ? ours.source_hash : theirs.source_hash) + ") because " + why +
             "; dropped " + std::to_string(dropped_entries) + " entr" +
             (dropped_entries == 1 ? "y" : "ies") + " measured on " +
             short_hash(dropped.source_hash)});
    if (!keep_base) ours = theirs;
  }
  return result;
}

}  // namespace kev
