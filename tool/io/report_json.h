#pragma once
// The JSON form of a report: {"schema": "kernelevo-report", "version": 1, ...}. Stable and
// versioned: fields are only ever added; a reader of version 1 ignores unknown fields.
#include <string>

#include "core/report.h"
#include "core/result.h"

namespace kev::io {

inline constexpr const char* kReportSchema = "kernelevo-report";

[[nodiscard]] std::string report_to_json(const Report& report);
// `path` names the text in errors (JSON syntax errors carry line and column).
[[nodiscard]] Result<Report> parse_report_json(const std::string& text, const std::string& path);
[[nodiscard]] bool looks_like_report_json(const std::string& text);

}  // namespace kev::io
