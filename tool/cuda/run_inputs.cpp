#include <algorithm>
#include <cstdio>
#include <thread>

#include "core/poison.h"
#include "core/run_seeds.h"
#include "cuda/driver.h"
#include "cuda/shape_run.h"
#include "cuda/tensor_map.h"

namespace kev::cuda {
namespace {

// A grid of thread-block clusters of l.cluster_x CTAs along x, spread over the GPCs, as
// Triton's own launcher makes it for num_ctas > 1.
CUresult launch_clusters(CUfunction fn, const ResolvedLaunch& l, CUstream stream, void** params) {
  CUlaunchAttribute attrs[2] = {};
  attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attrs[0].value.clusterDim.x = l.cluster_x;
  attrs[0].value.clusterDim.y = 1;
  attrs[0].value.clusterDim.z = 1;
  attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
  attrs[1].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
  CUlaunchConfig config = {};
  config.gridDimX = l.grid[0];
  config.gridDimY = l.grid[1];
  config.gridDimZ = l.grid[2];
  config.blockDimX = l.block[0];
  config.blockDimY = l.block[1];
  config.blockDimZ = l.block[2];
  config.sharedMemBytes = l.shared_bytes;
  config.hStream = stream;
  config.attrs = attrs;
  config.numAttrs = 2;
  return cuLaunchKernelEx(&config, fn, params, nullptr);
}

}  // namespace

Failure ShapeRun::after_launch(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return {};
  const bool lost = is_context_fatal(r);
  context_lost = context_lost || lost;
  return fail(lost ? Disposition::crashed : Disposition::launch_failed,
              std::string(what) + ": " + driver_error(r), lost);
}

Failure ShapeRun::wait(const char* what) {
  for (;;) {
    const CUresult q = cuStreamQuery(r_.stream_);
    if (q == CUDA_SUCCESS) return {};
    if (q != CUDA_ERROR_NOT_READY) return after_launch(q, what);
    if (Clock::now() > deadline_) {
      context_lost = true;  // the kernel is still running: only a new process gets the GPU back
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", req_.timing.timeout_seconds);
      return fail(Disposition::timeout,
                  std::string(what) + ": still running after " + limit +
                      " s (one evaluation's limit: --timeout of tune, check and compare)",
                  true);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

Failure ShapeRun::run_reference() {
  if (Failure f = launch(reference_, data_->reference_layout)) {
    f.detail = "reference kernel: " + f.detail;
    f.disposition = f.context_lost ? Disposition::crashed : Disposition::invalid;
    return f;
  }
  return wait("reference kernel");
}

Failure ShapeRun::launch(CUfunction fn, const ResolvedProblem& layout,
                         const std::vector<CUdeviceptr>* pointers) {
  const auto& spec = req_.spec;
  const auto& l = layout.launch;
  std::vector<void*> params(spec.args.size() + l.trailing_null_pointers);
  pointer_values_.assign(spec.args.size(), 0);
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    if (spec.args[i].pointer) {
      pointer_values_[i] = pointers != nullptr ? (*pointers)[i] : work_[i].data();
      params[i] = &pointer_values_[i];
    } else if (!spec.args[i].tensor_map) {
      params[i] = const_cast<unsigned char*>(layout.args[i].scalar.data());
    }
  }
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    if (!layout.args[i].tensor_map) continue;
    auto map = tensor_map(layout, i, pointer_values_[layout.args[i].tensor_map->of]);
    if (!map) return fail(Disposition::invalid, map.error().to_string());
    params[i] = *map;
  }
  // Triton's scratch pointers: null, its compile needed no scratch memory.
  static CUdeviceptr null_pointer = 0;
  for (std::size_t i = spec.args.size(); i < params.size(); ++i) params[i] = &null_pointer;
  if (l.shared_bytes > 48 * 1024) {
    CUresult r = cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    static_cast<int>(l.shared_bytes));
    if (r != CUDA_SUCCESS) return after_launch(r, "shared memory request refused");
  }
  if (l.cluster_x > 1)
    return after_launch(launch_clusters(fn, l, r_.stream_, params.data()), "launch");
  const CUresult r = cuLaunchKernel(fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                                    l.block[2], l.shared_bytes, r_.stream_, params.data(), nullptr);
  return after_launch(r, "launch");
}

Result<CUtensorMap*> ShapeRun::tensor_map(const ResolvedProblem& layout, std::size_t arg,
                                          CUdeviceptr address) {
  for (auto& m : maps_)
    if (m.layout == &layout && m.arg == arg && m.address == address) return &m.map;
  auto map = encode_tensor_map(*layout.args[arg].tensor_map, address, req_.spec.args[arg].name);
  if (!map) return map.error();
  maps_.push_back({&layout, arg, address, *map});
  return &maps_.back().map;
}

Failure ShapeRun::encode_maps(const std::vector<std::vector<CUdeviceptr>>& pointer_sets) {
  for (const auto& pointers : pointer_sets)
    for (std::size_t i = 0; i < layout_.args.size(); ++i) {
      if (!layout_.args[i].tensor_map) continue;
      auto map = tensor_map(layout_, i, pointers[layout_.args[i].tensor_map->of]);
      if (!map) return fail(Disposition::invalid, map.error().to_string());
    }
  return {};
}

Failure ShapeRun::setup() {
  auto layout = resolve_problem(req_.spec, req_.params, problem_, r_.info_.sms);
  if (!layout) return fail(Disposition::invalid, layout.error().to_string());
  layout_ = std::move(layout).value();
  apply_image_launch(req_.candidate.launch, layout_.launch);
  const std::string key = problem_.to_string();
  auto [it, fresh] = r_.shapes_.try_emplace(key);
  data_ = &it->second;
  if (fresh) {
    auto ref_layout = resolve_problem(req_.spec, req_.reference_params, problem_, r_.info_.sms);
    if (!ref_layout)
      return fail(Disposition::invalid, "reference: " + ref_layout.error().to_string());
    data_->reference_layout = std::move(ref_layout).value();
    apply_image_launch(req_.reference.launch, data_->reference_layout.launch);
  }
  for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
    if (!req_.spec.args[i].pointer) continue;
    if (layout_.args[i].bytes != data_->reference_layout.args[i].bytes)
      return fail(Disposition::invalid, "argument '" + req_.spec.args[i].name +
                                            "' has a different size for this configuration than "
                                            "for the reference");
  }
  work_.resize(req_.spec.args.size());
  for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
    if (!req_.spec.args[i].pointer) continue;
    if (CUresult e = work_[i].allocate(layout_.args[i].bytes); e != CUDA_SUCCESS)
      return fail(Disposition::invalid, "cannot allocate '" + req_.spec.args[i].name + "' (" +
                                            std::to_string(layout_.args[i].bytes) +
                                            " bytes): " + driver_error(e));
  }
  return {};
}

