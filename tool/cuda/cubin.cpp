#include "cuda/cubin.h"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace kev::cuda {
namespace {

constexpr std::uint32_t kSymtab = 2;
constexpr unsigned kFunc = 2;
constexpr unsigned kGlobal = 1;
constexpr unsigned kCudaEntry = 0x10;  // st_other flag of kernel entry points

template <class T>
std::optional<T> load(const std::string& image, std::uint64_t offset) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

std::optional<std::string> c_string(const std::string& image, std::uint64_t offset) {
  if (offset >= image.size()) return std::nullopt;
  const auto end = image.find('\0', offset);
  if (end == std::string::npos) return std::nullopt;
  return image.substr(offset, end - offset);
}

struct Section {
  std::uint32_t name = 0;
  std::uint32_t type = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;
  std::uint64_t entsize = 0;
};

std::optional<Section> section_at(const std::string& image, std::uint64_t header) {
  auto name = load<std::uint32_t>(image, header);
  auto type = load<std::uint32_t>(image, header + 4);
  auto offset = load<std::uint64_t>(image, header + 24);
  auto size = load<std::uint64_t>(image, header + 32);
  auto link = load<std::uint32_t>(image, header + 40);
  auto entsize = load<std::uint64_t>(image, header + 56);
  if (!name || !type || !offset || !size || !link || !entsize) return std::nullopt;
  return Section{*name, *type, *offset, *size, *link, *entsize};
}

std::string normalize(const std::string& name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == ' ') continue;
    // Drop integer literal suffixes the demangler prints: 256u, 8l, 3ul.
    if ((c == 'u' || c == 'l' || c == 'U' || c == 'L') && !out.empty() &&
        std::isdigit(static_cast<unsigned char>(out.back())) != 0) {
      std::size_t j = out.size();
      while (j > 0 && std::isdigit(static_cast<unsigned char>(out[j - 1])) != 0) --j;
      if (j == 0 ||
          (std::isalnum(static_cast<unsigned char>(out[j - 1])) == 0 && out[j - 1] != '_')) {
        continue;
      }
    }
    out.push_back(c);
  }
  return out;
}

// "void ns::softmax<256>(float const*, ...)" -> "ns::softmax<256>"
std::string strip_signature(const std::string& demangled) {
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < demangled.size(); ++i) {
    const char c = demangled[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (depth == 0 && c == ' ') start = i + 1;  // the return type ends here
    if (depth == 0 && c == '(') return demangled.substr(start, i - start);
  }
  return demangled.substr(start);
}

std::string template_base(const std::string& name) { return name.substr(0, name.find('<')); }

}  // namespace

std::optional<CubinInfo> read_cubin(const std::string& image) {
  if (image.size() < 64 ||
      image.compare(0, 4,
                    "\x7f"
                    "ELF") != 0 ||
      image[4] != 2 || image[5] != 1) {
    return std::nullopt;
  }
  const auto shoff = load<std::uint64_t>(image, 0x28);
  const auto shentsize = load<std::uint16_t>(image, 0x3A);
  const auto shnum = load<std::uint16_t>(image, 0x3C);
  const auto shstrndx = load<std::uint16_t>(image, 0x3E);
  if (!shoff || !shentsize || !shnum || !shstrndx || *shentsize < 64 || *shstrndx >= *shnum) {
    return std::nullopt;
  }
  std::vector<Section> sections;
  for (std::uint16_t i = 0; i < *shnum; ++i) {
    auto s = section_at(image, *shoff + std::uint64_t{i} * *shentsize);
    if (!s) return std::nullopt;
    sections.push_back(*s);
  }
  CubinInfo info;
  const Section& names = sections[*shstrndx];
  for (const auto& s : sections) {
    auto name = c_string(image, names.offset + s.name);
    if (!name) return std::nullopt;
    if (!name->empty()) info.section_sizes[*name] = s.size;
    if (s.type != kSymtab || s.entsize < 24 || s.link >= sections.size()) continue;
    const Section& strings = sections[s.link];
    for (std::uint64_t off = s.offset; off + 24 <= s.offset + s.size; off += s.entsize) {
      const auto st_name = load<std::uint32_t>(image, off);
      const auto st_info = load<std::uint8_t>(image, off + 4);
      const auto st_other = load<std::uint8_t>(image, off + 5);
      if (!st_name || !st_info || !st_other) return std::nullopt;
      if ((*st_info & 0xfu) != kFunc || (*st_info >> 4u) != kGlobal ||
          (*st_other & kCudaEntry) == 0) {
        continue;
      }
      auto symbol = c_string(image, strings.offset + *st_name);
      if (!symbol) return std::nullopt;
      info.kernels.push_back(*symbol);
    }
  }
  return info;
}

std::string demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !out) return symbol;
  return out.get();
}

std::optional<std::string> find_kernel_symbol(const std::string& kernel,
                                              const std::vector<std::string>& symbols) {
  for (const auto& s : symbols) {
    if (s == kernel) return s;
  }
  const std::string wanted = normalize(kernel);
  for (const auto& s : symbols) {
    if (normalize(strip_signature(demangle(s))) == wanted) return s;
  }
  // The name names a template instance through macros the caller could not expand (the
  // source's own #ifndef defaults): accept the template's only instance.
  if (kernel.find('<') == std::string::npos) return std::nullopt;
  const std::string base = template_base(wanted);
  std::optional<std::string> only;
  for (const auto& s : symbols) {
    if (template_base(normalize(strip_signature(demangle(s)))) != base) continue;
    if (only) return std::nullopt;
    only = s;
  }
  return only;
}

}  // namespace kev::cuda
