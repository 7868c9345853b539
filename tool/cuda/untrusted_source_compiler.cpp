#include "cuda/untrusted_source_compiler.h"

#include <chrono>

namespace kev::cuda {

UntrustedSourceCompiler::UntrustedSourceCompiler(const NvccCompiler& lister, Compiler& inner,
                                                 const IncludePolicy& policy)
    : lister_(lister), inner_(inner), policy_(policy) {}

CompileOutput UntrustedSourceCompiler::compile(const CompileRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  const std::string shown = request.source_path.empty() ? "kernel.cu" : request.source_path;
  CompileOutput refused;
  const auto finish = [&](std::string log) {
    refused.log = shown + ": error: refused before compiling: " + std::move(log);
    refused.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return refused;
  };
  const auto reads = lister_.list_dependencies(request);
  if (!reads)
    return finish(
        "the preprocessor failed on this source (its messages are not shown, since a failed "
        "include may echo what it read); check the #include and other preprocessor lines");
  for (const auto& file : *reads)
    if (const auto why = policy_.check_file(file); !why.empty())
      return finish("it makes the compiler read " + file + ": " + why);
  return inner_.compile(request);
}

}  // namespace kev::cuda
