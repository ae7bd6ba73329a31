// Bind sources that an untrusted party could redirect: real directories and real planted
// symlinks, checked by the resolver and by a real sandbox run (sandbox_runner) that must refuse
// to start rather than bind the host's /.

#include "sandbox/bind_source.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/sandbox/sandbox_test_util.h"

namespace mcpgate::sandbox {
namespace {

namespace fs = std::filesystem;
using namespace tests;

constexpr uid_t kOther = 65534;  // nobody: the sandbox user when the gateway runs as root

class BindSource : public testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to make files owned by another user";
    std::string tmpl = "/tmp/mcpgate-bindsrc-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    top_ = tmpl;
    ASSERT_EQ(::chmod(top_.c_str(), 0755), 0);
  }
  void TearDown() override {
    if (!top_.empty()) fs::remove_all(top_);
  }
  std::string mkdir(const std::string& rel, mode_t mode, uid_t owner = 0) {
    const std::string path = top_ + "/" + rel;
    EXPECT_EQ(::mkdir(path.c_str(), mode), 0) << path;
    EXPECT_EQ(::chmod(path.c_str(), mode), 0);
    EXPECT_EQ(::chown(path.c_str(), owner, owner), 0);
    return path;
  }
  std::string symlink(const std::string& target, const std::string& rel, uid_t owner = 0) {
    const std::string path = top_ + "/" + rel;
    EXPECT_EQ(::symlink(target.c_str(), path.c_str()), 0) << path;
    EXPECT_EQ(::lchown(path.c_str(), owner, owner), 0);
    return path;
  }
  // A real sandbox run binding `src`: what a gateway's spawn does.
  Result sandboxWithBind(const std::string& src) {
    return run({kRunner, "sandbox", "run", "--bind", std::string(kProbeDir) + ":/opt/probe",
                "--bind", src + ":/data", "--", kProbe, "read:/data/etc/passwd"});
  }
  std::string top_;
};

TEST_F(BindSource, AnOrdinarySourceResolvesToItself) {
  const std::string dir = mkdir("data", 0755);
  auto r = resolveBindSource(dir);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->path, dir);
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(r->ino, st.st_ino);
}

TEST_F(BindSource, TheOperatorsOwnSymlinksAndTheSystemsAreFollowed) {
  const std::string real = mkdir("real", 0755);
  const std::string link = symlink("real", "link");
  auto r = resolveBindSource(link);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->path, real);
  // usrmerge: /lib is a root-owned symlink into /usr.
  if (fs::is_symlink("/lib")) {
    auto lib = resolveBindSource("/lib/x86_64-linux-gnu");
    if (fs::exists("/usr/lib/x86_64-linux-gnu")) {
      ASSERT_TRUE(lib) << lib.error().message;
      EXPECT_EQ(lib->path, "/usr/lib/x86_64-linux-gnu");
    }
  }
}

TEST_F(BindSource, ASymlinkPlantedInAWorldWritableDirectoryIsRefused) {
  mkdir("shared", 0777);
  const std::string planted = symlink("/", "shared/data", kOther);
  auto r = resolveBindSource(planted);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("writable by others"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(top_ + "/shared"), std::string::npos) << r.error().message;
  // The real sandbox refuses to start instead of giving the server the host's /.
  const Result run = sandboxWithBind(planted);
  EXPECT_NE(run.code, 0);
  EXPECT_NE(run.err.find("writable by others"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find("read:/data/etc/passwd: ok"), std::string::npos) << run.out;
}

TEST_F(BindSource, ASymlinkPlantedByTheSandboxUserInItsWritableBindIsRefused) {
  // A cache directory chowned to nobody so that a sandbox may write it (as the docs say), with a
  // symlink the sandboxed server planted in it, which a second server's bind goes through.
  mkdir("cache", 0755, kOther);
  const std::string planted = symlink("/proc", "cache/sub", kOther);
  auto r = resolveBindSource(planted);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("owned by uid 65534"), std::string::npos) << r.error().message;
  const Result run = sandboxWithBind(planted);
  EXPECT_NE(run.code, 0);
  EXPECT_NE(run.err.find("owned by uid 65534"), std::string::npos) << run.err;
  // The cache itself may still be bound: only what lies under it could be swapped.
  EXPECT_TRUE(resolveBindSource(top_ + "/cache"));
}

TEST_F(BindSource, AnEntryOthersOwnInTheStickyTmpIsRefused) {
  // /tmp is sticky: others cannot replace our entries there, but the owner of one can.
  std::string tmpl = "/tmp/mcpgate-bindsrc-other-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  ASSERT_EQ(::chown(tmpl.c_str(), kOther, kOther), 0);
  auto r = resolveBindSource(tmpl);
  fs::remove_all(tmpl);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("shared directory /tmp"), std::string::npos)
      << r.error().message;
  EXPECT_TRUE(resolveBindSource(top_));  // ours, in the same /tmp
}

TEST_F(BindSource, ASourceSwappedForASymlinkAfterTheCheckIsRefusedAtOpen) {
  const std::string dir = mkdir("data", 0755);
  auto r = resolveBindSource(dir);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(::rename(dir.c_str(), (top_ + "/moved").c_str()), 0);
  symlink("/", "data");
  auto fd = openResolvedSource(dir, *r);
  ASSERT_FALSE(fd);
  EXPECT_NE(fd.error().message.find("replaced by a symlink"), std::string::npos)
      << fd.error().message;
  // And a different real directory at the same path is caught by its inode.
  ASSERT_EQ(::unlink(dir.c_str()), 0);
  mkdir("data", 0755);
  fd = openResolvedSource(dir, *r);
  ASSERT_FALSE(fd);
  EXPECT_NE(fd.error().message.find("replaced"), std::string::npos) << fd.error().message;
}

}  // namespace
}  // namespace mcpgate::sandbox
