#include "cuda/nvrtc_compiler.h"

#include <nvrtc.h>

#include <chrono>
#include <filesystem>
#include <memory>

#include "cuda/files.h"
#include "cuda/include_scan.h"
#include "cuda/toolkit.h"

namespace kev::cuda {
namespace {

struct ProgramDeleter {
  void operator()(nvrtcProgram* p) const {
    nvrtcDestroyProgram(p);
    delete p;
  }
};
using Program = std::unique_ptr<nvrtcProgram, ProgramDeleter>;

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(size - 1);  // drop the terminating NUL
  return log;
}

bool names_std(const std::vector<std::string>& flags) {
  for (const auto& f : flags) {
    if (f.rfind("-std", 0) == 0 || f.rfind("--std", 0) == 0) return true;
  }
  return false;
}

}  // namespace

NvrtcCompiler::NvrtcCompiler(NvrtcOptions options) : options_(std::move(options)) {
  if (options_.toolkit_include.empty()) options_.toolkit_include = toolkit_include_dir();
}

std::string NvrtcCompiler::identity() const {
  int major = 0;
  int minor = 0;
  nvrtcVersion(&major, &minor);
  return "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> NvrtcCompiler::options_for(const CompileRequest& request) const {
  std::vector<std::string> opts;
  opts.push_back("--gpu-architecture=" + request.arch);
  if (!names_std(request.flags)) opts.push_back(options_.std_flag);
  for (const auto& [name, value] : request.defines) {
    opts.push_back(value.empty() ? "-D" + name : "-D" + name + "=" + value);
  }
  if (!request.source_path.empty()) {
    std::error_code path_ec;
    const auto dir = std::filesystem::absolute(request.source_path, path_ec).parent_path();
    if (!dir.empty()) opts.push_back("-I" + dir.string());
  }
  for (const auto& dir : request.include_dirs) opts.push_back("-I" + dir);
  opts.push_back("-I" + options_.toolkit_include);
  // CUDA 13 keeps libcu++ (<cuda/std/...>) and CUB under include/cccl.
  std::error_code ec;
  if (std::filesystem::is_directory(options_.toolkit_include + "/cccl", ec)) {
    opts.push_back("-I" + options_.toolkit_include + "/cccl");
  }
  for (const auto& f : request.flags) opts.push_back(f);
  return opts;
}

CompileOutput NvrtcCompiler::compile(const CompileRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  CompileOutput out;
  auto finish = [&]() -> CompileOutput {
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  };

  std::string text = request.source_text;
  if (text.empty()) {
    auto read = read_whole_file(request.source_path);
    if (!read) {
      out.log = request.source_path + ": error: cannot read the source file";
      return finish();
    }
    text = std::move(*read);
  }

  const std::string name = request.source_path.empty() ? "kernel.cu" : request.source_path;
  Program program(new nvrtcProgram{});
  if (nvrtcCreateProgram(program.get(), text.c_str(), name.c_str(), 0, nullptr, nullptr) !=
      NVRTC_SUCCESS) {
    program.release();
    out.log = name + ": error: nvrtcCreateProgram failed";
    return finish();
  }
  for (const auto& kernel : request.kernel_names) {
    nvrtcAddNameExpression(*program, kernel.c_str());
  }

  const auto opts = options_for(request);
  std::vector<const char*> argv;
  argv.reserve(opts.size());
  for (const auto& o : opts) argv.push_back(o.c_str());
  const nvrtcResult rc = nvrtcCompileProgram(*program, static_cast<int>(argv.size()), argv.data());
  out.log = program_log(*program);
  if (rc != NVRTC_SUCCESS) {
    if (out.log.empty()) out.log = name + ": error: " + nvrtcGetErrorString(rc);
    return finish();
  }

  for (const auto& kernel : request.kernel_names) {
    const char* lowered = nullptr;
    if (nvrtcGetLoweredName(*program, kernel.c_str(), &lowered) != NVRTC_SUCCESS ||
        lowered == nullptr) {
      out.log += name + ": error: no kernel named '" + kernel + "' in the compiled program\n";
      return finish();
    }
    out.lowered_names[kernel] = lowered;
  }

  std::size_t size = 0;
  if (nvrtcGetCUBINSize(*program, &size) != NVRTC_SUCCESS || size == 0) {
    out.log += name + ": error: NVRTC produced no CUBIN (is '" + request.arch +
               "' a real architecture, sm_XY rather than compute_XY?)\n";
    return finish();
  }
  out.image.resize(size);
  if (nvrtcGetCUBIN(*program, out.image.data()) != NVRTC_SUCCESS) {
    out.image.clear();
    out.log += name + ": error: nvrtcGetCUBIN failed\n";
    return finish();
  }
  std::vector<std::string> search_dirs;
  for (const auto& o : opts) {
    if (o.rfind("-I", 0) == 0) search_dirs.push_back(o.substr(2));
  }
  out.dependencies =
      scan_includes(text, request.source_path, search_dirs, options_.toolkit_include);
  out.ok = true;
  return finish();
}

}  // namespace kev::cuda
