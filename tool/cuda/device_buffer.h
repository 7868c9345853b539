#pragma once
// A device allocation with guard regions before and after the data (core/poison.h), so
// writes past either end are seen after the run.
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace kev::cuda {

class GuardedBuffer {
 public:
  GuardedBuffer() = default;
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  GuardedBuffer(GuardedBuffer&& o) noexcept { *this = std::move(o); }
  GuardedBuffer& operator=(GuardedBuffer&& o) noexcept;

  // Allocates `bytes` of data plus the guards. CUDA_SUCCESS or the allocation's error.
  CUresult allocate(std::size_t bytes);
  [[nodiscard]] CUdeviceptr data() const { return base_ + kGuard; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  // Fills the whole allocation (guards and data) with the guard pattern.
  CUresult fill_guards(CUstream stream) const;
  // Empty when both guards hold the pattern, else which side changed and where.
  [[nodiscard]] std::string check_guards() const;
  // Forgets the allocation without freeing it (the context is lost; the process exits).
  void leak() { base_ = 0; }

 private:
  static constexpr std::size_t kGuard = 4096;
  [[nodiscard]] std::size_t alloc_bytes() const;
  CUdeviceptr base_ = 0;
  std::size_t bytes_ = 0;
};

// A plain device allocation freed on destruction.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  DeviceMemory(DeviceMemory&& o) noexcept { *this = std::move(o); }
  DeviceMemory& operator=(DeviceMemory&& o) noexcept;
  CUresult allocate(std::size_t bytes);
  [[nodiscard]] CUdeviceptr get() const { return ptr_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

// Fills `bytes` at `dst` with a repeated 32-bit word (element-sized memsets where the size
// is not a multiple of 4, so the pattern stays aligned to elements).
CUresult fill_word(CUdeviceptr dst, std::size_t bytes, std::uint32_t word, std::size_t element_size,
                   CUstream stream);

}  // namespace kev::cuda
