#include "io/torch_package.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <system_error>

#include "core/lockfile.h"
#include "core/verify.h"
#include "io/file_read.h"
#include "io/hash.h"
#include "io/json_value.h"

namespace kev {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kGenerator = "kernelevo export --torch";

// The torch dtype a spec type is allocated as (runtime.py's DTYPES, first column).
const char* torch_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::f16:
      return "float16";
    case ScalarType::bf16:
      return "bfloat16";
    case ScalarType::f32:
      return "float32";
    case ScalarType::f64:
      return "float64";
    case ScalarType::i8:
      return "int8";
    case ScalarType::i16:
    case ScalarType::u16:
      return "int16";
    case ScalarType::i32:
    case ScalarType::u32:
      return "int32";
    case ScalarType::i64:
    case ScalarType::u64:
      return "int64";
    case ScalarType::u8:
      return "uint8";
    case ScalarType::fp8_e4m3:
      return "float8_e4m3fn";
  }
  return "float32";
}

Json optional_json(const std::optional<double>& d) { return d ? Json(*d) : Json(nullptr); }

Json exprs_json(const std::vector<Expr>& exprs) {
  Json out = Json::array();
  for (const auto& e : exprs) out.push_back(e.text());
  return out;
}

Json groups_json(const std::vector<AxisGroup>& groups) {
  Json out = Json::array();
  for (const auto& g : groups) out.push_back(Json::array({g.dim, g.factor}));
  return out;
}

std::string cubin_name(const std::string& arch, const std::string& what) {
  return "cubins/" + arch + "." + what + ".cubin";
}

Json image_json(const TorchImage& image, const std::string& path) {
  return {{"cubin", path}, {"sha256", sha256_of(image.bytes)}, {"function", image.function}};
}

Json arg_json(const ArgSpec& a, const TorchArg& t, const Tolerance& tolerance) {
  Json out = {{"name", a.name},
              {"role", to_string(t.role)},
              {"type", cuda_name(a.type)},
              {"pointer", a.pointer}};
  if (a.pointer) {
    out["const"] = a.is_const;
    out["count"] = a.count ? Json(a.count->text()) : Json(nullptr);
    out["groups"] = groups_json(t.groups);
    if (t.role == TorchArgRole::input || t.role == TorchArgRole::inout) {
      out["init"] = init_name(a.init);
      if (a.init == InitKind::constant) out["init_value"] = a.init_value;
      if (a.init == InitKind::uniform || a.init == InitKind::randint)
        out["init_range"] = {a.init_low, a.init_value};
    }
    if (t.role == TorchArgRole::output || t.role == TorchArgRole::inout) {
      const Tolerance tol = tolerance_for(a.type, tolerance);
      out["tolerance"] = {{"rtol", tol.rtol}, {"atol", tol.atol}};
    }
  } else if (t.role == TorchArgRole::dim_scalar) {
    out["dim"] = t.dim;
  } else if (t.role == TorchArgRole::keyword) {
    if (t.float_default) out["float_default"] = *t.float_default;
    if (t.int_default) out["int_default"] = *t.int_default;
  } else {
    out["value"] = a.value_expr ? Json(a.value_expr->text()) : Json(nullptr);
  }
  return out;
}

std::string number_text(double d) { return Json(d).dump(); }

// "(rows, 2*hidden)" for the docstring: identifiers and numbers only.
std::string groups_text(const std::vector<AxisGroup>& groups) {
  std::string out = "(";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto& g = groups[i];
    if (i > 0) out += ", ";
    if (g.dim.empty()) {
      out += std::to_string(g.factor);
    } else {
      out += (g.factor == 1 ? "" : std::to_string(g.factor) + "*") + g.dim;
    }
  }
  return out + ")";
}

bool is_arch_text(const std::string& arch) {
  const auto a = parse_arch(arch);
  return a && a->to_string() == arch;
}

}  // namespace

