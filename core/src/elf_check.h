// Checks that a file is a complete ELF shared object for this machine before dlopen maps it
// (core-internal). dlopen trusts the headers: a truncated library (its program headers promising
// segments past the end of the file) is mapped and faults with SIGBUS when touched.
#pragma once
#include <string>

namespace ge::core {

/// Throws ge::Error "`where`: not a loadable shared library: <reason>" unless `bytes` (the
/// whole file) is an ELF64 little-endian ET_DYN object for this machine whose program headers,
/// loadable segments and section headers all lie inside the file (System V ABI, ELF-64 Object
/// File Format 1.5, "ELF Header" and "Program Header").
void check_elf_shared_object(const std::string& bytes, const std::string& where);

}  // namespace ge::core
