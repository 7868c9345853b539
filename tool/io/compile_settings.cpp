#include "io/compile_settings.h"

#include <nlohmann/json.hpp>

#include "io/json_parse.h"

namespace kev {

Result<CompileSettings> parse_compile_settings_lines(std::string_view text,
                                                     const std::string& file_name) {
  CompileSettings s;
  int line_number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const auto tab = line.find('\t');
    if (tab == std::string_view::npos)
      return make_error("expected \"key<TAB>value\"", {file_name, line_number, 1});
    const std::string key(line.substr(0, tab));
    std::string value(line.substr(tab + 1));
    if (key == "source")
      s.source = std::move(value);
    else if (key == "target")
      s.target = std::move(value);
    else if (key == "compiler")
      s.compiler = std::move(value);
    else if (key == "compiler_launcher")
      s.compiler_launcher = std::move(value);
    else if (key == "cuda_architectures")
      s.cuda_architectures = std::move(value);
    else if (key == "cuda_standard")
      s.cuda_standard = std::move(value);
    else if (key == "include") {
      if (!value.empty()) s.include_dirs.push_back(std::move(value));
    } else if (key == "define") {
      if (!value.empty()) s.defines.push_back(std::move(value));
    } else if (key == "option") {
      if (!value.empty()) s.options.push_back(std::move(value));
    } else
      return make_error("unknown key '" + key + "'", {file_name, line_number, 1});
  }
  return s;
}

std::string compile_settings_json(const CompileSettings& s) {
  const nlohmann::ordered_json j = {
      {"schema_version", 1},
      {"source", s.source},
      {"target", s.target},
      {"compiler", s.compiler},
      {"compiler_launcher", s.compiler_launcher},
      {"cuda_architectures", s.cuda_architectures},
      {"cuda_standard", s.cuda_standard},
      {"include_dirs", s.include_dirs},
      {"defines", s.defines},
      {"options", s.options},
  };
  return j.dump(2) + "\n";
}

Result<CompileSettings> parse_compile_settings_json(std::string_view text,
                                                    const std::string& file_name) {
  auto parsed = io::parse_untrusted_json<nlohmann::json>(text, {file_name});
  if (!parsed) return parsed.error();
  try {
    const auto& j = *parsed;
    if (!j.is_object() || !j.contains("schema_version") ||
        !j.at("schema_version").is_number_integer() ||
        j.at("schema_version").get<std::int64_t>() != 1)
      return make_error(file_name + ": not a compile settings file of schema_version 1");
    CompileSettings s;
    s.source = j.at("source").get<std::string>();
    s.target = j.value("target", "");
    s.compiler = j.value("compiler", "");
    s.compiler_launcher = j.value("compiler_launcher", "");
    s.cuda_architectures = j.value("cuda_architectures", "");
    s.cuda_standard = j.value("cuda_standard", "");
    s.include_dirs = j.value("include_dirs", std::vector<std::string>{});
    s.defines = j.value("defines", std::vector<std::string>{});
    s.options = j.value("options", std::vector<std::string>{});
    return s;
  } catch (const nlohmann::json::exception& e) {
    return make_error(file_name + ": " + e.what());
  }
}

}  // namespace kev
