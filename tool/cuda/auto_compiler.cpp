#include "cuda/auto_compiler.h"

#include <filesystem>

#include "cuda/files.h"
#include "cuda/source_kind.h"
#include "cuda/triton_compiler.h"

namespace kev::cuda {

namespace {

bool is_python(const CompileRequest& r) {
  return std::filesystem::path(r.source_path).extension() == ".py";
}

// What a .py source is compiled with where no Triton compiler was given.
class NoTriton final : public Compiler {
 public:
  CompileOutput compile(const CompileRequest& request) override {
    CompileOutput out;
    out.log = request.source_path + ": error: " + kTritonNotFound;
    return out;
  }
  [[nodiscard]] std::string identity() const override { return "triton (none)"; }
};

}  // namespace

AutoCompiler::AutoCompiler(Compiler& device_only, Compiler& with_host_code, Compiler* triton)
    : device_only_(device_only), with_host_code_(with_host_code), triton_(triton) {}

Compiler& AutoCompiler::route(const CompileRequest& request) const {
  if (is_python(request)) {
    static NoTriton none;
    return triton_ != nullptr ? *triton_ : none;
  }
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
