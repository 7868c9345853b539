#include "cuda/nvcc_compiler.h"

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "cuda/cubin.h"
#include "cuda/files.h"
#include "cuda/toolkit.h"
#include "io/atomic_file.h"
#include "io/scratch_dir.h"
#include "io/subprocess.h"

namespace kev::cuda {
namespace fs = std::filesystem;
namespace {

bool names_std(const std::vector<std::string>& flags) {
  for (const auto& f : flags) {
    if (f.rfind("-std", 0) == 0 || f.rfind("--std", 0) == 0) return true;
  }
  return false;
}

// Parses a Makefile dependency file ("out: a.cu \\\n  b.h \\\n  c.h").
std::vector<std::string> parse_depfile(const std::string& text) {
  std::vector<std::string> files;
  const auto colon = text.find(": ");
  if (colon == std::string::npos) return files;
  std::string current;
  for (std::size_t i = colon + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
      current.push_back(' ');
      ++i;
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      if (!current.empty()) files.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) files.push_back(std::move(current));
  return files;
}

// Project headers among nvcc's dependencies: those under the source's directory or one of
// the request's include directories. System and toolkit headers are covered by the
// compiler identity.
std::vector<std::string> project_dependencies(const std::vector<std::string>& deps,
                                              const std::vector<fs::path>& roots,
                                              const fs::path& input, const fs::path& scratch) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& d : deps) {
    const fs::path p = fs::weakly_canonical(d, ec);
    if (p == input || is_under(p, scratch)) continue;
    for (const auto& root : roots) {
      if (is_under(p, root)) {
        out.insert(p.string());
        break;
      }
    }
  }
  return {out.begin(), out.end()};
}

// The file nvcc reads: the source itself, or its text written into `scratch` under the
// same file name, so nvcc's diagnostics name the file the user knows.
std::optional<fs::path> input_file(const CompileRequest& request, const std::string& scratch) {
  std::error_code ec;
  if (request.source_text.empty()) return fs::absolute(request.source_path, ec);
  fs::path input =
      fs::path(scratch) / (request.source_path.empty() ? fs::path("kernel.cu")
                                                       : fs::path(request.source_path).filename());
  if (input.extension() != ".cu") input += ".cu";
  if (!kev::write_file_atomically(input, request.source_text).ok()) return std::nullopt;
  return input;
}

}  // namespace

std::string expand_macros(const std::string& text,
                          const std::vector<std::pair<std::string, std::string>>& defines) {
  std::string out;
  std::size_t i = 0;
  auto ident_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  while (i < text.size()) {
    if (!ident_char(text[i]) || std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
      // numbers are copied whole, so "2u" is not split into "2" and the macro "u"
      std::size_t j = i + 1;
      if (std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
        while (j < text.size() && ident_char(text[j])) ++j;
      }
      out.append(text, i, j - i);
      i = j;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && ident_char(text[j])) ++j;
    const std::string word = text.substr(i, j - i);
    std::string replacement = word;
    for (const auto& [name, value] : defines) {
      if (name == word) replacement = value.empty() ? "1" : value;
    }
    out += replacement;
    i = j;
  }
  return out;
}

NvccCompiler::NvccCompiler(NvccOptions options) : options_(std::move(options)) {
  if (options_.nvcc.empty()) options_.nvcc = nvcc_path();
  const auto version =
      io::run_process({options_.nvcc, "--version"}, io::scrubbed_environment(), 30.0);
  // "Cuda compilation tools, release 13.0, V13.0.88" -> "nvcc 13.0.88"
  const auto v = version.output.rfind(", V");
  if (version.started && version.exit_code == 0 && v != std::string::npos) {
    const auto end = version.output.find_first_of("\r\n", v);
    identity_ = "nvcc " + version.output.substr(v + 3, end - v - 3);
  } else {
    identity_ = "nvcc (unavailable at " + options_.nvcc + ")";
  }
}

std::string NvccCompiler::identity() const { return identity_; }

