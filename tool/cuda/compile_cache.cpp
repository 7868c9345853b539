#include "cuda/compile_cache.h"

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "core/compiler.h"
#include "cuda/files.h"
#include "io/atomic_file.h"
#include "io/hash.h"

namespace kev::cuda {
namespace fs = std::filesystem;
namespace {

constexpr const char* kMagic = "kernelevo-compile-cache 1\n";

// Key material: fields with their lengths, so ("ab","c") and ("a","bc") differ.
class KeyBuilder {
 public:
  void field(std::string_view data) {
    text_ += std::to_string(data.size());
    text_ += ':';
    text_ += data;
  }
  [[nodiscard]] std::string hex() const {
    const std::string h = sha256_of(text_);
    return h.substr(h.find(':') + 1);  // file names: the bare hex digits
  }

 private:
  std::string text_;
};

// Entry layout: the magic line, then records "<tag> <length>\n<bytes>\n", the last one
// "sum" holding the SHA-256 of everything before it.
void put(std::string& out, const std::string& tag, const std::string& bytes) {
  out += tag;
  out += ' ';
  out += std::to_string(bytes.size());
  out += '\n';
  out += bytes;
  out += '\n';
}

struct Record {
  std::string tag;
  std::string bytes;
};

std::optional<std::vector<Record>> parse_entry(const std::string& text) {
  const std::string magic = kMagic;
  if (text.compare(0, magic.size(), magic) != 0) return std::nullopt;
  std::vector<Record> records;
  std::size_t pos = magic.size();
  while (pos < text.size()) {
    const auto space = text.find(' ', pos);
    const auto newline = text.find('\n', pos);
    if (space == std::string::npos || newline == std::string::npos || space > newline) {
      return std::nullopt;
    }
    Record r;
    r.tag = text.substr(pos, space - pos);
    const std::string length_text = text.substr(space + 1, newline - space - 1);
    if (length_text.empty() || length_text.size() > 12 ||
        length_text.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    const std::size_t length = std::stoull(length_text);
    const std::size_t begin = newline + 1;
    if (begin + length + 1 > text.size() || text[begin + length] != '\n') return std::nullopt;
    if (r.tag == "sum") {
      if (sha256_of(std::string_view(text).substr(0, pos)) != text.substr(begin, length)) {
        return std::nullopt;
      }
      if (begin + length + 1 != text.size()) return std::nullopt;
      return records;
    }
    r.bytes = text.substr(begin, length);
    records.push_back(std::move(r));
    pos = begin + length + 1;
  }
  return std::nullopt;  // no checksum: a torn or foreign file
}

std::string env_or(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

CompileCache::CompileCache(std::string directory) : directory_(std::move(directory)) {}

std::string CompileCache::default_directory() {
  if (auto dir = env_or("KERNELEVO_CACHE_DIR"); !dir.empty()) return dir;
  if (auto xdg = env_or("XDG_CACHE_HOME"); !xdg.empty()) return xdg + "/kernelevo";
  if (auto home = env_or("HOME"); !home.empty()) return home + "/.cache/kernelevo";
  return (fs::temp_directory_path() / "kernelevo-cache").string();
}

std::optional<std::string> CompileCache::key(const CompileRequest& request,
                                             const std::string& compiler_identity) {
  std::string text = request.source_text;
  if (text.empty()) {
    auto read = read_whole_file(request.source_path);
    if (!read) return std::nullopt;
    text = std::move(*read);
  }
  std::error_code ec;
  KeyBuilder h;
  h.field("kernelevo compile key 1");
  h.field(compiler_identity);
  h.field(request.arch);
  h.field(request.host_code ? "host" : "device");
  // The absolute path: it decides which "..." headers are found, and appears in diagnostics.
  h.field(request.source_path.empty() ? "" : fs::absolute(request.source_path, ec).string());
  h.field(text);
  h.field("defines");
  for (const auto& [name, value] : request.defines) {
    h.field(name);
    h.field(value);
  }
  h.field("includes");
  for (const auto& dir : request.include_dirs) h.field(fs::absolute(dir, ec).string());
  h.field("flags");
  for (const auto& f : request.flags) h.field(f);
  h.field("kernels");
  for (const auto& k : request.kernel_names) h.field(k);
  if (!request.signature.empty()) {  // Triton's (left out otherwise: CUDA keys stay as they were)
    h.field("signature");
    for (const auto& [name, type] : request.signature) {
      h.field(name);
      h.field(type);
    }
  }
  return h.hex();
}

std::string CompileCache::entry_path(const std::string& key) const {
  return (fs::path(directory_) / key.substr(0, 2) / (key + ".entry")).string();
}

std::optional<CompileOutput> CompileCache::lookup(const std::string& key) const {
  const auto start = std::chrono::steady_clock::now();
  auto text = read_whole_file(entry_path(key), kMaxToolOutputBytes);
  if (!text) return std::nullopt;
  auto records = parse_entry(*text);
  if (!records) return std::nullopt;
  CompileOutput out;
  std::string pending_dep;
  std::string pending_name;
  bool has_image = false;
  for (auto& r : *records) {
    if (r.tag == "dep") {
      pending_dep = std::move(r.bytes);
    } else if (r.tag == "dep_sha256") {
      auto content = read_whole_file(pending_dep);
      if (!content || sha256_of(*content) != r.bytes) return std::nullopt;  // header changed
      out.dependencies.push_back(std::move(pending_dep));
    } else if (r.tag == "kernel") {
      pending_name = std::move(r.bytes);
    } else if (r.tag == "symbol") {
      out.lowered_names[pending_name] = std::move(r.bytes);
    } else if (r.tag == "log") {
      out.log = std::move(r.bytes);
    } else if (r.tag == "block_threads" || r.tag == "shared_bytes" || r.tag == "trailing" ||
               r.tag == "cluster") {
      unsigned v = 0;
      const auto [ptr, ec] = std::from_chars(r.bytes.data(), r.bytes.data() + r.bytes.size(), v);
      if (ec != std::errc{} || ptr != r.bytes.data() + r.bytes.size()) return std::nullopt;
      if (r.tag == "block_threads") out.launch.block_threads = v;
      if (r.tag == "shared_bytes") out.launch.shared_bytes = v;
      if (r.tag == "trailing") out.launch.trailing_null_pointers = v;
      if (r.tag == "cluster") {
        if (v < 1 || v > kMaxPortableClusterCtas) return std::nullopt;
        out.launch.cluster_ctas = v;
      }
    } else if (r.tag == "image") {
      out.image = std::move(r.bytes);
      has_image = true;
    }
  }
  if (!has_image || out.image.empty()) return std::nullopt;
  out.ok = true;
  out.cached = true;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

bool CompileCache::store(const std::string& key, const CompileOutput& output) const {
  if (!output.ok || output.image.empty()) return false;
  std::string entry = kMagic;
  for (const auto& dep : output.dependencies) {
    auto content = read_whole_file(dep);
    if (!content) return false;  // a header vanished meanwhile: do not cache
    put(entry, "dep", dep);
    put(entry, "dep_sha256", sha256_of(*content));
  }
  for (const auto& [name, symbol] : output.lowered_names) {
    put(entry, "kernel", name);
    put(entry, "symbol", symbol);
  }
  put(entry, "log", output.log);
  if (output.launch.block_threads)
    put(entry, "block_threads", std::to_string(*output.launch.block_threads));
  if (output.launch.shared_bytes)
    put(entry, "shared_bytes", std::to_string(*output.launch.shared_bytes));
  if (output.launch.trailing_null_pointers != 0)
    put(entry, "trailing", std::to_string(output.launch.trailing_null_pointers));
  if (output.launch.cluster_ctas != 1)
    put(entry, "cluster", std::to_string(output.launch.cluster_ctas));
  put(entry, "image", output.image);
  put(entry, "sum", sha256_of(entry));
  const std::string path = entry_path(key);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  return kev::write_file_atomically(path, entry).ok();
}

CachingCompiler::CachingCompiler(Compiler& inner, CompileCache cache)
    : inner_(inner), cache_(std::move(cache)) {}

CompileOutput CachingCompiler::compile(const CompileRequest& request) {
  // Asked at the first compile, not before: a compiler that is never used (Triton's, in a
  // CUDA-only run) never starts its tool.
  std::call_once(identity_once_, [this] { identity_ = inner_.identity(); });
  const auto key = CompileCache::key(request, identity_);
  if (!key) return inner_.compile(request);  // unreadable source: let the compiler say so
  if (auto hit = cache_.lookup(*key)) return std::move(*hit);
  CompileOutput out = inner_.compile(request);
  if (out.ok) cache_.store(*key, out);
  return out;
}

}  // namespace kev::cuda