Failure ShapeRun::ensure_round(std::size_t round) {
  auto& rounds = data_->rounds;
  while (rounds.size() <= round) {
    const std::size_t index = rounds.size();
    DriverRunner::RoundData rd;
    rd.inputs.resize(req_.spec.args.size());
    rd.expected.resize(req_.spec.args.size());
    const auto& ref = data_->reference_layout;
    for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
      const ArgSpec& a = req_.spec.args[i];
      if (!has_input(role_of(a))) continue;
      const auto n = static_cast<std::uint64_t>(ref.args[i].count);
      if (CUresult e = rd.inputs[i].allocate(ref.args[i].bytes); e != CUDA_SUCCESS)
        return fail(Disposition::invalid, "cannot allocate inputs: " + driver_error(e));
      CUdeviceptr dst = rd.inputs[i].get();
      int type = static_cast<int>(a.type);
      int kind = static_cast<int>(a.init);
      double low = a.init_low;
      double value = a.init_value;
      std::uint64_t seed = input_seed(req_.timing.seed, shape_index_, index, i);
      void* params[] = {&dst, const_cast<std::uint64_t*>(&n), &type, &kind, &low, &value, &seed};
      const unsigned blocks =
          static_cast<unsigned>(std::clamp<std::uint64_t>((n + 255) / 256, 1, 4096));
      if (CUresult e = cuLaunchKernel(r_.helpers_->fill, blocks, 1, 1, 256, 1, 1, 0, r_.stream_,
                                      params, nullptr);
          e != CUDA_SUCCESS)
        return after_launch(e, "input generation");
    }
    rounds.push_back(std::move(rd));
    // The reference runs on the candidate's buffers (same sizes), before the candidate.
    // A round is kept only once its expected outputs are complete.
    auto expected_outputs = [&]() -> Failure {
      if (Failure f = prepare(index, Fill::poison)) return f;
      if (Failure f = run_reference()) return f;
      for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
        if (!is_compared(role_of(req_.spec.args[i]))) continue;
        auto& e = rounds.back().expected[i];
        if (CUresult c = e.allocate(ref.args[i].bytes); c != CUDA_SUCCESS)
          return fail(Disposition::invalid,
                      "cannot allocate reference outputs: " + driver_error(c));
        if (CUresult c = cuMemcpyDtoDAsync(e.get(), work_[i].data(), ref.args[i].bytes, r_.stream_);
            c != CUDA_SUCCESS)
          return after_launch(c, "copy of reference outputs");
      }
      if (Failure f = wait("reference outputs")) return f;
      return check_reference_coverage(rounds.back(), index);
    };
    if (Failure f = expected_outputs()) {
      rounds.pop_back();
      return f;
    }
  }
  if (data_->decoys.empty()) {
    data_->decoys.resize(req_.spec.args.size());
    for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
      const ArgSpec& a = req_.spec.args[i];
      if (role_of(a) != Role::output) continue;
      const auto n = static_cast<std::uint64_t>(layout_.args[i].count);
      if (CUresult e = data_->decoys[i].allocate(layout_.args[i].bytes); e != CUDA_SUCCESS)
        return fail(Disposition::invalid, "cannot allocate decoys: " + driver_error(e));
      CUdeviceptr dst = data_->decoys[i].get();
      int type = static_cast<int>(a.type);
      int kind = kFillDecoy;
      double zero = 0.0;
      std::uint64_t seed = decoy_seed(req_.timing.seed, shape_index_, i);
      void* params[] = {&dst, const_cast<std::uint64_t*>(&n), &type, &kind, &zero, &zero, &seed};
      const unsigned blocks =
          static_cast<unsigned>(std::clamp<std::uint64_t>((n + 255) / 256, 1, 4096));
      if (CUresult e = cuLaunchKernel(r_.helpers_->fill, blocks, 1, 1, 256, 1, 1, 0, r_.stream_,
                                      params, nullptr);
          e != CUDA_SUCCESS)
        return after_launch(e, "decoy generation");
    }
  }
  return {};
}