std::vector<std::string> NvccCompiler::command_for(const CompileRequest& request,
                                                   const std::string& input,
                                                   const std::string& output) const {
  std::vector<std::string> cmd = {options_.nvcc, "-cubin"};
  // -arch=sm_90 with -cubin means code=sm_90 only; sm_90a works the same way.
  cmd.push_back("-arch=" + request.arch);
  if (!names_std(request.flags)) cmd.push_back(options_.std_flag);
  for (const auto& [name, value] : request.defines) {
    cmd.push_back(value.empty() ? "-D" + name : "-D" + name + "=" + value);
  }
  if (!request.source_path.empty()) {
    std::error_code ec;
    const auto dir = fs::absolute(request.source_path, ec).parent_path();
    if (!dir.empty()) cmd.push_back("-I" + dir.string());
  }
  for (const auto& dir : request.include_dirs) cmd.push_back("-I" + dir);
  for (const auto& f : request.flags) cmd.push_back(f);
  cmd.push_back(input);
  cmd.push_back("-o");
  cmd.push_back(output);
  return cmd;
}

CompileOutput NvccCompiler::compile(const CompileRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  CompileOutput out;
  auto finish = [&]() -> CompileOutput {
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  };
  const std::string shown = request.source_path.empty() ? "kernel.cu" : request.source_path;

  io::ScratchDir scratch("kernelevo-nvcc");
  if (scratch.path().empty()) {
    out.log = shown + ": error: cannot create a temporary directory for nvcc";
    return finish();
  }
  std::error_code ec;
  const auto input_or = input_file(request, scratch.path());
  if (!input_or) {
    out.log = shown + ": error: cannot write the source for nvcc";
    return finish();
  }
  const fs::path input = *input_or;
  const std::string cubin = scratch.path() + "/out.cubin";
  const std::string depfile = scratch.path() + "/out.d";
  auto cmd = command_for(request, input.string(), cubin);
  cmd.insert(cmd.end() - 3, {"-MD", "-MF", depfile});

  const auto run = io::run_process(cmd, io::scrubbed_environment(), options_.timeout_seconds);
  out.log = run.output;
  if (!run.started) {
    out.log = shown + ": error: " + run.output;
    return finish();
  }
  if (run.timed_out) {
    out.log += "\n" + shown + ": error: nvcc did not finish within " +
               std::to_string(options_.timeout_seconds) + " s";
    return finish();
  }
  if (run.exit_code != 0) {
    if (out.log.empty()) out.log = shown + ": error: nvcc failed";
    return finish();
  }
  auto image = read_whole_file(cubin, kMaxToolOutputBytes);
  auto info = image ? read_cubin(*image) : std::nullopt;
  if (!info) {
    out.log += shown + ": error: nvcc produced no readable CUBIN\n";
    return finish();
  }
  for (const auto& kernel : request.kernel_names) {
    auto symbol = find_kernel_symbol(expand_macros(kernel, request.defines), info->kernels);
    if (!symbol) {
      out.log += shown + ": error: no kernel named '" + kernel + "' in the compiled CUBIN\n";
      return finish();
    }
    out.lowered_names[kernel] = *symbol;
  }

  std::vector<fs::path> roots;
  roots.push_back(fs::absolute(request.source_path, ec).parent_path());
  for (const auto& dir : request.include_dirs) roots.push_back(fs::weakly_canonical(dir, ec));
  out.dependencies =
      project_dependencies(parse_depfile(read_whole_file(depfile).value_or("")), roots,
                           fs::weakly_canonical(input, ec), fs::path(scratch.path()));
  out.image = std::move(*image);
  out.ok = true;
  return finish();
}

std::optional<std::vector<std::string>> NvccCompiler::list_dependencies(
    const CompileRequest& request) const {
  io::ScratchDir scratch("kernelevo-nvcc");
  if (scratch.path().empty()) return std::nullopt;
  const auto input = input_file(request, scratch.path());
  if (!input) return std::nullopt;
  const std::string depfile = scratch.path() + "/deps.d";
  auto cmd = command_for(request, input->string(), depfile);
  cmd.insert(cmd.begin() + 1, "-M");
  const auto run = io::run_process(cmd, io::scrubbed_environment(), options_.timeout_seconds);
  if (!run.started || run.timed_out || run.exit_code != 0) return std::nullopt;
  const auto text = read_whole_file(depfile);
  if (!text) return std::nullopt;
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path self = fs::weakly_canonical(*input, ec);
  for (const auto& d : parse_depfile(*text)) {
    const fs::path p = fs::weakly_canonical(d, ec);
    if (p != self) out.push_back(p.string());
  }
  return out;
}

}  // namespace kev::cuda
