#include "io/compile_settings_apply.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "io/file_read.h"

namespace kev {
namespace fs = std::filesystem;
namespace {

bool starts_with_any(std::string_view flag, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view p) { return flag.substr(0, p.size()) == p; });
}

bool is_one_of(std::string_view flag, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), flag) != names.end();
}

// Flags whose value is the next argument unless written "--flag=value"; all are dropped:
// outputs, dependency files, the host compiler and linker, the architecture (the tuner
// compiles for the device's).
constexpr std::array<std::string_view, 22> kDroppedWithValue = {"-o",         "--output-file",
                                                                "-MF",        "--dependency-output",
                                                                "-MT",        "-MQ",
                                                                "-ccbin",     "--compiler-bindir",
                                                                "-Xcompiler", "--compiler-options",
                                                                "-Xlinker",   "--linker-options",
                                                                "-Xarchive",  "--archive-options",
                                                                "-x",         "--x",
                                                                "-odir",      "--output-directory",
                                                                "-arch",      "--gpu-architecture",
                                                                "-gencode",   "--generate-code"};

// Flags NVRTC takes with the same spelling as nvcc (device code generation only).
bool nvrtc_takes(std::string_view flag) {
  return is_one_of(flag, {"-use_fast_math", "--use_fast_math", "-lineinfo", "--generate-line-info",
                          "-G", "--device-debug", "-extra-device-vectorization",
                          "--extra-device-vectorization"}) ||
         starts_with_any(flag, {"-ftz=", "--ftz=", "-fmad=", "--fmad=", "-prec-div=", "--prec-div=",
                                "-prec-sqrt=", "--prec-sqrt=", "-std=", "--std=", "-maxrregcount=",
                                "--maxrregcount="});
}

// Why nvcc -cubin has no use for `flag` ("" when it keeps it).
std::string nvcc_drop_reason(std::string_view flag) {
  if (is_one_of(flag, {"-c",      "--compile",  "-cubin", "--cubin",       "-ptx", "--ptx",
                       "-fatbin", "--fatbin",   "-E",     "--preprocess",  "-dc",  "--device-c",
                       "-dw",     "--device-w", "-dlink", "--device-link", "-lib", "--lib",
                       "-shared", "--shared"}))
    return "selects another kind of output than a CUBIN";
  if (starts_with_any(flag, {"-M", "--generate-dependencies", "--generate-nonsystem-dependencies",
                             "--dependency-"}))
    return "writes a dependency file";
  if (starts_with_any(flag, {"-rdc", "--relocatable-device-code"}))
    return "relocatable device code needs a link step; the tuner loads the CUBIN alone";
  if (starts_with_any(flag, {"-code", "--gpu-code"}))
    return "the tuner compiles for the device's architecture";
  if (starts_with_any(flag, {"-forward-unknown-to-host-", "--forward-unknown-to-host-"}))
    return "a host compiler flag";
  if (starts_with_any(flag, {"-l", "-L", "--library"}) && flag != "-lineinfo")
    return "a linker flag";
  // Host compiler flags reach nvcc only through -forward-unknown-to-host-compiler, dropped
  // above; nvcc's own -f/-m flags are kept.
  if (starts_with_any(flag, {"-f", "-m", "-W"}) &&
      !starts_with_any(flag, {"-ftz=", "-fmad=", "-maxrregcount", "-Werror=", "-Wno-deprecated",
                              "-Wreorder", "-Wdefault-stream-launch", "-Wmissing-launch-bounds",
                              "-Wext-lambda-captures-this"}))
    return "a host compiler flag";
  return {};
}

std::string define_name(std::string_view define) {
  return std::string(define.substr(0, define.find('=')));
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

Result<std::vector<CompileSettings>> load_compile_settings(const fs::path& file_or_dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_directory(file_or_dir, ec)) {
    for (const auto& entry : fs::directory_iterator(file_or_dir, ec))
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    if (ec)
      return make_error("cannot list the compile settings directory " + file_or_dir.string() +
                        ": " + ec.message());
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(file_or_dir);
  }
  std::vector<CompileSettings> all;
  for (const auto& file : files) {
    const auto text = read_regular_file(file, kMaxSourceBytes);
    if (!text) return text.error();
    auto settings = parse_compile_settings_json(*text, file.string());
    if (!settings) return settings.error();
    all.push_back(std::move(settings).value());
  }
  return all;
}

