#include "io/source_selection.h"

#include "io/file_read.h"
#include "io/hash.h"
#include "io/spec_yaml.h"

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

// `inner` (resolved through links) lies under `dir` (as given: a canonical path).
bool resolves_inside(const fs::path& inner, const fs::path& dir) {
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(inner, ec);
  if (ec) return false;
  const fs::path rel = real.lexically_relative(dir);
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

constexpr const char* kVariantsDir = "kernelevo-variants";

// Where `evolve` writes variants (llm/evolve_output.h): "kernelevo-variants/<name>.cu".
bool is_variant_path(const std::string& file) {
  const fs::path p = fs::path(file).lexically_normal();
  auto part = p.begin();
  return part != p.end() && *part == kVariantsDir && ++part != p.end() && p.extension() == ".cu";
}

// By kernel id: the kernels `original` marks, then those the caller names.
std::map<std::string, KernelNames> kernels_of(const std::string& original,
                                              const SelectOptions& options) {
  std::map<std::string, KernelNames> out;
  for (const auto& block : find_marked_blocks(original, options.source_name))
    for (const auto& spec : parse_marked_block(block, options.source_name).specs)
      out.emplace(spec.id, KernelNames{options.source_name, spec.kernel, spec.reference});
  for (const auto& [id, names] : options.kernels) out.emplace(id, names);
  return out;
}

struct Verdict {
  std::string why_not;  // empty: current
  std::string text;     // the variant's text when current
};

struct Original {
  const std::string& text;
  const std::string& hash;
  const std::map<std::string, KernelNames>& kernels;
};

Verdict judge(const std::string& id, const LockedVariant& v, const fs::path& file,
              const fs::path& lock_dir, const Original& original, const SelectOptions& options,
              std::vector<fs::path>& depends) {
  const std::string& source_name = options.source_name;
  std::error_code ec;
  const bool exists = fs::exists(file, ec);
  depends.push_back(exists ? file : nearest_existing_dir(file, lock_dir));
  if (!v.has_hashes()) return {"it was recorded without hashes (by an older kernelevo)", {}};
  if (!is_variant_path(v.file))
    return {v.file + " is not a .cu file in " + kVariantsDir + "/, where evolve writes variants",
            {}};
  if (v.base_source_hash != original.hash)
    return {source_name + " changed since the variant was evolved from it", {}};
  const auto names = original.kernels.find(id);
  if (names == original.kernels.end())
    return {source_name + " marks no kernel " + id + " to check the variant against", {}};
  if (!exists) return {v.file + " does not exist", {}};
  // The folder itself must not be a link either: the lockfile's directory is resolved, the
  // folder in it is not.
  if (!resolves_inside(file, fs::weakly_canonical(lock_dir, ec) / kVariantsDir))
    return {v.file + " resolves (through a link) outside the lockfile's " + kVariantsDir + "/", {}};
  auto text = read_file_if_exists(file, kMaxSourceBytes);
  if (!text || !text->has_value())
    return {"cannot read " + v.file + (text ? std::string() : ": " + text.error().message), {}};
  if (sha256_of(**text) != v.hash)
    return {v.file + " was edited after it was recorded (its sha256 is not the lockfile's)", {}};
  if (auto kept = check_frozen_parts(original.text, **text, names->second); !kept) {
    const Error& e = kept.error();
    const std::string where = e.where.to_string();
    return {v.file + " is not " + source_name + " with kernel " + id + " rewritten: " + e.message +
                (where.empty() ? "" : " (" + where + ")"),
            {}};
  }
  return {{}, std::move(**text)};
}

}  // namespace

Result<std::string> relocated_source(const std::string& text, const fs::path& named_as,
                                     const fs::path& includes_from) {
  auto literal = c_string_of(named_as);
  if (!literal) return literal.error();
  auto anchored = anchor_quoted_includes(text, includes_from);
  if (!anchored) return anchored.error();
  std::string out = "#line 1 \"" + *literal + "\"\n" + *anchored;
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

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
  std::optional<std::map<std::string, KernelNames>> kernels;  // read when a variant is recorded

  for (const auto& [id, kernel] : lock->kernels) {
    if (!kernel.variant || !same_file(lock_dir / kernel.source, source)) continue;
    if (!kernels) kernels = kernels_of(**original, options);
    const LockedVariant& v = *kernel.variant;
    const fs::path file = (lock_dir / v.file).lexically_normal();
    Verdict verdict =
        judge(id, v, file, lock_dir, {**original, source_hash, *kernels}, options, out.depends);
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
    auto text = relocated_source(verdict.text, file, source.parent_path());
    if (!text) return text.error();
    out.kernel_id = id;
    out.variant = file;
    out.text = std::move(*text);
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
