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

AutoCompiler::AutoCompiler(Compiler& nvrtc, Compiler& nvcc, Compiler* triton,
                           DeviceCodeCompiler device_code)
    : nvrtc_(nvrtc), nvcc_(nvcc), triton_(triton), device_code_(device_code) {}

Compiler& AutoCompiler::route(const CompileRequest& request) const {
  if (is_python(request)) {
    static NoTriton none;
    return triton_ != nullptr ? *triton_ : none;
  }
  if (request.host_code || device_code_ == DeviceCodeCompiler::nvcc) return nvcc_;
  const std::string text = request.source_text.empty()
                               ? read_whole_file(request.source_path).value_or("")
                               : request.source_text;
  return holds_host_code(text) ? nvcc_ : nvrtc_;
}

CompileOutput AutoCompiler::compile(const CompileRequest& request) {
  return route(request).compile(request);
}

std::string AutoCompiler::identity() const { return nvrtc_.identity() + " + " + nvcc_.identity(); }

}  // namespace kev::cuda
