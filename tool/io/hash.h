#pragma once
// Content hashes as written in lockfiles: "sha256:<64 lower-case hex digits>".
#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.h"

namespace kev {

[[nodiscard]] std::string sha256_of(std::string_view bytes);
// Reads the file in chunks; an unreadable file is an error naming it.
[[nodiscard]] Result<std::string> sha256_of_file(const std::filesystem::path& path);
// True for "sha256:" followed by exactly 64 lower-case hex digits.
[[nodiscard]] bool is_sha256_text(std::string_view text);

}  // namespace kev
