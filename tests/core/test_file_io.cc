// tests/core/test_file_io.cc — reads refuse special files; writes are all or nothing: a unique
// temporary (a user's X.tmp survives), checked writes (a write the system refuses leaves the old
// file), a symlink's target replaced and the link kept, several files replaced together or not.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ge/core/file_io.h"
#include "ge/sdk/error.h"

namespace ge {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path p = fs::temp_directory_path() / ("ge_file_io_" + std::to_string(::getpid()));
  Dir() {
    fs::remove_all(p);
    fs::create_directories(p);
  }
  ~Dir() { fs::remove_all(p); }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

size_t entries(const fs::path& d) { return static_cast<size_t>(std::distance(fs::directory_iterator(d), {})); }

TEST(FileIo, WriteKeepsAUsersTmpFileAndFollowsASymlink) {
  Dir d;
  std::ofstream(d.p / "x.gep.tmp") << "mine";
  core::write_file_atomically((d.p / "x.gep").string(), "plan bytes");
  EXPECT_EQ(slurp(d.p / "x.gep"), "plan bytes");
  EXPECT_EQ(slurp(d.p / "x.gep.tmp"), "mine");
  EXPECT_EQ(entries(d.p), 2u);  // no temporary left

  std::ofstream(d.p / "target") << "old";
  fs::create_symlink("target", d.p / "link");
  core::write_file_atomically((d.p / "link").string(), "new");
  EXPECT_TRUE(fs::is_symlink(d.p / "link"));
  EXPECT_EQ(slurp(d.p / "target"), "new");
  fs::create_symlink("missing", d.p / "dangling");
  EXPECT_NE(error_of([&] { core::write_file_atomically((d.p / "dangling").string(), "x"); }).find("symbolic link to a missing file"),
            std::string::npos);
  fs::create_directory(d.p / "sub");
  EXPECT_NE(error_of([&] { core::write_file_atomically((d.p / "sub").string(), "x"); }).find("it is a directory"),
            std::string::npos);
}

// A write the system refuses (here the file size limit; a full disk alike) is an error and the
// old content stays.
TEST(FileIo, RefusedWriteLeavesTheOldFile) {
  Dir d;
  std::ofstream(d.p / "report.json") << "old";
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  auto handler = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string e = error_of([&] { core::write_file_atomically((d.p / "report.json").string(), std::string(4096, 'x')); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, handler);
  EXPECT_NE(e.find("cannot write file '"), std::string::npos) << e;
  EXPECT_EQ(slurp(d.p / "report.json"), "old");
  EXPECT_EQ(entries(d.p), 1u);
}

TEST(FileIo, SeveralFilesAllOrNothing) {
  Dir d;
  std::ofstream(d.p / "output_0.pb") << "old0";
  fs::create_directory(d.p / "output_1.pb");  // cannot be replaced by a file
  const std::string e = error_of([&] {
    core::write_files_atomically({{(d.p / "output_0.pb").string(), "new0"}, {(d.p / "output_1.pb").string(), "new1"}});
  });
  EXPECT_NE(e.find("output_1.pb': it is a directory"), std::string::npos) << e;
  EXPECT_EQ(slurp(d.p / "output_0.pb"), "old0");
  EXPECT_EQ(entries(d.p), 2u);
  fs::remove(d.p / "output_1.pb");
  core::write_files_atomically({{(d.p / "output_0.pb").string(), "new0"}, {(d.p / "output_1.pb").string(), "new1"}});
  EXPECT_EQ(slurp(d.p / "output_0.pb") + slurp(d.p / "output_1.pb"), "new0new1");
}

TEST(FileIo, ReadRefusesSpecialFilesAndLimits) {
  Dir d;
  ASSERT_EQ(::mkfifo((d.p / "fifo").c_str(), 0600), 0);
  EXPECT_NE(error_of([&] { core::read_regular_file((d.p / "fifo").string(), "manifest"); }).find("is not a regular file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { core::read_regular_file("/dev/zero", "manifest"); }).find("is not a regular file"), std::string::npos);
  EXPECT_NE(error_of([&] { core::read_regular_file(d.p.string(), "manifest"); }).find("is a directory"), std::string::npos);
  std::ofstream(d.p / "big") << std::string(100, 'x');
  EXPECT_NE(error_of([&] { core::read_regular_file((d.p / "big").string(), "manifest", 99); }).find("more than the limit of 99"),
            std::string::npos);
  EXPECT_EQ(core::read_regular_file((d.p / "big").string(), "manifest", 100).size(), 100u);
  fs::create_symlink("loop", d.p / "loop");
  EXPECT_NE(error_of([&] { core::read_regular_file((d.p / "loop").string(), "manifest"); }).find("cannot be opened"),
            std::string::npos);
  EXPECT_NE(error_of([&] { core::read_regular_file(std::string(5000, 'a'), "manifest"); }).find("cannot be opened"),
            std::string::npos);
}

}  // namespace
}  // namespace ge
