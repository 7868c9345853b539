#pragma once
// kernelevo.lock.json (DESIGN.md section 4). The file arrives in pull requests, so it is
// read as untrusted input: every field is type-checked, strings are restricted to what
// their role needs, and anything unexpected is an error naming the file and the entry.
// Writing is canonical (sorted keys, 2-space indentation, fixed number formats, one
// trailing newline), so writing what was read gives the same bytes.
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "core/lockfile.h"
#include "core/result.h"

namespace kev {

inline constexpr const char* kLockfileName = "kernelevo.lock.json";

// `file_name` is used in error messages. JSON syntax errors carry line and column.
[[nodiscard]] Result<Lockfile> parse_lockfile(std::string_view text, const std::string& file_name);
[[nodiscard]] std::string format_lockfile(const Lockfile& lock);

// What the lockfile accepts as a source or variant path: relative, inside the project (no
// "..", not absolute), made of letters, digits and "/_.-+@" only.
[[nodiscard]] bool is_project_path(std::string_view s);
// The time format of lockfiles: one decimal from 10 us up, two from 1 us, three below.
[[nodiscard]] std::string format_lockfile_us(double us);

// A missing file is an error (exit code 2) saying so.
[[nodiscard]] Result<Lockfile> read_lockfile(const std::filesystem::path& path);
// A missing file reads as an empty lockfile.
[[nodiscard]] Result<Lockfile> read_lockfile_or_empty(const std::filesystem::path& path);

// Under the file's lock: re-reads the lockfile (absent = empty), applies `change` and writes
// the result atomically (only when it changed). A corrupt file or one of a newer schema is
// never overwritten: the read error is returned. Concurrent updaters serialise, so none
// loses another's entries.
[[nodiscard]] Status update_lockfile(const std::filesystem::path& path,
                                     const std::function<Status(Lockfile&)>& change);
// Replaces the lockfile's contents (same guarantees as update_lockfile).
[[nodiscard]] Status write_lockfile(const std::filesystem::path& path, const Lockfile& lock);

}  // namespace kev