std::string torch_kernel_json(const KernelSpec& spec, const TorchSignature& signature,
                              const std::vector<TorchArch>& archs,
                              const TorchPackageOptions& options) {
  Json out;
  out["generator"] = kGenerator;
  out["format"] = 1;
  out["kernel"] = spec.id;
  out["package"] = options.package;
  out["entry"] = spec.kernel;
  out["source"] = spec.source;
  out["source_hash"] = options.source_hash;
  out["lockfile"] = options.lockfile_name;
  out["reference"] = spec.reference;
  out["problems"] = io::problems_to_json<Json>(spec.problems);
  out["validate"] = io::problems_to_json<Json>(spec.validate);
  out["defaults"] = io::params_to_json<Json>(options.defaults);
  Json args = Json::array();
  for (std::size_t i = 0; i < spec.args.size(); ++i)
    args.push_back(arg_json(spec.args[i], signature.args[i], spec.tolerance));
  out["args"] = std::move(args);
  Json dims = Json::array();
  for (const auto& d : signature.dims)
    dims.push_back({{"dim", d.dim}, {"arg", d.arg}, {"group", d.group}});
  out["dims"] = std::move(dims);
  out["launch"] = {
      {"grid", exprs_json(spec.launch.grid)},
      {"block", exprs_json(spec.launch.block)},
      {"shared_bytes",
       spec.launch.shared_bytes ? Json(spec.launch.shared_bytes->text()) : Json(nullptr)}};
  out["tolerance"] = {{"rtol", spec.tolerance.rtol}, {"atol", spec.tolerance.atol}};
  Json arch_json = Json::object();
  for (const TorchArch& a : archs) {
    Json variants = Json::array();
    for (std::size_t i = 0; i < a.variants.size(); ++i) {
      const TorchVariant& v = a.variants[i];
      Json vj = {{"params", io::params_to_json<Json>(v.params)}};
      if (v.bucket) {
        vj["bucket"] = {v.bucket->lo, v.bucket->hi ? Json(*v.bucket->hi) : Json(nullptr)};
      } else {
        vj["bucket"] = nullptr;
      }
      vj["size_define"] = v.size_define ? Json(*v.size_define) : Json(nullptr);
      vj["time_us"] = optional_json(v.time_us);
      vj["baseline_us"] = optional_json(v.baseline_us);
      vj.update(image_json(v.image, cubin_name(a.arch, std::to_string(i))));
      variants.push_back(std::move(vj));
    }
    Json ref = {{"params", io::params_to_json<Json>(options.defaults)}};
    ref.update(image_json(a.reference, cubin_name(a.arch, "reference")));
    arch_json[a.arch] = {{"choice", a.choice},
                         {"by", a.by.empty() ? Json(nullptr) : Json(a.by)},
                         {"variants", std::move(variants)},
                         {"reference", std::move(ref)}};
  }
  out["archs"] = std::move(arch_json);
  out["equivalent"] = options.equivalent_text ? Json(options.equivalent_name) : Json(nullptr);
  return out.dump(2) + "\n";
}

std::string torch_init_py(const KernelSpec& spec, const TorchSignature& signature,
                          const std::vector<TorchArch>& archs, const TorchPackageOptions& options) {
  // Only identifiers (checked by torch_signature and the caller), numbers, dtype names and
  // architectures checked by parse_arch reach this text.
  std::vector<std::string> inputs, outputs, inouts, keywords;
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    const TorchArg& t = signature.args[i];
    if (t.role == TorchArgRole::input || t.role == TorchArgRole::inout) inputs.push_back(t.name);
    if (t.role == TorchArgRole::output) outputs.push_back(t.name);
    if (t.role == TorchArgRole::inout) inouts.push_back(t.name);
    if (t.role == TorchArgRole::keyword)
      keywords.push_back(t.name + ": " +
                         (t.float_default ? "float = " + number_text(*t.float_default)
                                          : "int = " + std::to_string(*t.int_default)));
  }
  for (const auto& d : signature.dims)
    if (d.arg.empty()) keywords.push_back(d.dim + ": int");
  std::string call = spec.id + "(";
  for (std::size_t i = 0; i < inputs.size(); ++i) call += (i ? ", " : "") + inputs[i];
  if (!keywords.empty())
    call += std::string(inputs.empty() ? "" : ", ") + "*, " + [&] {
      std::string k;
      for (std::size_t i = 0; i < keywords.size(); ++i) k += (i ? ", " : "") + keywords[i];
      return k;
    }();
  call += ")";
  std::string lhs;
  for (std::size_t i = 0; i < outputs.size(); ++i) lhs += (i ? ", " : "") + outputs[i];

  std::ostringstream os;
  os << "\"\"\"" << spec.id << " as the PyTorch operator torch.ops.kernelevo." << spec.id
     << ", exported by `kernelevo export --torch`.\n\n"
     << "    " << (lhs.empty() ? "" : lhs + " = ") << call << "\n\n";
  os << "Tensors (checked at every call: dtype, contiguity, element count, one CUDA device):\n";
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    const ArgSpec& a = spec.args[i];
    const TorchArg& t = signature.args[i];
    if (!a.pointer || t.role == TorchArgRole::scratch) continue;
    os << "    " << a.name << ": torch." << torch_dtype(a.type) << ", "
       << (t.groups.empty() ? std::string("flat") : groups_text(t.groups))
       << (t.role == TorchArgRole::output  ? ", returned"
           : t.role == TorchArgRole::inout ? ", updated in place"
                                           : "")
       << "\n";
  }
  std::string from_tensors, from_keywords;
  for (const auto& d : signature.dims) {
    std::string& list = d.arg.empty() ? from_keywords : from_tensors;
    list += (list.empty() ? "" : ", ") + d.dim + (d.arg.empty() ? "" : " (" + d.arg + ")");
  }
  if (!from_tensors.empty()) os << "Problem sizes from the tensors: " << from_tensors << "\n";
  if (!from_keywords.empty()) os << "Problem sizes as keyword arguments: " << from_keywords << "\n";
  os << "Architectures:";
  for (const auto& a : archs) os << " " << a.arch;
  os << "\n\nkernel.json holds the spec and the winners; `python -m " << options.package
     << ".test` compares the operator with the spec's reference kernel";
  if (options.equivalent_text)
    os << ", `python -m " << options.package << ".bench` times it beside PyTorch";
  os << ".\n\"\"\"\n\n"
     << "from . import _runtime\n\n"
     << "_package = _runtime.load_package(__file__)\n"
     << "kernel = _package.kernel\n"
     << "op = _package.op  # None without torch\n"
     << "reference = _package.reference\n";
  static const std::set<std::string> taken = {
      "_runtime", "_package",   "kernel",       "op",          "reference", "test",
      "bench",    "_spec_expr", "_cuda_launch", "_equivalent", "_buckets"};
  if (taken.count(spec.id) == 0) os << spec.id << " = op if op is not None else _package.call\n";
  return os.str();
}

