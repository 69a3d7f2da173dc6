// A minimal ELF64 reader for cubins (cuobjdump is not installed): the header's
// e_machine and the names of the symbols in .symtab.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace qd::cuda_test {

inline constexpr uint16_t k_em_cuda = 190;  // EM_CUDA

struct ElfInfo {
  bool ok = false;
  std::string error;
  uint16_t machine = 0;
  uint32_t flags = 0;  // e_flags: the SM arch in the low bits for cubins
  std::vector<std::string> sections;
  std::vector<std::string> symbols;  // .symtab names (non-empty)
};

template <class T> T elf_read(std::string_view b, uint64_t at) {
  T v{};
  if (at + sizeof(T) <= b.size()) {
    std::memcpy(&v, b.data() + at, sizeof(T));
  }
  return v;
}

inline ElfInfo parse_elf(std::string_view b) {
  ElfInfo info;
  if (b.size() < 64 ||
      b.substr(0, 4) != "\x7f"
                        "ELF" ||
      b[4] != 2 || b[5] != 1) {
    info.error = "not a little-endian ELF64 file";
    return info;
  }
  info.machine = elf_read<uint16_t>(b, 18);
  info.flags = elf_read<uint32_t>(b, 48);
  uint64_t shoff = elf_read<uint64_t>(b, 40);
  uint16_t shentsize = elf_read<uint16_t>(b, 58);
  uint16_t shnum = elf_read<uint16_t>(b, 60);
  uint16_t shstrndx = elf_read<uint16_t>(b, 62);
  if (shentsize != 64 || shoff + uint64_t(shnum) * 64 > b.size() || shstrndx >= shnum) {
    info.error = "bad section header table";
    return info;
  }
  auto sh = [&](uint16_t i, uint64_t field) { return shoff + uint64_t(i) * 64 + field; };
  auto cstr = [&](uint64_t at) {
    std::string s;
    while (at < b.size() && b[at] != 0) {
      s += b[at++];
    }
    return s;
  };
  uint64_t shstr = elf_read<uint64_t>(b, sh(shstrndx, 24));
  for (uint16_t i = 0; i < shnum; ++i) {
    info.sections.push_back(cstr(shstr + elf_read<uint32_t>(b, sh(i, 0))));
    if (elf_read<uint32_t>(b, sh(i, 4)) != 2) {  // SHT_SYMTAB
      continue;
    }
    uint64_t off = elf_read<uint64_t>(b, sh(i, 24));
    uint64_t size = elf_read<uint64_t>(b, sh(i, 32));
    uint32_t link = elf_read<uint32_t>(b, sh(i, 40));
    uint64_t strtab = elf_read<uint64_t>(b, sh(static_cast<uint16_t>(link), 24));
    for (uint64_t s = off; s + 24 <= off + size && s + 24 <= b.size(); s += 24) {
      std::string name = cstr(strtab + elf_read<uint32_t>(b, s));
      if (!name.empty()) {
        info.symbols.push_back(name);
      }
    }
  }
  info.ok = true;
  return info;
}

}  // namespace qd::cuda_test
