#pragma once
// Reading files whose path comes from input (a checkout, a lockfile, a command line): regular
// files only, never more than a cap, so a link to /dev/zero, a FIFO, a directory or a huge
// file is a clear error naming the file (exit 2) instead of a hang or exhausted memory.
// The caps are documented in docs/lockfile.md and docs/trace-format.md.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace kev {

inline constexpr std::size_t kMaxSourceBytes = 16u << 20;  // sources, headers, variants, specs
inline constexpr std::size_t kMaxLockfileBytes = 16u << 20;
// Traces, reports and recordings, compressed and after decompression.
inline constexpr std::size_t kMaxRecordingBytes = 256u << 20;
// What tools write: images, compile cache entries, compiler output.
inline constexpr std::size_t kMaxToolOutputBytes = 256u << 20;

// Passes the file's bytes to `chunk` in order. Refused (exit 2, the error names the file): a
// missing file, anything but a regular file (links are followed), more than `max_bytes`
// bytes. Other I/O errors exit 3. Opening never blocks (a FIFO is refused, not waited on).
[[nodiscard]] Status read_regular_file_chunks(const std::filesystem::path& path,
                                              std::size_t max_bytes,
                                              const std::function<void(std::string_view)>& chunk);

[[nodiscard]] Result<std::string> read_regular_file(const std::filesystem::path& path,
                                                    std::size_t max_bytes);

// The same, with nullopt for a path that does not exist.
[[nodiscard]] Result<std::optional<std::string>> read_file_if_exists(
    const std::filesystem::path& path, std::size_t max_bytes);

// "16 MiB", or "1000 bytes" when not a whole number of MiB: how caps are named in errors.
[[nodiscard]] std::string byte_size_text(std::size_t bytes);

}  // namespace kev
