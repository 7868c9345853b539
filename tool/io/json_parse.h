#pragma once
// Parsing JSON that arrives from outside (lockfiles, traces, reports, recordings, compile
// settings): in time linear in its size (nlohmann's parser with a callback is quadratic in
// the length of arrays and objects), refusing duplicate keys (parsers keep one of them
// silently, so a reviewer could read one value while the tool uses another) and nesting
// deeper than kMaxJsonDepth. Errors name file:line:column and quote at most a short,
// printable excerpt of the input, never the text of a string.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/result.h"

namespace kev::io {

inline constexpr std::size_t kMaxJsonDepth = 64;

// `origin` is where `text` starts: the file, and the line of a JSON Lines record.
template <class Json>
[[nodiscard]] Result<Json> parse_untrusted_json(std::string_view text,
                                                const SourceLocation& origin);

extern template Result<nlohmann::json> parse_untrusted_json<nlohmann::json>(std::string_view,
                                                                            const SourceLocation&);
extern template Result<nlohmann::ordered_json> parse_untrusted_json<nlohmann::ordered_json>(
    std::string_view, const SourceLocation&);

// Untrusted text for a message: quoted, at most 40 characters, unprintable ones as '?'.
[[nodiscard]] std::string excerpt(std::string_view text);

// The line and column (1-based) of the byte at `offset` of `text`, which starts at `origin`
// (line and column 0 read as 1).
[[nodiscard]] SourceLocation location_of_offset(std::string_view text, std::size_t offset,
                                                const SourceLocation& origin);

}  // namespace kev::io
