#include "cuda/triton_compiler.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/compiler.h"
#include "cuda/cubin.h"
#include "cuda/files.h"
#include "cuda/worker_protocol.h"
#include "io/atomic_file.h"
#include "io/hash.h"
#include "io/json_parse.h"
#include "io/scratch_dir.h"
#include "io/subprocess.h"

#ifndef KERNELEVO_PYTHON
#define KERNELEVO_PYTHON "python3"
#endif
#ifndef KERNELEVO_TRITON_HELPER_FROM_BINDIR
#define KERNELEVO_TRITON_HELPER_FROM_BINDIR "../share/kernelevo/triton_compile.py"
#endif
#ifndef KERNELEVO_SOURCE_TRITON_HELPER
#define KERNELEVO_SOURCE_TRITON_HELPER ""
#endif

namespace kev::cuda {
namespace fs = std::filesystem;

namespace {

std::string env_or(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The child's whole environment: what a compiler gets (PATH, HOME, TMPDIR), Triton's cache and
// home in the compile's own directory (nothing read from or left in ~/.triton), and no GPU.
std::vector<std::string> child_environment(const std::string& scratch) {
  std::vector<std::string> env = io::scrubbed_environment();
  env.push_back("TRITON_CACHE_DIR=" + scratch + "/triton-cache");
  env.push_back("TRITON_HOME=" + scratch);
  env.push_back("CUDA_VISIBLE_DEVICES=");
  env.push_back("PYTHONHASHSEED=0");
  return env;
}

std::string tail(const std::string& text, std::size_t max = 4000) {
  return text.size() <= max ? text : "..." + text.substr(text.size() - max);
}

// A configuration value as Python gets it: an int, a float, a bool, else a string.
nlohmann::json value_json(const std::string& text) {
  if (!text.empty()) {
    char* end = nullptr;
    errno = 0;
    const long long i = std::strtoll(text.c_str(), &end, 10);
    if (errno == 0 && end == text.c_str() + text.size()) return static_cast<std::int64_t>(i);
    const double d = std::strtod(text.c_str(), &end);
    if (end == text.c_str() + text.size()) return d;
  }
  if (text == "True" || text == "true") return true;
  if (text == "False" || text == "false") return false;
  return text;
}

int arch_number(const std::string& arch) {  // "sm_90a" -> 90
  int n = 0;
  for (std::size_t i = 3; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])); ++i)
    n = n * 10 + (arch[i] - '0');
  return n;
}

}  // namespace

std::string triton_python_path() {
  if (auto p = env_or("KERNELEVO_PYTHON"); !p.empty()) return p;
  return KERNELEVO_PYTHON;
}

std::string triton_helper_path() {
  if (auto p = env_or("KERNELEVO_TRITON_HELPER"); !p.empty()) return p;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path() / KERNELEVO_TRITON_HELPER_FROM_BINDIR;
    if (is_file(installed)) return installed.lexically_normal().string();
  }
  return KERNELEVO_SOURCE_TRITON_HELPER;
}

std::string triton_type(const ArgSpec& arg) {
  std::string t;
  switch (arg.type) {
    case ScalarType::f16:
      t = "fp16";
      break;
    case ScalarType::bf16:
      t = "bf16";
      break;
    case ScalarType::f32:
      t = "fp32";
      break;
    case ScalarType::f64:
      t = "fp64";
      break;
    case ScalarType::i8:
      t = "i8";
      break;
    case ScalarType::i16:
      t = "i16";
      break;
    case ScalarType::i32:
      t = "i32";
      break;
    case ScalarType::i64:
      t = "i64";
      break;
    case ScalarType::u8:
      t = "u8";
      break;
    case ScalarType::u16:
      t = "u16";
      break;
    case ScalarType::u32:
      t = "u32";
      break;
    case ScalarType::u64:
      t = "u64";
      break;
    case ScalarType::fp8_e4m3:
      t = "fp8e4nv";
      break;
  }
  return arg.pointer ? "*" + t : t;
}

TritonCompiler::TritonCompiler(TritonOptions options) : options_(std::move(options)) {
  if (options_.python.empty()) options_.python = triton_python_path();
  if (options_.helper.empty()) options_.helper = triton_helper_path();
}

