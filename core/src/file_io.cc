// Regular-file reads (ge/core/file_io.h). The file is opened O_NONBLOCK so that opening a FIFO
// returns at once, and checked with fstat on the opened descriptor (no race with a rename).
#include "ge/core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ge/sdk/error.h"

namespace ge::core {
namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

uint64_t open_checked(Fd& f, const std::string& path, const std::string& what, uint64_t max_bytes) {
  f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (f.fd < 0) throw Error(what + " '" + path + "' cannot be opened: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw Error(what + " '" + path + "' cannot be read: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error(what + " '" + path + "' is a directory, not a file");
  if (!S_ISREG(st.st_mode)) throw Error(what + " '" + path + "' is not a regular file (a FIFO, device or socket)");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes)
    throw Error(what + " '" + path + "' has " + std::to_string(size) + " bytes, more than the limit of " +
                std::to_string(max_bytes));
  return size;
}

}  // namespace

uint64_t require_regular_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
  Fd f;
  return open_checked(f, path, what, max_bytes);
}

std::string read_regular_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
  Fd f;
  const uint64_t size = open_checked(f, path, what, max_bytes);
  std::string bytes(size, '\0');
  uint64_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(f.fd, bytes.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(what + " '" + path + "' cannot be read: " + std::strerror(errno));
    if (n == 0) break;  // shrank while reading
    done += static_cast<uint64_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace ge::core

namespace ge::core {
namespace {

namespace fs = std::filesystem;

/// The file a write to `path` replaces: `path` itself, or a symlink's final target.
std::string write_target(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return path;
    throw Error("cannot write " + what + " '" + path + "': " + std::strerror(errno));
  }
  std::string target = path;
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    target = fs::canonical(path, ec).string();
    if (ec) {
      if (ec == std::errc::no_such_file_or_directory)
        throw Error("cannot write " + what + " '" + path + "': it is a symbolic link to a missing file");
      throw Error("cannot write " + what + " '" + path + "': " + ec.message());
    }
    if (::stat(target.c_str(), &st) != 0) throw Error("cannot write " + what + " '" + path + "': " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw Error("cannot write " + what + " '" + path + "': it is a directory");
  if (!S_ISREG(st.st_mode)) throw Error("cannot write " + what + " '" + path + "': it is not a regular file");
  return target;
}

/// Writes a uniquely named temporary beside `target`; returns its path.
std::string write_temporary(const std::string& target, const std::string& bytes, const std::string& what,
                            const std::string& shown) {
  const fs::path t(target);
  std::string templ = (t.parent_path() / ("." + t.filename().string() + ".XXXXXX")).string();
  if (t.parent_path().empty()) templ = "." + t.filename().string() + ".XXXXXX";
  const int fd = ::mkostemp(templ.data(), O_CLOEXEC);
  if (fd < 0) throw Error("cannot write " + what + " '" + shown + "': " + std::strerror(errno));
  auto fail = [&](const char* step) {
    const int e = errno;
    ::close(fd);
    ::unlink(templ.c_str());
    throw Error("cannot write " + what + " '" + shown + "': " + step + ": " + std::strerror(e));
  };
  // mkostemp makes 0600; the target keeps its mode, a new file gets 0666 minus the umask.
  struct stat st {};
  mode_t mode;
  if (::stat(target.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  if (::fchmod(fd, mode) != 0) fail("chmod");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write");
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) fail("fsync");
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(templ.c_str());
    throw Error("cannot write " + what + " '" + shown + "': close: " + std::strerror(e));
  }
  return templ;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what) {
  write_files_atomically({{path, bytes}}, what);
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files, const std::string& what) {
  std::vector<std::string> targets, temps;
  for (const auto& f : files) targets.push_back(write_target(f.first, what));
  for (size_t i = 0; i < targets.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (targets[i] == targets[j]) throw Error("cannot write " + what + " '" + files[i].first + "' twice");
  try {
    for (size_t i = 0; i < files.size(); ++i) temps.push_back(write_temporary(targets[i], files[i].second, what, files[i].first));
  } catch (...) {
    for (const std::string& t : temps) ::unlink(t.c_str());
    throw;
  }
  for (size_t i = 0; i < files.size(); ++i)
    if (::rename(temps[i].c_str(), targets[i].c_str()) != 0) {
      const int e = errno;
      for (size_t k = i; k < temps.size(); ++k) ::unlink(temps[k].c_str());
      throw Error("cannot write " + what + " '" + files[i].first + "': rename: " + std::strerror(e) +
                  (i ? " (" + std::to_string(i) + " of " + std::to_string(files.size()) + " files were written)" : ""));
    }
}

}  // namespace ge::core
