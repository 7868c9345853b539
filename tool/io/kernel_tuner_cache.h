#pragma once
// Kernel Tuner cachefiles: `tune_params_keys`, `tune_params`, and `cache` mapping each
// configuration to its mean `time` in ms (or a failure string) and its repeats `times`.
#include <nlohmann/json.hpp>

#include "core/recording.h"
#include "core/result.h"

namespace kev::io {

Result<Recording> recording_from_kernel_tuner(const nlohmann::ordered_json& doc,
                                              const std::string& path);

}  // namespace kev::io
