// Byte-stream tests of the network backends (epoll and io_uring, real_env_fixture.h): what an
// accepted connection reads and writes when the peer is a plain socket that reads slowly, stops
// reading, resets, or closes its side. The peer is driven from the test between Waits, so the
// environment's loop (which io_uring needs to submit its sends) keeps turning.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "io/real_env_fixture.h"

namespace keel::io {
namespace {

// The byte at `offset` of a long test stream: varies with both the position and the 64 KiB
// block, so that a repeated, lost or reordered block shows.
char PatternByte(size_t offset) { return static_cast<char>((offset * 7 + offset / 65536) % 251); }

class NetworkStreamTest : public RealEnvTest {
 protected:
  void SetUp() override {
    RealEnvTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    Result<ListenerId> listener = net().Listen(ListenOptions{"127.0.0.1", 0, 16});
    ASSERT_TRUE(listener.ok()) << listener.status().ToString();
    listener_ = *listener;
  }
  void TearDown() override {
    if (peer_ >= 0) ::close(peer_);
  }

  // Connects a plain non-blocking socket (the peer) and accepts it; `receive_buffer_bytes` > 0
  // shrinks the peer's receive buffer, so that the server's sends fill it quickly.
  ConnId ConnectPeer(int receive_buffer_bytes = 0) {
    peer_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT_GE(peer_, 0);
    if (receive_buffer_bytes > 0) {
      setsockopt(peer_, SOL_SOCKET, SO_RCVBUF, &receive_buffer_bytes, sizeof(receive_buffer_bytes));
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(net().ListenerPort(listener_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(peer_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    fcntl(peer_, F_SETFL, fcntl(peer_, F_GETFL) | O_NONBLOCK);
    EXPECT_TRUE(WaitFor(EventKind::kListenerReady, listener_));
    ConnInfo info;
    Result<ConnId> conn = net().Accept(listener_, &info);
    EXPECT_TRUE(conn.ok());
    return conn.ok() ? *conn : 0;
  }

  // One turn of the loop: waits up to `timeout_us` and returns the events.
  std::vector<Event> Turn(int64_t timeout_us = 1'000) {
    Event events[64];
    const size_t count = env_->Wait(timeout_us, events, 64);
    return std::vector<Event>(events, events + count);
  }

  // What the peer can read now without blocking (appended to `*into`); false at EOF or error.
  bool PeerRead(std::string* into, size_t max_bytes = 1 << 20) {
    char buffer[65536];
    while (max_bytes > 0) {
      const ssize_t n = recv(peer_, buffer, std::min(sizeof(buffer), max_bytes), 0);
      if (n > 0) {
        into->append(buffer, static_cast<size_t>(n));
        max_bytes -= static_cast<size_t>(n);
        continue;
      }
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
    return true;
  }

  ListenerId listener_ = 0;
  int peer_ = -1;
};

TEST_P(NetworkStreamTest, BytesWrittenJustBeforeCloseStillArriveThenEof) {
  const ConnId conn = ConnectPeer();
  ASSERT_EQ(WriteText(net(), conn, "-ERR max number of clients reached\r\n").code, IoCode::kOk);
  net().Close(conn);  // at once, as a refused client is closed
  std::string received;
  bool open = true;
  for (int round = 0; round < 2000 && open; round++) {
    Turn();
    open = PeerRead(&received);
  }
  EXPECT_FALSE(open) << "the peer never saw EOF";
  EXPECT_EQ(received, "-ERR max number of clients reached\r\n");
}

TEST_P(NetworkStreamTest, ALargeReplyGoesOutInManyPartialWritesWithEveryByteInOrder) {
  const ConnId conn = ConnectPeer(16 * 1024);
  constexpr size_t kTotalBytes = 24u << 20;
  std::string chunk(256 * 1024, '\0');
  size_t written = 0;
  size_t short_writes = 0;
  std::string received;
  received.reserve(kTotalBytes);
  for (int round = 0; round < 200'000 && received.size() < kTotalBytes; round++) {
    // Write while the connection takes bytes; a short write turns writability on, as the
    // engine does, and the next write waits for kWritable.
    bool wrote_all = true;
    while (written < kTotalBytes && wrote_all) {
      const size_t size = std::min(chunk.size(), kTotalBytes - written);
      for (size_t i = 0; i < size; i++) chunk[i] = PatternByte(written + i);
      const ConstSlice slice{chunk.data(), size};
      const IoResult result = net().Write(conn, &slice, 1);
      ASSERT_NE(result.code, IoCode::kReset);
      const size_t took = result.code == IoCode::kOk ? result.bytes : 0;
      written += took;
      wrote_all = took == size;
    }
    if (!wrote_all) {
      short_writes++;
      net().SetInterest(conn, true, true);
    }
    for (const Event& event : Turn()) {
      if (event.kind == EventKind::kWritable) net().SetInterest(conn, true, false);
    }
    // The peer reads a little each turn: the server's socket stays full most of the time.
    ASSERT_TRUE(PeerRead(&received, 48 * 1024));
  }
  ASSERT_EQ(received.size(), kTotalBytes);
  EXPECT_GT(short_writes, 3u);  // the writes really were cut short, many times
  for (size_t i = 0; i < kTotalBytes; i++) {
    if (received[i] != PatternByte(i)) {
      ADD_FAILURE() << "byte " << i << " differs";
      break;
    }
  }
  net().Close(conn);
}

TEST_P(NetworkStreamTest, APeerThatResetsMidSendIsReportedAsAReset) {
  const ConnId conn = ConnectPeer(16 * 1024);
  std::string chunk(1 << 20, 'x');
  // Fill everything the connection takes (the kernel's buffers, and io_uring's send buffer).
  for (int round = 0; round < 200; round++) {
    const ConstSlice slice{chunk.data(), chunk.size()};
    const IoResult result = net().Write(conn, &slice, 1);
    ASSERT_NE(result.code, IoCode::kReset);
    Turn();
    if (result.code == IoCode::kWouldBlock || result.bytes < chunk.size()) break;
  }
  // The peer reads a little, then resets (SO_LINGER 0 makes close send RST).
  std::string received;
  ASSERT_TRUE(PeerRead(&received, 4096));
  const linger abort{1, 0};
  setsockopt(peer_, SOL_SOCKET, SO_LINGER, &abort, sizeof(abort));
  ::close(peer_);
  peer_ = -1;
  net().SetInterest(conn, true, true);
  bool reset = false;
  for (int round = 0; round < 5000 && !reset; round++) {
    for (const Event& event : Turn()) {
      if (event.handle != conn) continue;
      if (event.kind == EventKind::kWritable) {
        const ConstSlice slice{chunk.data(), chunk.size()};
        const IoResult result = net().Write(conn, &slice, 1);
        reset = result.code == IoCode::kReset;
      } else if (event.kind == EventKind::kReadable) {
        char buffer[4096];
        const IoResult result = net().Read(conn, buffer, sizeof(buffer));
        ASSERT_NE(result.code, IoCode::kOk);  // the peer sent nothing
        reset = result.code == IoCode::kReset;
      }
    }
  }
  EXPECT_TRUE(reset) << "the reset was never reported";
  net().Close(conn);
  Turn();
}

TEST_P(NetworkStreamTest, ManyReceivedBytesAreReadInOrderThenEof) {
  const ConnId conn = ConnectPeer();
  // More than one receive holds (io_uring cancels a receive past 64 KiB and starts another once
  // the bytes are read), sent in one go, then EOF.
  constexpr size_t kTotalBytes = 3u << 20;
  std::string sent(kTotalBytes, '\0');
  for (size_t i = 0; i < kTotalBytes; i++) sent[i] = PatternByte(i);
  size_t sent_bytes = 0;
  std::string got;
  bool eof = false;
  for (int round = 0; round < 100'000 && !eof; round++) {
    if (sent_bytes < kTotalBytes) {
      const ssize_t n = send(peer_, sent.data() + sent_bytes, kTotalBytes - sent_bytes, 0);
      if (n > 0) sent_bytes += static_cast<size_t>(n);
      if (sent_bytes == kTotalBytes) shutdown(peer_, SHUT_WR);
    }
    for (const Event& event : Turn()) {
      if (event.kind != EventKind::kReadable || event.handle != conn) continue;
      char buffer[10000];  // not a multiple of any buffer size: reads end mid-buffer
      const IoResult result = net().Read(conn, buffer, sizeof(buffer));
      if (result.code == IoCode::kOk) got.append(buffer, result.bytes);
      ASSERT_NE(result.code, IoCode::kReset);
      eof = result.code == IoCode::kClosed;
    }
  }
  EXPECT_TRUE(eof);
  EXPECT_EQ(got.size(), kTotalBytes);
  EXPECT_TRUE(got == sent) << "the bytes differ";
  net().Close(conn);
}

TEST_P(NetworkStreamTest, AConnectionWhoseReadingIsOffReportsNothingUntilTurnedBackOn) {
  const ConnId conn = ConnectPeer();
  net().SetInterest(conn, false, false);  // the engine pushes back on a client that does not read
  std::string sent(16u << 20, '\0');
  for (size_t i = 0; i < sent.size(); i++) sent[i] = PatternByte(i);
  size_t sent_bytes = 0;
  for (int round = 0; round < 200; round++) {
    const ssize_t n = send(peer_, sent.data() + sent_bytes, sent.size() - sent_bytes, 0);
    if (n > 0) sent_bytes += static_cast<size_t>(n);
    for (const Event& event : Turn()) {
      EXPECT_NE(event.handle, conn) << "reported while its interest is off";
    }
  }
  // The peer could not send it all: the server held back, within its bounds.
  EXPECT_LT(sent_bytes, sent.size());
  net().SetInterest(conn, true, false);
  std::string got;
  for (int round = 0; round < 100'000 && got.size() < sent.size(); round++) {
    if (sent_bytes < sent.size()) {
      const ssize_t n = send(peer_, sent.data() + sent_bytes, sent.size() - sent_bytes, 0);
      if (n > 0) sent_bytes += static_cast<size_t>(n);
    }
    for (const Event& event : Turn()) {
      if (event.kind != EventKind::kReadable || event.handle != conn) continue;
      char buffer[65536];
      const IoResult result = net().Read(conn, buffer, sizeof(buffer));
      ASSERT_NE(result.code, IoCode::kReset);
      if (result.code == IoCode::kOk) got.append(buffer, result.bytes);
    }
  }
  EXPECT_TRUE(got == sent) << got.size() << " bytes read of " << sent.size();
  net().Close(conn);
}

TEST_P(NetworkStreamTest, ClientsWhoseReadingIsOffDoNotStarveTheOthers) {
  // 100 connections with reading off, each sent 64 KiB: together more than io_uring's shared
  // receive buffers (4 MiB) hold. Then one connection that reads must still get its bytes.
  std::vector<int> peers;
  std::vector<ConnId> paused;
  const std::string block(64 * 1024, 'p');
  for (int i = 0; i < 100; i++) {
    paused.push_back(ConnectPeer());
    net().SetInterest(paused.back(), false, false);
    ASSERT_EQ(send(peer_, block.data(), block.size(), 0), static_cast<ssize_t>(block.size()));
    peers.push_back(peer_);
    peer_ = -1;
  }
  for (int round = 0; round < 50; round++) Turn();
  const ConnId active = ConnectPeer();
  ASSERT_EQ(send(peer_, "PING\r\n", 6, 0), 6);
  std::string got;
  for (int round = 0; round < 2000 && got.size() < 6; round++) {
    for (const Event& event : Turn()) {
      ASSERT_TRUE(event.handle == active || event.handle == listener_);
      if (event.kind != EventKind::kReadable) continue;
      char buffer[64];
      const IoResult result = net().Read(active, buffer, sizeof(buffer));
      if (result.code == IoCode::kOk) got.append(buffer, result.bytes);
    }
  }
  EXPECT_EQ(got, "PING\r\n");
  // The paused ones still have every byte once reading is back on.
  for (size_t i = 0; i < paused.size(); i += 33) {
    net().SetInterest(paused[i], true, false);
    std::string held;
    for (int round = 0; round < 2000 && held.size() < block.size(); round++) {
      for (const Event& event : Turn()) {
        if (event.kind != EventKind::kReadable || event.handle != paused[i]) continue;
        char buffer[65536];
        const IoResult result = net().Read(paused[i], buffer, sizeof(buffer));
        if (result.code == IoCode::kOk) held.append(buffer, result.bytes);
      }
    }
    EXPECT_EQ(held, block) << "connection " << i;
  }
  for (const ConnId conn : paused) net().Close(conn);
  for (const int peer : peers) ::close(peer);
}

KEEL_INSTANTIATE_FOR_BACKENDS(NetworkStreamTest);

}  // namespace
}  // namespace keel::io
