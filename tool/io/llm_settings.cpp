#include "io/llm_settings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/endpoint_url.h"
#include "core/tuner.h"
#include "io/file_read.h"

namespace kev {
namespace {

constexpr std::array<std::string_view, 7> kKeys{"base_url",        "model",       "request_timeout",
                                                "connect_timeout", "max_retries", "max_tokens",
                                                "temperature"};

constexpr std::size_t kMaxFileBytes = 1u << 20;

class SectionReader {
 public:
  explicit SectionReader(std::string file) : file_(std::move(file)) {}

  SourceLocation at(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    if (m.line < 0) return {file_};
    return {file_, m.line + 1, m.column + 1};
  }
  Error error(const YAML::Node& n, const std::string& message) const {
    return make_error(message, at(n));
  }

  Result<std::string> text(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar() || n.Scalar().empty())
      return error(n, "llm." + key + ": expected a non-empty string");
    return n.Scalar();
  }
  Result<double> seconds(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar())
      return error(n, "llm." + key + ": expected seconds (300) or a duration (5m)");
    auto d = parse_duration(n.Scalar());
    if (!d || !std::isfinite(d->count()) || d->count() <= 0.0)
      return error(n, "llm." + key +
                          ": expected a positive number of seconds (300) or a duration "
                          "(90s, 5m, 1h)");
    return d->count();
  }
  Result<int> count(const YAML::Node& n, const std::string& key, int min, int max) const {
    long long v = 0;
    if (n.IsScalar()) {
      try {
        v = n.as<long long>();
      } catch (const YAML::Exception&) {
        v = std::numeric_limits<long long>::min();
      }
    }
    if (!n.IsScalar() || v < min || v > max)
      return error(n, "llm." + key + ": expected an integer from " + std::to_string(min) + " to " +
                          std::to_string(max));
    return static_cast<int>(v);
  }
  Result<double> temperature(const YAML::Node& n, const std::string& key) const {
    double v = std::numeric_limits<double>::quiet_NaN();
    if (n.IsScalar()) {
      try {
        v = n.as<double>();
      } catch (const YAML::Exception&) {
      }
    }
    if (!std::isfinite(v) || v < 0.0 || v > 2.0)
      return error(n, "llm." + key + ": expected a number from 0 to 2");
    return v;
  }

 private:
  std::string file_;
};

std::string allowed_keys() {
  std::string s;
  for (const auto k : kKeys) s += (s.empty() ? "" : ", ") + std::string(k);
  return s;
}

Result<LlmSettings> read_section(const YAML::Node& section, const SectionReader& r) {
  LlmSettings out;
  if (section.IsNull()) return out;
  if (!section.IsMap())
    return r.error(section, "llm: expected a map of settings (" + allowed_keys() + ")");
  for (auto it = section.begin(); it != section.end(); ++it) {
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    const std::string name = key.IsScalar() ? key.Scalar() : "?";
    if (names_a_secret(name))
      return r.error(key, "llm." + name +
                              ": an API key must not be written in kernelevo.yaml (the file is "
                              "committed with the project); remove it and set "
                              "KERNELEVO_LLM_API_KEY (or OPENAI_API_KEY) in the environment");
    if (name == "base_url") {
      auto v = r.text(value, name);
      if (!v) return v.error();
      const EndpointUrl url = parse_endpoint_url(*v);
      if (url.had_credentials || url.query_names_a_secret())
        return r.error(value, "llm." + name +
                                  ": credentials in the URL must not be written in kernelevo.yaml; "
                                  "set KERNELEVO_LLM_API_KEY in the environment instead");
      out.base_url = *v;
    } else if (name == "model") {
      auto v = r.text(value, name);
      if (!v) return v.error();
      out.model = *v;
    } else if (name == "request_timeout" || name == "connect_timeout") {
      auto v = r.seconds(value, name);
      if (!v) return v.error();
      (name == "request_timeout" ? out.request_timeout_s : out.connect_timeout_s) = *v;
    } else if (name == "max_retries") {
      auto v = r.count(value, name, 0, 20);
      if (!v) return v.error();
      out.max_retries = *v;
    } else if (name == "max_tokens") {
      auto v = r.count(value, name, 1, 10'000'000);
      if (!v) return v.error();
      out.max_tokens = *v;
    } else if (name == "temperature") {
      auto v = r.temperature(value, name);
      if (!v) return v.error();
      out.temperature = *v;
    } else {
      return r.error(key, "unknown key 'llm." + name + "'; expected one of " + allowed_keys());
    }
  }
  return out;
}

}  // namespace

Result<LlmSettings> parse_llm_settings(std::string_view yaml, const std::string& file) {
  const SectionReader reader(file);
  try {
    const YAML::Node root = YAML::Load(std::string(yaml));
    if (!root.IsMap()) return LlmSettings{};
    for (auto it = root.begin(); it != root.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == "llm")
        return read_section(it->second, reader);
    return LlmSettings{};
  } catch (const YAML::Exception& e) {
    return make_error("not valid YAML: " + e.msg,
                      SourceLocation{file, e.mark.line < 0 ? 0 : e.mark.line + 1,
                                     e.mark.column < 0 ? 0 : e.mark.column + 1});
  }
}

Result<LlmSettings> read_llm_settings(const std::filesystem::path& path) {
  auto text = read_file_if_exists(path, kMaxFileBytes);
  if (!text) return text.error();
  if (!text->has_value()) return LlmSettings{};
  return parse_llm_settings(**text, path.string());
}

}  // namespace kev
