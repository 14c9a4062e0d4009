// ge/core/sha256.h — file digests for the manifest's sha256 pins (OpenSSL EVP).
#pragma once
#include <string>

namespace ge::core {
/// Lower-case hex SHA-256 of a file's bytes; throws ge::Error naming the file when unreadable.
std::string sha256_file(const std::string& path);
/// Lower-case hex SHA-256 of `bytes`.
std::string sha256_hex(const std::string& bytes);
}  // namespace ge::core