Result<std::vector<PackageFile>> torch_package_files(const KernelSpec& spec,
                                                     const TorchSignature& signature,
                                                     const std::vector<TorchArch>& archs,
                                                     const TorchPackageOptions& options) {
  if (!is_python_identifier(spec.id))
    return make_error("kernel id '" + spec.id +
                          "' is not a Python identifier, so it cannot name a PyTorch operator",
                      spec.where);
  if (!is_python_identifier(options.package))
    return make_error("package name '" + options.package + "' is not a Python identifier");
  if (signature.args.size() != spec.args.size())
    return make_error("internal: the signature does not match the spec of " + spec.id);
  if (archs.empty()) return make_error("no architecture to export for " + spec.id);
  for (const auto& a : archs) {
    if (!is_arch_text(a.arch))
      return make_error("'" + a.arch + "' is not a GPU architecture (sm_90, sm_90a...)");
    if (a.variants.empty()) return make_error("internal: no winner for " + a.arch);
  }
  std::vector<PackageFile> files;
  files.push_back({"kernel.json", torch_kernel_json(spec, signature, archs, options)});
  files.push_back({"__init__.py", torch_init_py(spec, signature, archs, options)});
  for (const auto& f : torch_package_runtime_files())
    files.push_back({std::string(f.name), std::string(f.text)});
  if (options.equivalent_text) files.push_back({"_equivalent.py", *options.equivalent_text});
  for (const auto& a : archs) {
    for (std::size_t i = 0; i < a.variants.size(); ++i)
      files.push_back({cubin_name(a.arch, std::to_string(i)), a.variants[i].image.bytes});
    files.push_back({cubin_name(a.arch, "reference"), a.reference.bytes});
  }
  return files;
}

Status write_torch_package(const std::filesystem::path& dir,
                           const std::vector<PackageFile>& files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path parent = dir.parent_path().empty() ? fs::path(".") : dir.parent_path();
  if (!fs::is_directory(parent, ec))
    return make_error("cannot write the package: " + parent.string() + " is not a directory");
  if (fs::exists(fs::symlink_status(dir, ec))) {
    const fs::path marker = dir / "kernel.json";
    bool ours = false;
    if (fs::is_directory(fs::symlink_status(dir, ec)) &&
        fs::is_regular_file(fs::symlink_status(marker, ec))) {
      auto text = read_regular_file(marker, kMaxSourceBytes);
      ours = text &&
             text->find("\"generator\": \"" + std::string(kGenerator) + "\"") != std::string::npos;
    }
    if (!ours)
      return make_error(dir.string() +
                        " exists and is not a package kernelevo exported; remove it or choose "
                        "another --out or --package");
  }
  const fs::path tmp = parent / ("." + dir.filename().string() + ".kernelevo-tmp");
  fs::remove_all(tmp, ec);
  for (const auto& f : files) {
    const fs::path p = tmp / fs::path(f.path);
    fs::create_directories(p.parent_path(), ec);
    if (ec) return make_error("cannot create " + p.parent_path().string() + ": " + ec.message());
    std::ofstream out(p, std::ios::binary);
    out.write(f.bytes.data(), static_cast<std::streamsize>(f.bytes.size()));
    out.close();
    if (!out) return make_error("cannot write " + p.string());
  }
  const fs::path old = parent / ("." + dir.filename().string() + ".kernelevo-old");
  fs::remove_all(old, ec);
  if (fs::exists(dir)) {
    fs::rename(dir, old, ec);
    if (ec) return make_error("cannot replace " + dir.string() + ": " + ec.message());
  }
  fs::rename(tmp, dir, ec);
  if (ec) return make_error("cannot write " + dir.string() + ": " + ec.message());
  fs::remove_all(old, ec);
  return ok_status();
}

}  // namespace kev
