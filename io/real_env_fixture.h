// The fixture of the io/ tests: a real environment with one network backend (a test parameter),
// so that every network test runs against epoll and io_uring alike. io_uring cases skip, saying
// why, where the kernel refuses it (old kernels, seccomp, kernel.io_uring_disabled).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/real_env.h"

namespace keel::io {

class RealEnvTest : public ::testing::TestWithParam<IoBackend> {
 protected:
  void SetUp() override {
    RealEnvOptions options;
    options.handle_signals = false;
    options.io_backend = GetParam();
    Result<std::unique_ptr<Env>> env = NewRealEnv(options);
    if (!env.ok() && GetParam() == IoBackend::kIoUring) {
      GTEST_SKIP() << "io_uring is not available here: " << env.status().ToString();
    }
    ASSERT_TRUE(env.ok()) << env.status().ToString();
    env_ = std::move(*env);
  }

  Network& net() { return env_->network(); }
  FileSystem& files() { return env_->files(); }

  // Waits (up to about five seconds) until an event of `kind` for `handle` arrives; returns every
  // event seen meanwhile through `seen`.
  bool WaitFor(EventKind kind, uint64_t handle, std::vector<Event>* seen = nullptr) {
    for (int round = 0; round < 500; round++) {
      Event events[16];
      const size_t count = env_->Wait(10'000, events, 16);
      for (size_t i = 0; i < count; i++) {
        if (seen != nullptr) seen->push_back(events[i]);
        if (events[i].kind == kind && events[i].handle == handle) return true;
      }
    }
    return false;
  }

  // A port on which nothing listens: one the kernel just gave a listener that is now closed.
  uint16_t UnusedPort() {
    Result<ListenerId> listener = net().Listen(ListenOptions{"127.0.0.1", 0, 16});
    EXPECT_TRUE(listener.ok());
    const uint16_t port = net().ListenerPort(*listener);
    net().CloseListener(*listener);
    return port;
  }

  static IoResult WriteText(Network& net, ConnId conn, std::string_view text) {
    const ConstSlice slice{text.data(), text.size()};
    return net.Write(conn, &slice, 1);
  }

  std::unique_ptr<Env> env_;
};

inline std::string BackendName(const ::testing::TestParamInfo<IoBackend>& info) {
  return info.param == IoBackend::kIoUring ? "IoUring" : "Epoll";
}

#define KEEL_INSTANTIATE_FOR_BACKENDS(fixture)                                           \
  INSTANTIATE_TEST_SUITE_P(                                                              \
      Backends, fixture,                                                                 \
      ::testing::Values(::keel::io::IoBackend::kEpoll, ::keel::io::IoBackend::kIoUring), \
      ::keel::io::BackendName)

}  // namespace keel::io
