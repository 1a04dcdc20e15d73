// Tests for the real environment's memory, outgoing connections and directories, over the
// loopback interface and a scratch directory under /tmp, with each network backend
// (real_env_fixture.h).
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "io/real_env.h"
#include "io/real_env_fixture.h"

namespace keel::io {
namespace {

size_t OpenDescriptors() {
  size_t count = 0;
  DIR* dir = opendir("/proc/self/fd");
  while (dirent* entry = readdir(dir)) count += entry->d_name[0] != '.';
  closedir(dir);
  return count;
}

TEST_P(RealEnvTest, AConnectionToALocalListenerCompletesAsWritableAndCarriesBytes) {
  Result<ListenerId> listener = net().Listen(ListenOptions{"127.0.0.1", 0, 16});
  ASSERT_TRUE(listener.ok());
  const uint16_t port = net().ListenerPort(*listener);
  Result<ConnId> conn = net().Connect(ConnectOptions{"127.0.0.1", port});
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  ASSERT_TRUE(WaitFor(EventKind::kWritable, *conn));
  EXPECT_TRUE(net().ConnectStatus(*conn).ok()) << net().ConnectStatus(*conn).ToString();
  ASSERT_TRUE(WaitFor(EventKind::kListenerReady, *listener));
  ConnInfo info;
  Result<ConnId> accepted = net().Accept(*listener, &info);
  ASSERT_TRUE(accepted.ok());
  EXPECT_TRUE(info.peer_is_loopback);
  EXPECT_TRUE(net().ConnectStatus(*accepted).ok());  // an accepted connection: nothing to wait for

  // The outgoing side writes; the accepted side reads, then answers.
  net().SetInterest(*conn, true, false);
  IoResult wrote = WriteText(net(), *conn, "PING\r\n");
  ASSERT_EQ(wrote.code, IoCode::kOk);
  EXPECT_EQ(wrote.bytes, 6u);
  ASSERT_TRUE(WaitFor(EventKind::kReadable, *accepted));
  char buffer[64];
  IoResult read = net().Read(*accepted, buffer, sizeof(buffer));
  ASSERT_EQ(read.code, IoCode::kOk);
  EXPECT_EQ(std::string(buffer, read.bytes), "PING\r\n");
  ASSERT_EQ(WriteText(net(), *accepted, "+PONG\r\n").code, IoCode::kOk);
  ASSERT_TRUE(WaitFor(EventKind::kReadable, *conn));
  read = net().Read(*conn, buffer, sizeof(buffer));
  ASSERT_EQ(read.code, IoCode::kOk);
  EXPECT_EQ(std::string(buffer, read.bytes), "+PONG\r\n");

  // The far side closes: the outgoing side reads EOF.
  net().Close(*accepted);
  ASSERT_TRUE(WaitFor(EventKind::kReadable, *conn));
  EXPECT_EQ(net().Read(*conn, buffer, sizeof(buffer)).code, IoCode::kClosed);
  net().Close(*conn);
  net().CloseListener(*listener);
  EXPECT_EQ(net().ConnectStatus(*conn).code(), StatusCode::kNotFound);
}

TEST_P(RealEnvTest, ReallocateKeepsTheBytesOfSmallAndMappedBlocks) {
  MemoryResource& memory = env_->memory();
  // 1 KiB lives in the heap; 1 MiB is past the mmap threshold, so realloc remaps it.
  for (size_t bytes : {size_t{1024}, size_t{1} << 20}) {
    auto* block = static_cast<unsigned char*>(memory.Allocate(bytes));
    ASSERT_NE(block, nullptr);
    for (size_t i = 0; i < bytes; i++) block[i] = static_cast<unsigned char>(i * 7);
    block = static_cast<unsigned char*>(memory.Reallocate(block, bytes, bytes * 3));
    ASSERT_NE(block, nullptr);
    for (size_t i = 0; i < bytes; i++) ASSERT_EQ(block[i], static_cast<unsigned char>(i * 7));
    block[bytes * 3 - 1] = 1;  // the new tail is writable (ASan checks the bounds)
    memory.Deallocate(block, bytes * 3);
  }
}

TEST_P(RealEnvTest, AConnectionToAPortWithNoListenerIsRefused) {
  const uint16_t port = UnusedPort();
  Result<ConnId> conn = net().Connect(ConnectOptions{"127.0.0.1", port});
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  std::vector<Event> seen;
  ASSERT_TRUE(WaitFor(EventKind::kWritable, *conn, &seen));  // a failure is reported as writable
  const Status status = net().ConnectStatus(*conn);
  EXPECT_EQ(status.code(), StatusCode::kReset);
  EXPECT_NE(status.message().find("Connection refused"), std::string::npos) << status.ToString();
  EXPECT_NE(status.message().find(std::to_string(port)), std::string::npos);
  char buffer[8];
  EXPECT_EQ(net().Read(*conn, buffer, sizeof(buffer)).code, IoCode::kReset);
  EXPECT_EQ(WriteText(net(), *conn, "x").code, IoCode::kReset);
  EXPECT_EQ(net().ConnectStatus(*conn).code(), StatusCode::kReset);  // it stays failed
  net().Close(*conn);
}

TEST_P(RealEnvTest, ARefusalSeenFirstByAReadIsStillReportedByConnectStatus) {
  const uint16_t port = UnusedPort();
  Result<ConnId> conn = net().Connect(ConnectOptions{"127.0.0.1", port});
  ASSERT_TRUE(conn.ok());
  net().SetInterest(*conn, true, false);  // only readable: a failure shows as kReadable
  ASSERT_TRUE(WaitFor(EventKind::kReadable, *conn));
  char buffer[8];
  EXPECT_EQ(net().Read(*conn, buffer, sizeof(buffer)).code, IoCode::kReset);  // clears SO_ERROR
  const Status status = net().ConnectStatus(*conn);
  EXPECT_EQ(status.code(), StatusCode::kReset);
  EXPECT_NE(status.message().find("Connection refused"), std::string::npos) << status.ToString();
  net().Close(*conn);
}

TEST_P(RealEnvTest, ConnectRefusesAnAddressThatIsNotNumeric) {
  Result<ConnId> conn = net().Connect(ConnectOptions{"localhost", 6379});
  ASSERT_FALSE(conn.ok());
  EXPECT_EQ(conn.status().code(), StatusCode::kInvalidArgument);
  conn = net().Connect(ConnectOptions{"", 6379});
  EXPECT_FALSE(conn.ok());
}

TEST_P(RealEnvTest, AConnectionOverIpv6Loopback) {
  Result<ListenerId> listener = net().Listen(ListenOptions{"::1", 0, 16});
  if (!listener.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << listener.status().ToString();
  Result<ConnId> conn = net().Connect(ConnectOptions{"::1", net().ListenerPort(*listener)});
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  ASSERT_TRUE(WaitFor(EventKind::kWritable, *conn));
  EXPECT_TRUE(net().ConnectStatus(*conn).ok());
  net().Close(*conn);
  net().CloseListener(*listener);
}

class RealFilesTest : public RealEnvTest {
 protected:
  RealFilesTest() {
    char scratch[] = "/tmp/keel_io_test.XXXXXX";
    EXPECT_NE(mkdtemp(scratch), nullptr);
    dir_ = scratch;
  }
  ~RealFilesTest() override {
    const std::string command = "rm -rf '" + dir_ + "'";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }
  static bool IsDirectory(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
  }

  std::string dir_;
};

TEST_P(RealFilesTest, CreateDirectoryMakesOneAndRefusesWhatExistsOrHasNoParent) {
  const std::string made = dir_ + "/appendonlydir";
  ASSERT_TRUE(files().CreateDirectory(made).ok());
  EXPECT_TRUE(IsDirectory(made));
  EXPECT_EQ(files().CreateDirectory(made).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(files().CreateDirectory(dir_ + "/missing/child").code(), StatusCode::kNotFound);
  Result<std::vector<std::string>> listing = files().ListDirectory(dir_);
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(*listing, std::vector<std::string>{"appendonlydir"});
}

TEST_P(RealFilesTest, SyncDirectoryCompletesAsAnEventAndLeaksNoDescriptor) {
  Result<FileId> file = files().Open(dir_ + "/temp-1.rdb", OpenMode::kCreateTruncate);
  ASSERT_TRUE(file.ok());
  const std::string data = "REDIS0010";
  const ConstSlice slice{data.data(), data.size()};
  ASSERT_TRUE(files().Append(*file, &slice, 1).ok());
  ASSERT_TRUE(files().SyncAsync(*file, 1).ok());
  ASSERT_TRUE(WaitFor(EventKind::kFileSynced, 1));
  ASSERT_TRUE(files().Close(*file).ok());
  ASSERT_TRUE(files().Rename(dir_ + "/temp-1.rdb", dir_ + "/dump.rdb").ok());
  const size_t descriptors = OpenDescriptors();
  std::vector<Event> seen;
  ASSERT_TRUE(files().SyncDirectoryAsync(dir_, 2).ok());
  ASSERT_TRUE(WaitFor(EventKind::kFileSynced, 2, &seen));
  EXPECT_EQ(seen.back().status, StatusCode::kOk);
  EXPECT_EQ(OpenDescriptors(), descriptors);  // the helper closed the directory after the sync
}

TEST_P(RealFilesTest, SyncDirectoryFailsAtOnceForWhatIsNoDirectory) {
  EXPECT_EQ(files().SyncDirectoryAsync(dir_ + "/missing", 3).code(), StatusCode::kNotFound);
  Result<FileId> file = files().Open(dir_ + "/plain", OpenMode::kCreateTruncate);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(files().Close(*file).ok());
  EXPECT_EQ(files().SyncDirectoryAsync(dir_ + "/plain", 4).code(), StatusCode::kInvalidArgument);
  Event events[4];
  EXPECT_EQ(env_->Wait(20'000, events, 4), 0u);  // nothing was queued for either
}

KEEL_INSTANTIATE_FOR_BACKENDS(RealEnvTest);
KEEL_INSTANTIATE_FOR_BACKENDS(RealFilesTest);

}  // namespace
}  // namespace keel::io
