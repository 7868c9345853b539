#pragma once
// Content hashes as written in lockfiles: "sha256:<64 lower-case hex digits>".
#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.h"
#include "io/file_read.h"

namespace kev {

[[nodiscard]] std::string sha256_of(std::string_view bytes);
// Reads the file in chunks; an unreadable file, anything but a regular file and a file over
// `max_bytes` are errors naming it (io/file_read.h).
[[nodiscard]] Result<std::string> sha256_of_file(const std::filesystem::path& path,
                                                 std::size_t max_bytes = kMaxSourceBytes);
// True for "sha256:" followed by exactly 64 lower-case hex digits.
[[nodiscard]] bool is_sha256_text(std::string_view text);

}  // namespace kev
