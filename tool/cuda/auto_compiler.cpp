#include "cuda/auto_compiler.h"

#include "cuda/files.h"
#include "cuda/source_kind.h"

namespace kev::cuda {

AutoCompiler::AutoCompiler(Compiler& device_only, Compiler& with_host_code)
    : device_only_(device_only), with_host_code_(with_host_code) {}

Compiler& AutoCompiler::route(const CompileRequest& request) const {
  if (request.host_code) return with_host_code_;
  const std::string text = request.source_text.empty()
                               ? read_whole_file(request.source_path).value_or("")
                               : request.source_text;
  return holds_host_code(text) ? with_host_code_ : device_only_;
}

CompileOutput AutoCompiler::compile(const CompileRequest& request) {
  return route(request).compile(request);
}

std::string AutoCompiler::identity() const {
  return device_only_.identity() + " + " + with_host_code_.identity();
}

}  // namespace kev::cuda
