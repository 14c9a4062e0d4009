// ge/core/file_io.h — reading the files a user names (models, manifests, registry files, plans,
// tensors): regular files only, with a size limit, so a FIFO, /dev/zero or a directory is a
// clean error instead of a hang, an unbounded read or an empty document.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ge::core {

/// Largest file read whole (models with their weights inline stay below protobuf's 2 GiB).
inline constexpr uint64_t kMaxReadBytes = uint64_t{4} << 30;

/// Throws ge::Error naming `what` and `path` unless `path` is (after symlinks) a regular file of
/// at most `max_bytes`; returns its size. Errors of the path itself (missing, symlink loop, name
/// too long, permission) are reported with the system's reason.
uint64_t require_regular_file(const std::string& path, const std::string& what, uint64_t max_bytes = kMaxReadBytes);

/// The whole content of a regular file (require_regular_file's checks, then a checked read).
std::string read_regular_file(const std::string& path, const std::string& what, uint64_t max_bytes = kMaxReadBytes);

}  // namespace ge::core

namespace ge::core {

/// Writes `bytes` to `path` all or nothing: a uniquely named temporary beside the target
/// (never a user's `path.tmp`), checked writes, fsync and close, then rename over the target.
/// A symbolic link is followed (its target is replaced, not the link); a target that exists
/// and is not a regular file (a directory, a FIFO), or a dangling link, is refused. Throws
/// ge::Error naming `what` and the path; on failure the target is unchanged and no temporary
/// is left.
void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what = "file");

/// Several files (path, bytes) all or nothing: every target is checked and every temporary
/// written before the first rename, so a failure leaves every target as it was.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files,
                            const std::string& what = "file");

}  // namespace ge::core
