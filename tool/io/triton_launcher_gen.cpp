#include "io/triton_launcher_gen.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "core/arg_layout.h"

namespace kev {

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// `text` with whole identifiers replaced (numbers copied whole, so "2u" stays).
std::string substitute(const std::string& text, const std::map<std::string, std::string>& names,
                       std::set<std::string>& unknown) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
      std::size_t j = i;
      while (j < text.size() && ident_char(text[j])) ++j;
      out.append(text, i, j - i);
      i = j;
    } else if (ident_char(text[i])) {
      std::size_t j = i;
      while (j < text.size() && ident_char(text[j])) ++j;
      const std::string word = text.substr(i, j - i);
      if (auto it = names.find(word); it != names.end()) {
        out += it->second;
      } else {
        unknown.insert(word);
        out += word;
      }
      i = j;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

std::string c_scalar(ScalarType t) {
  switch (t) {
    case ScalarType::f16:
    case ScalarType::bf16:
    case ScalarType::fp8_e4m3:
      return "";  // no host type: pointers only, as void
    case ScalarType::f32:
      return "float";
    case ScalarType::f64:
      return "double";
    case ScalarType::i8:
      return "int8_t";
    case ScalarType::i16:
      return "int16_t";
    case ScalarType::i32:
      return "int32_t";
    case ScalarType::i64:
      return "int64_t";
    case ScalarType::u8:
      return "uint8_t";
    case ScalarType::u16:
      return "uint16_t";
    case ScalarType::u32:
      return "uint32_t";
    case ScalarType::u64:
      return "uint64_t";
  }
  return "";
}

std::string c_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (std::isprint(static_cast<unsigned char>(c)) != 0) out.push_back(c);
  }
  return out + "\"";
}

std::string params_text(const TritonBuiltImage& img) {
  std::string s;
  for (const auto& [k, v] : img.params) s += (s.empty() ? "" : " ") + k + "=" + v.to_string();
  return s;
}

std::string config_text(const TritonBuiltImage& img) {
  return params_text(img) + " (" + img.arch + ")";
}

// What K_config gives for `img`'s architecture: its configuration, or with buckets every
// bucket's ("cols [0, 4096): BLOCK=1024 ...; cols [4096, inf): BLOCK=4096 ... (sm_90)").
std::string arch_config_text(const std::vector<TritonBuiltImage>& images, const std::string& arch,
                             const std::string& by) {
  std::string s;
  for (const auto& im : images) {
    if (im.arch != arch) continue;
    if (!im.range) return config_text(im);
    s += (s.empty() ? "" : "; ") + bucket_label(by, *im.range) + ": " + params_text(im);
  }
  return s + " (" + arch + ")";
}

int arch_number(const std::string& arch) {
  int n = 0;
  for (std::size_t i = 3; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])); ++i)
    n = n * 10 + (arch[i] - '0');
  return n;
}

}  // namespace