Failure ShapeRun::prepare(std::size_t round, Fill fill) {
  const auto& rd = data_->rounds[round];
  for (std::size_t i = 0; i < req_.spec.args.size(); ++i) {
    const ArgSpec& a = req_.spec.args[i];
    const Role role = role_of(a);
    if (role == Role::scalar) continue;
    CUresult e = work_[i].fill_guards(r_.stream_);
    const std::size_t bytes = work_[i].bytes();
    if (e == CUDA_SUCCESS && has_input(role))
      e = cuMemcpyDtoDAsync(work_[i].data(), rd.inputs[i].get(), bytes, r_.stream_);
    if (e == CUDA_SUCCESS && role == Role::output) {
      if (fill == Fill::decoy && !data_->decoys.empty() && data_->decoys[i].get())
        e = cuMemcpyDtoDAsync(work_[i].data(), data_->decoys[i].get(), bytes, r_.stream_);
      else if (fill == Fill::complement)
        e = fill_word(work_[i].data(), bytes, ~poison_word(a.type), size_of(a.type), r_.stream_);
      else
        e = fill_word(work_[i].data(), bytes, poison_word(a.type), size_of(a.type), r_.stream_);
    }
    if (e == CUDA_SUCCESS && role == Role::scratch)
      e = cuMemsetD8Async(work_[i].data(), 0, bytes, r_.stream_);
    if (e != CUDA_SUCCESS) return after_launch(e, "preparing arguments");
  }
  return {};
}

}  // namespace kev::cuda
