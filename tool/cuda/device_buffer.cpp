#include "cuda/device_buffer.h"

#include <bit>
#include <vector>

#include "core/poison.h"

namespace kev::cuda {

static_assert(kGuardBytes == 4096);

GuardedBuffer::~GuardedBuffer() {
  if (base_) cuMemFree(base_);
}

GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& o) noexcept {
  if (this != &o) {
    if (base_) cuMemFree(base_);
    base_ = std::exchange(o.base_, 0);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

std::size_t GuardedBuffer::alloc_bytes() const {
  const std::size_t data = (bytes_ + 255) / 256 * 256;
  return kGuard + data + kGuard;
}

CUresult GuardedBuffer::allocate(std::size_t bytes) {
  if (base_) cuMemFree(base_);
  base_ = 0;
  bytes_ = bytes;
  return cuMemAlloc(&base_, alloc_bytes());
}

CUresult GuardedBuffer::fill_guards(CUstream stream) const {
  return cuMemsetD32Async(base_, kGuardWord, alloc_bytes() / 4, stream);
}

std::string GuardedBuffer::check_guards() const {
  // Before: [0, kGuard). After: from the end of the data to the end of the allocation, with
  // the pattern's phase counted from the allocation's start.
  std::vector<unsigned char> before(kGuard);
  if (cuMemcpyDtoH(before.data(), base_, kGuard) != CUDA_SUCCESS) return "guard read failed";
  if (auto at = first_change(before.data(), before.size(), kGuardWord))
    return "write before the start of the buffer (" + std::to_string(kGuard - *at) +
           " bytes before)";
  const std::size_t after_start = kGuard + bytes_;
  const std::size_t aligned = after_start / 4 * 4;
  std::vector<unsigned char> after(alloc_bytes() - aligned);
  if (cuMemcpyDtoH(after.data(), base_ + aligned, after.size()) != CUDA_SUCCESS)
    return "guard read failed";
  const std::size_t skip = after_start - aligned;
  const std::uint32_t phased = std::rotr(kGuardWord, static_cast<int>(8 * skip));
  if (auto at = first_change(after.data() + skip, after.size() - skip, phased))
    return "write past the end of the buffer (" + std::to_string(*at) + " bytes after)";
  return {};
}

DeviceMemory::~DeviceMemory() {
  if (ptr_) cuMemFree(ptr_);
}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& o) noexcept {
  if (this != &o) {
    if (ptr_) cuMemFree(ptr_);
    ptr_ = std::exchange(o.ptr_, 0);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

CUresult DeviceMemory::allocate(std::size_t bytes) {
  if (ptr_) cuMemFree(ptr_);
  ptr_ = 0;
  bytes_ = bytes;
  return cuMemAlloc(&ptr_, bytes == 0 ? 1 : bytes);
}

CUresult fill_word(CUdeviceptr dst, std::size_t bytes, std::uint32_t word, std::size_t element_size,
                   CUstream stream) {
  if (bytes == 0) return CUDA_SUCCESS;
  if (bytes % 4 == 0 && element_size != 1 && element_size != 2)
    return cuMemsetD32Async(dst, word, bytes / 4, stream);
  if (bytes % 2 == 0 && element_size == 2)
    return cuMemsetD16Async(dst, static_cast<unsigned short>(word & 0xFFFFu), bytes / 2, stream);
  if (bytes % 4 == 0 && element_size == 2) return cuMemsetD32Async(dst, word, bytes / 4, stream);
  return cuMemsetD8Async(dst, static_cast<unsigned char>(word & 0xFFu), bytes, stream);
}

}  // namespace kev::cuda
