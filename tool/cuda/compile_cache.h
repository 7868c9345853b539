#pragma once
// An on-disk cache of compiled images. Keyed by SHA-256 of everything that affects an
// image: compiler identity, architecture, source path and text, defines, include
// directories, flags, kernel names. The headers a source reads are only known after a
// compile (nvcc's -MD output, or include_scan for NVRTC), so each entry records them with
// their hashes and a lookup is a hit only while every one is unchanged (as ccache's direct
// mode does). Entries carry a checksum; a damaged or unreadable entry is a miss, never an
// error. Writes are atomic (temporary file, then rename), so concurrent tuners may share
// the directory.
#include <mutex>
#include <optional>
#include <string>

#include "core/compiler.h"

namespace kev::cuda {

class CompileCache {
 public:
  explicit CompileCache(std::string directory = default_directory());
  // $KERNELEVO_CACHE_DIR, else $XDG_CACHE_HOME/kernelevo, else ~/.cache/kernelevo.
  [[nodiscard]] static std::string default_directory();
  [[nodiscard]] const std::string& directory() const { return directory_; }

  // The cache key of `request` for a compiler of identity `compiler_identity`, or nullopt
  // when the source cannot be read.
  [[nodiscard]] static std::optional<std::string> key(const CompileRequest& request,
                                                      const std::string& compiler_identity);
  // A stored output whose recorded headers are all unchanged, with cached = true.
  [[nodiscard]] std::optional<CompileOutput> lookup(const std::string& key) const;
  // Stores a successful output; false when it could not be written (the cache is best effort).
  bool store(const std::string& key, const CompileOutput& output) const;
  [[nodiscard]] std::string entry_path(const std::string& key) const;

 private:
  std::string directory_;
};

// A Compiler that answers from the cache and compiles (then stores) on a miss.
class CachingCompiler final : public Compiler {
 public:
  CachingCompiler(Compiler& inner, CompileCache cache);
  CompileOutput compile(const CompileRequest& request) override;
  [[nodiscard]] std::string identity() const override { return inner_.identity(); }
  [[nodiscard]] const CompileCache& cache() const { return cache_; }

 private:
  Compiler& inner_;
  CompileCache cache_;
  std::once_flag identity_once_;
  std::string identity_;  // inner_.identity(), computed once, at the first compile
};

}  // namespace kev::cuda