Result<TritonLauncher> generate_triton_launcher(const KernelSpec& spec,
                                                const std::vector<TritonBuiltImage>& images) {
  if (images.empty()) return make_error("no image to embed for kernel " + spec.id, spec.where);
  // The C declarations of the arguments, and the names the grid may use.
  std::vector<std::string> decls;
  std::map<std::string, std::string> dims;  // problem dimension -> the argument carrying it
  for (const ArgSpec& a : spec.args) {
    if (a.pointer) {
      const std::string t = c_scalar(a.type);
      decls.push_back(std::string(a.is_const ? "const " : "") + (t.empty() ? "void" : t) + "* " +
                      a.name);
    } else {
      const std::string t = c_scalar(a.type);
      if (t.empty())
        return make_error("argument '" + a.name + "' of kernel " + spec.id +
                              ": a half, bfloat16 or fp8 scalar has no C type in the launcher",
                          a.where);
      decls.push_back(t + " " + a.name);
      if (a.value_expr && a.value_expr->names().size() == 1 &&
          a.value_expr->text() == a.value_expr->names().front())
        dims[a.value_expr->names().front()] = "static_cast<long long>(" + a.name + ")";
    }
  }
  const bool ranged = std::any_of(images.begin(), images.end(),
                                  [](const TritonBuiltImage& im) { return im.range.has_value(); });
  const std::string by = spec.dispatch ? spec.dispatch->by : std::string();
  std::string by_value = "0";  // the launch's size argument: 0 when no image has a bucket
  if (ranged) {
    const auto it = dims.find(by);
    if (by.empty() || it == dims.end())
      return make_error(
          "kernel " + spec.id + " has a winner per bucket of '" + by +
              "', which no scalar argument carries (an argument such as {name: " + by +
              ", type: int, value: " + by + "} lets the launcher pick the bucket's image)",
          spec.where);
    by_value = it->second;
  }
  const std::string id = spec.id;
  std::string cid;
  for (const char c : id) cid.push_back(ident_char(c) ? c : '_');

  std::ostringstream h;
  h << "// Launches Triton kernel " << id << "'s locked configuration on `stream` (grid:";
  for (const auto& g : spec.launch.grid) h << " " << g.text() << ";";
  h << " 32 * num_warps threads).\n// Pointers must be 16-byte aligned (the image was compiled "
       "so), "
       "else CUDA_ERROR_INVALID_VALUE;\n// a device with no matching image gives "
       "CUDA_ERROR_NO_BINARY_FOR_GPU.\nCUresult "
    << cid << "_launch(CUstream stream";
  for (const auto& d : decls) h << ", " << d;
  h << ");\n\n// The configuration built for each architecture, e.g. \""
    << arch_config_text(images, images[0].arch, by) << "\".\nconst char* " << cid
    << "_config(void);\n\n";

  std::ostringstream s;
  s << "namespace {\nnamespace kev_" << cid << " {\n\n";
  // Each distinct CUBIN once (buckets with the same winner share it).
  std::vector<std::size_t> data_of(images.size());
  std::vector<std::size_t> distinct;
  for (std::size_t i = 0; i < images.size(); ++i) {
    const auto same = std::find_if(distinct.begin(), distinct.end(), [&](std::size_t j) {
      return images[j].image == images[i].image;
    });
    if (same != distinct.end()) {
      data_of[i] = static_cast<std::size_t>(same - distinct.begin());
      continue;
    }
    data_of[i] = distinct.size();
    distinct.push_back(i);
    s << "// " << config_text(images[i]) << "\nalignas(16) const unsigned char kImage" << data_of[i]
      << "[" << images[i].image.size() << "] = {";
    for (std::size_t b = 0; b < images[i].image.size(); ++b) {
      if (b % 20 == 0) s << "\n   ";
      s << " " << static_cast<unsigned>(static_cast<unsigned char>(images[i].image[b])) << ",";
    }
    s << "\n};\n";
  }
  s << "\nstruct Image {\n  int arch;\n  const unsigned char* data;\n  const char* function;\n"
       "  unsigned block;\n  unsigned shared;\n  unsigned cluster;  // CTAs per program "
       "(num_ctas)\n"
       "  const char* config;\n"
       "  bool ranged;  // serves the bucket [lo, hi) of the dispatch dimension only\n"
       "  long long lo;\n  long long hi;  // exclusive, when bounded\n  bool bounded;\n};\n"
       "const Image kImages[] = {\n";
  for (std::size_t i = 0; i < images.size(); ++i) {
    const auto& r = images[i].range;
    s << "    {" << arch_number(images[i].arch) << ", kImage" << data_of[i] << ", "
      << c_string(images[i].function) << ", " << images[i].block_threads << "u, "
      << images[i].shared_bytes << "u, " << images[i].cluster_ctas << "u, "
      << c_string(arch_config_text(images, images[i].arch, by)) << ", " << (r ? "true" : "false")
      << ", " << (r ? r->lo : 0) << "LL, " << (r && r->hi ? *r->hi : 0) << "LL, "
      << (r && r->hi ? "true" : "false") << "},\n";
  }
  s << "};\nconstexpr int kCount = " << images.size()
    << ";\n\n"
       "[[maybe_unused]] long long kev_ceil_div(long long a, long long b) { return (a + b - 1) / "
       "b; }\n"
       "[[maybe_unused]] long long kev_min(long long a, long long b) { return a < b ? a : b; }\n"
       "[[maybe_unused]] long long kev_max(long long a, long long b) { return a > b ? a : b; }\n\n"
       "std::mutex g_mutex;\nCUcontext g_context = nullptr;\nint g_arch = 0;\n"
       "CUfunction g_functions[kCount] = {};\n\n"
       "// How far v is from an image's bucket as a ratio (0 inside, and for an image serving\n"
       "// every size; lo / v below it, v / (hi - 1) above it, sizes below 1 taken as 1), as\n"
       "// kernelevo picks a bucket's winner.\n"
       "double size_of(long long x) { return x < 1 ? 1.0 : static_cast<double>(x); }\n"
       "double distance(const Image& im, long long v) {\n"
       "  if (!im.ranged) return 0;\n"
       "  if (v < im.lo) return size_of(im.lo) / size_of(v);\n"
       "  if (im.bounded && v >= im.hi) return size_of(v) / size_of(im.hi - 1);\n"
       "  return 0;\n}\n\n"
       "// The images of the current context's device's architecture, else of the highest of\n"
       "// the same major version below it, loaded once per context; then the one serving v: the\n"
       "// bucket holding it, else the nearest (the lower on a tie).\n"
       "CUresult load(long long v, CUfunction* fn, const Image** image) {\n"
       "  std::lock_guard<std::mutex> lock(g_mutex);\n"
       "  CUcontext ctx = nullptr;\n"
       "  CUresult r = cuCtxGetCurrent(&ctx);\n"
       "  if (r != CUDA_SUCCESS) return r;\n"
       "  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;\n"
       "  if (ctx != g_context || g_arch == 0) {\n"
       "    g_arch = 0;\n"
       "    CUdevice dev;\n"
       "    if ((r = cuCtxGetDevice(&dev)) != CUDA_SUCCESS) return r;\n"
       "    int major = 0, minor = 0;\n"
       "    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);\n"
       "    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);\n"
       "    const int have = major * 10 + minor;\n"
       "    int arch = 0;\n"
       "    for (const Image& im : kImages)\n"
       "      if (im.arch / 10 == major && im.arch <= have && im.arch > arch) arch = im.arch;\n"
       "    if (arch == 0) return CUDA_ERROR_NO_BINARY_FOR_GPU;\n"
       "    for (int i = 0; i < kCount; ++i) {\n"
       "      if (kImages[i].arch != arch) continue;\n"
       "      CUmodule module = nullptr;\n"
       "      if ((r = cuModuleLoadData(&module, kImages[i].data)) != CUDA_SUCCESS) return r;\n"
       "      CUfunction f = nullptr;\n"
       "      if ((r = cuModuleGetFunction(&f, module, kImages[i].function)) != CUDA_SUCCESS) "
       "return r;\n"
       "      if (kImages[i].shared > 48u * 1024u) {\n"
       "        r = cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,\n"
       "                               static_cast<int>(kImages[i].shared));\n"
       "        if (r != CUDA_SUCCESS) return r;\n"
       "      }\n"
       "      g_functions[i] = f;\n"
       "    }\n"
       "    g_context = ctx;\n    g_arch = arch;\n"
       "  }\n"
       "  int best = -1;\n  double best_distance = 0;\n"
       "  for (int i = 0; i < kCount; ++i) {\n"
       "    if (kImages[i].arch != g_arch) continue;\n"
       "    const double d = distance(kImages[i], v);\n"
       "    if (best < 0 || d < best_distance) {\n      best_distance = d;\n      best = i;\n    "
       "}\n"
       "  }\n"
       "  *fn = g_functions[best];\n  *image = &kImages[best];\n  return CUDA_SUCCESS;\n}\n\n"
       "}  // namespace kev_"
    << cid
    << "\n}  // namespace\n\n"
       "extern \"C\" const char* "
    << cid << "_config(void) {\n  using namespace kev_" << cid
    << ";\n  CUfunction f = nullptr;\n  const Image* image = nullptr;\n"
       "  return load(0, &f, &image) == CUDA_SUCCESS ? image->config : kImages[0].config;\n}\n\n"
       "extern \"C\" CUresult "
    << cid << "_launch(CUstream stream";
  for (const auto& d : decls) s << ", " << d;
  s << ") {\n  using namespace kev_" << cid << ";\n";
  // The grid, from the arguments and the configuration's values.
  std::map<std::string, std::string> names = dims;
  names["ceil_div"] = "kev_ceil_div";
  names["min"] = "kev_min";
  names["max"] = "kev_max";
  // The grid may use parameters; they must agree across the built architectures, or the
  // launcher picks them with the image.
  std::vector<std::string> grid(3, "1");
  std::set<std::string> params_in_grid;
  for (std::size_t d = 0; d < spec.launch.grid.size() && d < 3; ++d) {
    std::set<std::string> unknown;
    std::map<std::string, std::string> with_params = names;
    for (const auto& p : spec.params) with_params[p.name] = "P_" + p.name;
    grid[d] = substitute(spec.launch.grid[d].text(), with_params, unknown);
    if (unknown.count(std::string(kSmCountName)))
      return make_error("the launch grid of kernel " + spec.id +
                            " uses sm_count (the device's multiprocessor count), which Triton "
                            "kernels' launchers do not evaluate yet",
                        spec.launch.grid[d].origin());
    for (const auto& u : unknown)
      return make_error("the launch grid of kernel " + spec.id + " uses '" + u +
                            "', which no scalar argument carries (an argument such as {name: " + u +
                            ", type: int, value: " + u + "} makes the launcher compute it)",
                        spec.where);
    for (const auto& p : spec.params)
      if (spec.launch.grid[d].mentions(p.name)) params_in_grid.insert(p.name);
  }
  s << "  CUfunction f = nullptr;\n  const Image* image = nullptr;\n"
       "  CUresult r = load("
    << by_value << ", &f, &image);\n  if (r != CUDA_SUCCESS) return r;\n";
  for (const auto& p : params_in_grid) {
    s << "  long long P_" << p << " = 0;\n";
    for (std::size_t i = 0; i < images.size(); ++i) {
      const auto it = images[i].params.find(p);
      s << "  if (image == &kImages[" << i << "]) P_" << p << " = "
        << (it != images[i].params.end() ? it->second.to_string() : "0") << ";\n";
    }
  }
  for (const ArgSpec& a : spec.args)
    if (a.pointer)
      s << "  if (reinterpret_cast<uintptr_t>(" << a.name
        << ") % 16 != 0) return CUDA_ERROR_INVALID_VALUE;\n";
  s << "  const long long gx = " << grid[0] << ", gy = " << grid[1] << ", gz = " << grid[2]
    << ";\n  if (gx <= 0 || gy <= 0 || gz <= 0) return CUDA_SUCCESS;  // nothing to do\n";
  std::size_t trailing = images[0].trailing_null_pointers;
  for (const auto& im : images)
    trailing = std::max<std::size_t>(trailing, im.trailing_null_pointers);
  for (const ArgSpec& a : spec.args)
    if (a.pointer)
      s << "  CUdeviceptr p_" << a.name << " = reinterpret_cast<CUdeviceptr>(" << a.name << ");\n";
  s << "  CUdeviceptr scratch = 0;\n  void* params[] = {";
  for (const ArgSpec& a : spec.args) s << (a.pointer ? "&p_" + a.name : "&" + a.name) << ", ";
  for (std::size_t i = 0; i < trailing; ++i) s << "&scratch, ";
  s << "nullptr};\n"
       "  // The driver's grid limits, checked before the casts below could wrap a size.\n"
       "  if (gx > 0x7fffffffLL / image->cluster || gy > 65535 || gz > 65535)\n"
       "    return CUDA_ERROR_INVALID_VALUE;\n"
       "  if (image->cluster > 1) {\n"
       "    // num_ctas: a program is a cluster of image->cluster CTAs along x.\n"
       "    CUlaunchAttribute attrs[2] = {};\n"
       "    attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;\n"
       "    attrs[0].value.clusterDim.x = image->cluster;\n"
       "    attrs[0].value.clusterDim.y = 1;\n"
       "    attrs[0].value.clusterDim.z = 1;\n"
       "    attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;\n"
       "    attrs[1].value.clusterSchedulingPolicyPreference = "
       "CU_CLUSTER_SCHEDULING_POLICY_SPREAD;\n"
       "    CUlaunchConfig config = {};\n"
       "    config.gridDimX = static_cast<unsigned>(gx) * image->cluster;\n"
       "    config.gridDimY = static_cast<unsigned>(gy);\n"
       "    config.gridDimZ = static_cast<unsigned>(gz);\n"
       "    config.blockDimX = image->block;\n"
       "    config.blockDimY = 1;\n"
       "    config.blockDimZ = 1;\n"
       "    config.sharedMemBytes = image->shared;\n"
       "    config.hStream = stream;\n"
       "    config.attrs = attrs;\n"
       "    config.numAttrs = 2;\n"
       "    return cuLaunchKernelEx(&config, f, params, nullptr);\n"
       "  }\n"
       "  return cuLaunchKernel(f, static_cast<unsigned>(gx), static_cast<unsigned>(gy),\n"
       "                        static_cast<unsigned>(gz), image->block, 1, 1, image->shared, "
       "stream,\n"
       "                        params, nullptr);\n}\n";
  return TritonLauncher{h.str(), s.str()};
}

std::string triton_launcher_header(const std::string& source_name,
                                   const std::vector<TritonLauncher>& kernels) {
  std::string out = "// Generated by kernelevo (kernelevo_optimize) from " + source_name +
                    ": do not edit.\n// The locked configurations of its Triton kernels, compiled "
                    "ahead of time and launched\n// through the CUDA driver API in the current "
                    "context: no Python at run time.\n#pragma once\n#include <cuda.h>\n"
                    "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (const auto& k : kernels) out += k.header;
  return out + "#ifdef __cplusplus\n}\n#endif\n";
}

std::string triton_launcher_source(const std::string& source_name, const std::string& header_name,
                                   const std::vector<TritonLauncher>& kernels) {
  std::string out = "// Generated by kernelevo (kernelevo_optimize) from " + source_name +
                    ": do not edit.\n#include \"" + header_name + "\"\n\n#include <mutex>\n\n";
  for (const auto& k : kernels) out += k.source + "\n";
  return out;
}

}  // namespace kev
