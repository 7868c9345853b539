#pragma once
// Reads what kernelevo needs from a CUBIN (an ELF file): its kernel entry points and the
// sizes of its sections. No toolkit tool (cuobjdump) is needed.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kev::cuda {

struct CubinInfo {
  std::vector<std::string> kernels;                    // entry symbols (mangled), in file order
  std::map<std::string, std::uint64_t> section_sizes;  // ".nv.shared.k" -> bytes...
};

// nullopt when `image` is not a well-formed 64-bit little-endian ELF file.
[[nodiscard]] std::optional<CubinInfo> read_cubin(const std::string& image);

// Demangles an Itanium C++ symbol ("_Z1tILi128EEvPf" -> "void t<128>(float*)"); returns
// the input unchanged when it is not mangled (extern "C" names).
[[nodiscard]] std::string demangle(const std::string& symbol);

// Finds the symbol of `kernel` among `symbols`: an exact match (extern "C"), else a
// template instance whose demangled name equals `kernel` ("softmax<256>", spaces and
// integer suffixes ignored), else the only instance of the same template.
// nullopt when none or several match.
[[nodiscard]] std::optional<std::string> find_kernel_symbol(
    const std::string& kernel, const std::vector<std::string>& symbols);

}  // namespace kev::cuda