const CompileSettings* settings_for_source(const std::vector<CompileSettings>& all,
                                           const std::string& source) {
  std::error_code ec;
  const fs::path wanted = fs::weakly_canonical(fs::absolute(source, ec), ec);
  for (const auto& s : all) {
    std::error_code ec2;
    if (fs::weakly_canonical(fs::absolute(s.source, ec2), ec2) == wanted) return &s;
  }
  return nullptr;
}

std::vector<std::string> cubin_flags(const std::vector<std::string>& options,
                                     SettingsCompiler compiler, std::vector<std::string>& dropped) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const std::string& flag = options[i];
    if (flag.empty()) continue;
    const bool takes_value = std::find(kDroppedWithValue.begin(), kDroppedWithValue.end(), flag) !=
                             kDroppedWithValue.end();
    const bool attached_value =
        std::any_of(kDroppedWithValue.begin(), kDroppedWithValue.end(), [&](std::string_view p) {
          return flag.size() > p.size() && flag.compare(0, p.size(), p) == 0 &&
                 flag[p.size()] == '=';
        });
    if (takes_value || attached_value) {
      std::string both = flag;
      if (takes_value && i + 1 < options.size()) both += " " + options[++i];
      dropped.push_back("build flag '" + both + "': not used for a CUBIN compile");
      continue;
    }
    const std::string reason = nvcc_drop_reason(flag);
    if (!reason.empty()) {
      dropped.push_back("build flag '" + flag + "': " + reason);
    } else if (compiler == SettingsCompiler::nvrtc && !nvrtc_takes(flag)) {
      dropped.push_back("build flag '" + flag + "': NVRTC does not take it");
    } else {
      kept.push_back(flag);
    }
  }
  return kept;
}

std::vector<std::string> apply_compile_settings(KernelSpec& spec, const CompileSettings& given,
                                                SettingsCompiler compiler) {
  std::vector<std::string> notes;
  // -I/-isystem/-D written among the options count as include directories and defines.
  CompileSettings settings = given;
  settings.options.clear();
  for (std::size_t i = 0; i < given.options.size(); ++i) {
    const std::string& f = given.options[i];
    const bool separate =
        (f == "-I" || f == "-isystem" || f == "-D") && i + 1 < given.options.size();
    const std::string value = separate                           ? given.options[++i]
                              : starts_with_any(f, {"-isystem"}) ? f.substr(8)
                              : starts_with_any(f, {"-I", "-D"}) ? f.substr(2)
                                                                 : std::string{};
    if (f.rfind("-D", 0) == 0) {
      settings.defines.push_back(value);
    } else if (f.rfind("-I", 0) == 0 || f.rfind("-isystem", 0) == 0) {
      settings.include_dirs.push_back(value);
    } else {
      settings.options.push_back(f);
    }
  }
  for (const auto& dir : settings.include_dirs)
    if (!contains(spec.include_dirs, dir)) spec.include_dirs.push_back(dir);

  std::vector<std::string> spec_define_names;
  for (const auto& d : spec.defines) spec_define_names.push_back(define_name(d));
  for (const auto& d : settings.defines) {
    const std::string name = define_name(d);
    const bool tuned = std::any_of(spec.params.begin(), spec.params.end(),
                                   [&](const ParamSpec& p) { return p.name == name; });
    if (tuned) {
      notes.push_back("build define '" + d + "' names the tuned parameter " + name +
                      ": each candidate's own value is compiled instead");
    } else if (contains(spec_define_names, name)) {
      notes.push_back("build define '" + d + "': the spec's own define of " + name + " is used");
    } else {
      spec.defines.push_back(d);
    }
  }

  const bool spec_has_std =
      std::any_of(spec.flags.begin(), spec.flags.end(), [](const std::string& f) {
        return starts_with_any(f, {"-std=", "--std="});
      });
  std::vector<std::string> flags = cubin_flags(settings.options, compiler, notes);
  const bool build_has_std = std::any_of(flags.begin(), flags.end(), [](const std::string& f) {
    return starts_with_any(f, {"-std=", "--std="});
  });
  if (!spec_has_std && !build_has_std && !settings.cuda_standard.empty())
    flags.push_back("-std=c++" + settings.cuda_standard);
  for (auto& f : flags) {
    if (spec_has_std && starts_with_any(f, {"-std=", "--std="})) continue;
    spec.flags.push_back(std::move(f));
  }
  return notes;
}

}  // namespace kev
