#pragma once
// GitHub workflow commands that annotate the marked kernel's source line:
// "::error file=F,line=L,title=T::message". GitHub shows at most 10 annotations of each
// severity per step, so beyond `max_per_kind` the last one summarises the rest.
#include <cstddef>
#include <string>

#include "core/report.h"

namespace kev::io {

// Failures (SLOWER, FAILED) are errors; STALE, MISSING and UNSURE are warnings.
[[nodiscard]] std::string report_annotations(const Report& report, std::size_t max_per_kind = 10);

// Escaping of workflow commands: data escapes % CR LF; properties also : and ,.
[[nodiscard]] std::string escape_annotation_data(const std::string& text);
[[nodiscard]] std::string escape_annotation_property(const std::string& text);

}  // namespace kev::io
