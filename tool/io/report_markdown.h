#pragma once
// The Markdown form of a report: a GitHub job summary and a pull-request body.
#include <string>

#include "core/report.h"

namespace kev::io {

[[nodiscard]] std::string report_markdown(const Report& report);

}  // namespace kev::io
