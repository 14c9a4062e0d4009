// ELF shared-object checks before dlopen (elf_check.h). Field names: <elf.h>.
#include "elf_check.h"

#include <elf.h>

#include <cstring>

#include "ge/sdk/error.h"

namespace ge::core {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
#else
#error "add this machine's ELF e_machine"
#endif

/// [off, off + count * size) lies inside a file of `total` bytes, without overflow.
bool inside(uint64_t off, uint64_t count, uint64_t size, uint64_t total) {
  if (off > total) return false;
  if (size != 0 && count > (total - off) / size) return false;
  return true;
}

}  // namespace

void check_elf_shared_object(const std::string& bytes, const std::string& where) {
  auto fail = [&](const std::string& why) { throw Error(where + ": not a loadable shared library: " + why); };
  const uint64_t n = bytes.size();
  if (n < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) fail("not an ELF file");
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    fail("not a 64-bit little-endian ELF file");
  if (eh.e_type != ET_DYN) fail("ELF type " + std::to_string(eh.e_type) + " is not a shared object");
  if (eh.e_machine != kMachine) fail("built for ELF machine " + std::to_string(eh.e_machine) + ", not this one");
  if (eh.e_phnum == 0 || eh.e_phentsize != sizeof(Elf64_Phdr) || !inside(eh.e_phoff, eh.e_phnum, sizeof(Elf64_Phdr), n))
    fail("program headers lie outside the file (truncated?)");
  if (eh.e_shnum != 0 && (eh.e_shentsize != sizeof(Elf64_Shdr) || !inside(eh.e_shoff, eh.e_shnum, sizeof(Elf64_Shdr), n)))
    fail("section headers lie outside the file (truncated?)");
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes.data() + eh.e_phoff + i * sizeof(Elf64_Phdr), sizeof ph);
    if (ph.p_type == PT_LOAD || ph.p_type == PT_DYNAMIC)
      if (!inside(ph.p_offset, 1, ph.p_filesz, n))
        fail("segment " + std::to_string(i) + " (" + std::to_string(ph.p_filesz) + " bytes at " +
             std::to_string(ph.p_offset) + ") lies past the end of the file (" + std::to_string(n) + " bytes; truncated?)");
  }
}

}  // namespace ge::core
