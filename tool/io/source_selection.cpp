#include "io/source_selection.h"

#include "io/file_read.h"
#include "io/hash.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

// A path as a C string literal's contents.
Result<std::string> c_string_of(const fs::path& path) {
  std::string out;
  for (const char c : path.string()) {
    if (c == '\n' || c == '\r' || c == '\0')
      return make_error("the path " + path.string() + " holds a line break; rename it", {},
                        ExitCode::failure);
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// The variant's `#include "name"` lines, with `name` made absolute where the original's
// directory holds it: the original finds such headers beside itself first, and the copy,
// compiled from the build tree, must find the same ones (and only for these directives;
// an include directory would also serve <name> lookups).
Result<std::string> anchor_quoted_includes(const std::string& text, const fs::path& original_dir) {
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    const std::string_view line(text.data() + start, end - start);
    start = end;
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos || line[i] != '#') {
      out += line;
      continue;
    }
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string_view::npos || line.compare(i, 7, "include") != 0) {
      out += line;
      continue;
    }
    const std::size_t open = line.find_first_not_of(" \t", i + 7);
    const std::size_t close = open == std::string_view::npos ? open : line.find('"', open + 1);
    if (open == std::string_view::npos || line[open] != '"' || close == std::string_view::npos) {
      out += line;
      continue;
    }
    const fs::path name(std::string(line.substr(open + 1, close - open - 1)));
    std::error_code ec;
    if (name.empty() || name.is_absolute() || !fs::is_regular_file(original_dir / name, ec)) {
      out += line;
      continue;
    }
    auto literal = c_string_of((original_dir / name).lexically_normal());
    if (!literal) return literal.error();
    out += std::string(line.substr(0, open + 1)) + *literal + std::string(line.substr(close));
  }
  return out;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  return a.lexically_normal() == b.lexically_normal();
}

// `inner` (resolved through links) lies under `dir`.
bool resolves_inside(const fs::path& inner, const fs::path& dir) {
  std::error_code inner_ec;
  std::error_code dir_ec;
  const fs::path real = fs::weakly_canonical(inner, inner_ec);
  const fs::path root = fs::weakly_canonical(dir, dir_ec);
  if (inner_ec || dir_ec) return false;
  const fs::path rel = real.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

// The nearest directory holding `file` that exists, up to `root`: creating the file changes
// its timestamp, so a variant that appears later re-runs the selection.
fs::path nearest_existing_dir(const fs::path& file, const fs::path& root) {
  std::error_code ec;
  for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_directory(dir, ec)) return dir;
    if (dir == root || dir == dir.parent_path()) break;
  }
  return root;
}

struct Verdict {
  std::string why_not;  // empty: current
  std::string text;     // the variant's text when current
};

Verdict judge(const LockedVariant& v, const fs::path& file, const fs::path& lock_dir,
              const std::string& source_hash, const std::string& source_name,
              std::vector<fs::path>& depends) {
  std::error_code ec;
  const bool exists = fs::exists(file, ec);
  depends.push_back(exists ? file : nearest_existing_dir(file, lock_dir));
  if (!v.has_hashes()) return {"it was recorded without hashes (by an older kernelevo)", {}};
  if (v.base_source_hash != source_hash)
    return {source_name + " changed since the variant was evolved from it", {}};
  if (!exists) return {v.file + " does not exist", {}};
  if (!resolves_inside(file, lock_dir))
    return {v.file + " resolves (through a link) outside the lockfile's directory", {}};
  auto text = read_file_if_exists(file, kMaxSourceBytes);
  if (!text || !text->has_value())
    return {"cannot read " + v.file + (text ? std::string() : ": " + text.error().message), {}};
  if (sha256_of(**text) != v.hash)
    return {v.file + " was edited after it was recorded (its sha256 is not the lockfile's)", {}};
  return {{}, std::move(**text)};
}

}  // namespace

Result<SelectedSource> select_source(const Lockfile* lock, const SelectOptions& options) {
  std::error_code ec;
  const fs::path source = fs::absolute(options.source, ec).lexically_normal();
  const fs::path lock_dir = fs::absolute(options.lockfile, ec).parent_path().lexically_normal();
  auto source_literal = c_string_of(source);
  if (!source_literal) return source_literal.error();

  SelectedSource out;
  out.text = "#include \"" + *source_literal + "\"\n";
  if (!lock) return out;
  auto original = read_file_if_exists(source, kMaxSourceBytes);
  if (!original) return original.error();
  if (!original->has_value())
    return make_error("cannot read the marked source " + source.string(), {}, ExitCode::failure);
  const std::string source_hash = sha256_of(**original);
  const std::string lockfile_name = options.lockfile.filename().string();

  for (const auto& [id, kernel] : lock->kernels) {
    if (!kernel.variant || !same_file(lock_dir / kernel.source, source)) continue;
    const LockedVariant& v = *kernel.variant;
    const fs::path file = (lock_dir / v.file).lexically_normal();
    Verdict verdict = judge(v, file, lock_dir, source_hash, options.source_name, out.depends);
    if (!verdict.why_not.empty()) {
      const std::string message = options.source_name + ": building the original, not kernel " +
                                  id + "'s variant " + v.file + ": " + verdict.why_not +
                                  ". Run `kernelevo evolve " + options.source_name + " --kernel " +
                                  id + "` again, or remove its \"variant\" from " + lockfile_name;
      if (options.strict) return make_error(message, {}, ExitCode::failure);
      out.notes.push_back(message);
      continue;
    }
    if (!out.kernel_id.empty()) {
      out.notes.push_back(options.source_name + ": kernel " + id + "'s variant " + v.file +
                          " is not built: a source builds one variant, and kernel " +
                          out.kernel_id + "'s is built");
      continue;
    }
    auto literal = c_string_of(file);
    if (!literal) return literal.error();
    auto anchored = anchor_quoted_includes(verdict.text, source.parent_path());
    if (!anchored) return anchored.error();
    out.kernel_id = id;
    out.variant = file;
    out.text = "#line 1 \"" + *literal + "\"\n" + *anchored;
    if (!out.text.empty() && out.text.back() != '\n') out.text += '\n';
    out.notes.insert(out.notes.begin(),
                     options.source_name + ": building kernel " + id + "'s variant " + v.file);
  }
  return out;
}

std::string depfile_text(const fs::path& target, const std::vector<fs::path>& depends) {
  const auto escaped = [](const std::string& path) {
    std::string s;
    for (const char c : path) {
      if (c == ' ' || c == '#') s += '\\';
      if (c == '$') s += '$';
      s += c;
    }
    return s;
  };
  std::string out = escaped(target.string()) + ":";
  for (const auto& d : depends) out += " \\\n  " + escaped(d.string());
  return out + "\n";
}

}  // namespace kev