void TritonCompiler::probe() const {
  std::call_once(probed_, [this] {
    const auto helper = read_whole_file(options_.helper);
    if (!helper) {
      unavailable_ = "the Triton helper script is missing (" + options_.helper +
                     "; set KERNELEVO_TRITON_HELPER)";
      identity_ = "triton (unavailable)";
      return;
    }
    const std::string helper_hash = sha256_of(*helper).substr(7, 16);
    io::ScratchDir scratch("kernelevo-triton");
    if (scratch.path().empty()) {  // else Triton's cache would go to /triton-cache
      unavailable_ = "cannot create a temporary directory for Triton (TMPDIR)";
      identity_ = "triton (unavailable)";
      return;
    }
    const auto run =
        io::run_process_split({options_.python, "-I", "-B", options_.helper, "--version"},
                              child_environment(scratch.path()), 60.0, 1u << 16, 1u << 16);
    std::string version;
    if (run.started && !run.timed_out && run.exit_code == 0) {
      auto j = io::parse_untrusted_json<nlohmann::json>(run.out, {"triton --version", 1, 1});
      if (j && j->is_object() && j->contains("ok") && (*j)["ok"] == true &&
          j->contains("triton_version") && (*j)["triton_version"].is_string())
        version = (*j)["triton_version"].get<std::string>();
      if (version.size() > 64) version.clear();
    }
    if (version.empty()) {
      std::string why = !run.started ? run.err : tail(run.out + run.err, 400);
      unavailable_ = std::string(kTritonNotFound) + " (" + options_.python +
                     (why.empty() ? "" : ": " + why) + ")";
      identity_ = "triton (unavailable at " + options_.python + ")";
      return;
    }
    identity_ =
        "triton " + version + " (python " + options_.python + ", helper " + helper_hash + ")";
  });
}

std::string TritonCompiler::identity() const {
  probe();
  return identity_;
}

std::optional<std::string> TritonCompiler::unavailable() const {
  probe();
  return unavailable_;
}

