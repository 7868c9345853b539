#pragma once
// T4 results files (the autotuning community's shared results format): `results`, each with a
// `configuration`, `times.runtimes` in ms, `invalidity` and `measurements`.
#include <nlohmann/json.hpp>

#include "core/recording.h"
#include "core/result.h"

namespace kev::io {

Result<Recording> recording_from_t4(const nlohmann::ordered_json& doc, const std::string& path);

}  // namespace kev::io