CompileOutput TritonCompiler::compile(const CompileRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  CompileOutput out;
  const std::string kernel = request.kernel_names.empty() ? "" : request.kernel_names.front();
  const std::string shown = (request.source_path.empty() ? "kernel.py" : request.source_path);
  const std::string prefix = shown + ": error: kernel '" + kernel + "': ";
  auto finish = [&](std::string log) -> CompileOutput {
    out.log = std::move(log);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  };
  if (auto why = unavailable()) return finish(prefix + *why);
  if (request.kernel_names.size() != 1)
    return finish(prefix + "a Triton compile builds one function at a time");
  io::ScratchDir scratch("kernelevo-triton");
  if (scratch.path().empty()) return finish(prefix + "cannot create a temporary directory");

  std::error_code ec;
  const fs::path original = fs::absolute(request.source_path, ec);
  fs::path source = original;
  if (!request.source_text.empty()) {  // the text given, under the file's own name
    source = fs::path(scratch.path()) / "src" / original.filename();
    fs::create_directories(source.parent_path(), ec);
    if (!kev::write_file_atomically(source, request.source_text).ok())
      return finish(prefix + "cannot write the source for Triton");
  }
  nlohmann::json req;
  req["source"] = source.string();
  req["search_dir"] = original.parent_path().string();
  req["kernel"] = kernel;
  nlohmann::json signature = nlohmann::json::array();
  for (const auto& [name, type] : request.signature) signature.push_back({name, type});
  req["signature"] = std::move(signature);
  nlohmann::json constexprs = nlohmann::json::object();
  nlohmann::json options = nlohmann::json::object();
  for (const auto& [name, value] : request.defines) {
    if (name == "num_warps" || name == "num_stages" || name == "num_ctas") {
      options[name] = value_json(value);
    } else {
      constexprs[name] = value_json(value);
    }
  }
  req["constexprs"] = std::move(constexprs);
  req["options"] = std::move(options);
  req["arch"] = arch_number(request.arch);
  req["pointer_divisibility"] = 16;  // every buffer the runner and the launchers pass is
  const std::string request_path = scratch.path() + "/request.json";
  if (!kev::write_file_atomically(request_path, req.dump()).ok())
    return finish(prefix + "cannot write the compile request");

  const auto run =
      io::run_process_split({options_.python, "-I", "-B", options_.helper, request_path},
                            child_environment(scratch.path()), options_.timeout_seconds,
                            options_.max_stdout_bytes, options_.max_stderr_bytes);
  const std::string diagnostics = tail(run.err);
  if (!run.started) return finish(prefix + "cannot run " + options_.python + ": " + run.err);
  if (run.timed_out)
    return finish(diagnostics + "\n" + prefix + "Triton's compile did not finish within " +
                  std::to_string(static_cast<int>(options_.timeout_seconds)) + " s");
  if (run.too_much_output)
    return finish(prefix + "the Triton compile wrote more than its output limit (" +
                  std::to_string(options_.max_stdout_bytes) + " bytes on stdout, " +
                  std::to_string(options_.max_stderr_bytes) + " on stderr); killed");
  if (run.signalled) return finish(diagnostics + "\n" + prefix + "the Triton compile was killed");
  auto answer = io::parse_untrusted_json<nlohmann::json>(run.out, {shown, 1, 1});
  if (!answer || !answer->is_object() || !answer->contains("ok") || !(*answer)["ok"].is_boolean())
    return finish(diagnostics + "\n" + prefix + "the Triton compile (exit code " +
                  std::to_string(run.exit_code) + ") gave no readable answer on stdout" +
                  (run.out.empty() ? "" : ": " + tail(run.out, 200)));
  const nlohmann::json& a = *answer;
  if (!a["ok"].get<bool>()) {
    const std::string error =
        a.contains("error") && a["error"].is_string() ? a["error"].get<std::string>() : "";
    return finish(diagnostics + "\n" + prefix + "Triton failed:\n" + tail(error));
  }
  if (run.exit_code != 0)
    return finish(diagnostics + "\n" + prefix + "the Triton compile exited with code " +
                  std::to_string(run.exit_code));
  const auto number = [&](const char* key, std::int64_t low,
                          std::int64_t high) -> std::optional<std::int64_t> {
    if (!a.contains(key) || !a[key].is_number_integer()) return std::nullopt;
    const auto v = a[key].get<std::int64_t>();
    if (v < low || v > high) return std::nullopt;
    return v;
  };
  const auto warps = number("num_warps", 1, 32);
  const auto shared = number("shared", 0, 1 << 20);
  // A power of two up to the portable cluster size, else 0 (out of range).
  unsigned ctas = 0;
  if (const auto c = number("num_ctas", 1, kMaxPortableClusterCtas); c && (*c & (*c - 1)) == 0)
    ctas = static_cast<unsigned>(*c);
  const auto global_scratch = number("global_scratch_size", 0, INT64_MAX);
  const auto profile_scratch = number("profile_scratch_size", 0, INT64_MAX);
  const auto trailing = number("trailing_pointers", 0, 2);
  if (!warps || !shared || ctas == 0 || !global_scratch || !profile_scratch || !trailing ||
      !a.contains("name") || !a["name"].is_string() || !a.contains("cubin") ||
      !a["cubin"].is_string())
    return finish(prefix +
                  "Triton's answer lacks a field or has one out of range "
                  "(num_warps 1-32, shared, num_ctas a power of two up to 8, the scratch "
                  "sizes, name, cubin)");
  if (*global_scratch > 0 || *profile_scratch > 0)
    return finish(prefix + "this configuration needs Triton's global or profile scratch memory (" +
                  std::to_string(*global_scratch) + " and " + std::to_string(*profile_scratch) +
                  " bytes per program), which kernelevo does not allocate");
  // Absent or false, nothing else: the answer comes from a process that imported the kernel's
  // module, so a flag of another type is refused, not read.
  const auto launch_flag = [&](const char* key) { return a.contains(key) && a[key] != false; };
  if (launch_flag("launch_cooperative_grid") || launch_flag("launch_pdl"))
    return finish(prefix +
                  "this configuration needs a cooperative or programmatic-dependent "
                  "launch, which kernelevo does not make");
  auto image = base64_decode(a["cubin"].get<std::string>());
  const std::string symbol = a["name"].get<std::string>();
  const auto info = image ? read_cubin(*image) : std::nullopt;
  if (!info) return finish(prefix + "Triton's answer holds no readable CUBIN");
  if (std::find(info->kernels.begin(), info->kernels.end(), symbol) == info->kernels.end())
    return finish(prefix + "the CUBIN has no entry '" + symbol + "'");
  // Modules of the source's own directory that it imported: part of the cache key (their
  // hashes are checked at each lookup). Paths elsewhere are not taken from the answer.
  if (a.contains("dependencies") && a["dependencies"].is_array()) {
    const fs::path dir = fs::weakly_canonical(original.parent_path(), ec);
    for (const auto& d : a["dependencies"]) {
      if (!d.is_string()) continue;
      const fs::path p = fs::weakly_canonical(d.get<std::string>(), ec);
      if (!ec && p != fs::weakly_canonical(original, ec) && is_under(p, dir) && is_file(p))
        out.dependencies.push_back(p.string());
    }
  }
  out.image = std::move(*image);
  out.lowered_names[kernel] = symbol;
  out.launch.block_threads = static_cast<unsigned>(32 * *warps);
  out.launch.shared_bytes = static_cast<unsigned>(*shared);
  // Triton 3.6: global_scratch and profile_scratch after the kernel's own parameters (the
  // helper counts them in the PTX entry, so an older Triton with fewer is passed fewer).
  out.launch.trailing_null_pointers = static_cast<unsigned>(*trailing);
  out.launch.cluster_ctas = ctas;
  out.ok = true;
  return finish(diagnostics);
}

}  // namespace kev::cuda
