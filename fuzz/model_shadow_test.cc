// Tests for ModelShadow: it must compare covered commands, notice a reply or a keyspace the model
// did not predict, and follow the engine through commands the model does not cover.
#include "fuzz/model_shadow.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace keel::fuzz {
namespace {

class ModelShadowTest : public ::testing::Test {
 protected:
  ModelShadowTest() : env_(1), engine_(env_, Config()), shadow_(engine_, env_) {
    client_ = engine_.NewClient(0, nullptr);
  }
  ~ModelShadowTest() override { engine_.FreeClient(client_); }

  // Runs `args` through the engine with the shadow beside it; returns the shadow's verdict.
  std::string Run(std::vector<std::string> args) {
    std::vector<std::string_view> views(args.begin(), args.end());
    shadow_.Before(*client_, args);
    engine_.RunCommand(*client_, views);
    const std::string bytes = client_->output().TakeAll();
    RespValue reply;
    size_t consumed = 0;
    EXPECT_EQ(DecodeResp(bytes, &reply, &consumed), DecodeStatus::kOk);
    return shadow_.After(*client_, &reply);
  }

  sim::SimEnv env_;
  Engine engine_;
  ModelShadow shadow_;
  Client* client_ = nullptr;
};

TEST_F(ModelShadowTest, CoveredCommandsAreComparedAndAgree) {
  EXPECT_EQ(Run({"SET", "k", "v", "PX", "100"}), "");
  EXPECT_EQ(Run({"GET", "k"}), "");
  env_.sim_clock().Advance(150'000);
  EXPECT_EQ(Run({"GET", "k"}), "");
  EXPECT_EQ(Run({"SELECT", "3"}), "");
  EXPECT_EQ(Run({"GET", "k"}), "");
  EXPECT_EQ(shadow_.compared(), 5u);
}

TEST_F(ModelShadowTest, AReplyTheModelDidNotPredictIsReported) {
  EXPECT_EQ(Run({"SET", "k", "v"}), "");
  // Behind the model's back, as an engine bug would.
  ASSERT_NE(engine_.keyspace().SetString(0, "k", engine_.keyspace().Hash(0, "k"), "w", kNoExpiry,
                                         ObjectEncoding::kEmbstr, events::kNone),
            Database::SetOutcome::kOutOfMemory);
  const std::string verdict = Run({"GET", "k"});
  EXPECT_NE(verdict.find("expected \"v\""), std::string::npos) << verdict;
}

TEST_F(ModelShadowTest, AKeyspaceTheModelDidNotPredictIsReported) {
  EXPECT_EQ(Run({"SET", "k", "v"}), "");
  ASSERT_NE(engine_.keyspace().SetString(2, "other", engine_.keyspace().Hash(2, "other"), "x",
                                         kNoExpiry, ObjectEncoding::kEmbstr, events::kNone),
            Database::SetOutcome::kOutOfMemory);
  const std::string verdict = Run({"GET", "k"});
  EXPECT_NE(verdict.find("db 2: the engine holds \"other\""), std::string::npos) << verdict;
}

TEST_F(ModelShadowTest, AnUncoveredCommandIsFollowedNotCompared) {
  // A writing command the model does not cover: afterwards the model takes the engine's keyspace,
  // so the next covered command is predicted from it.
  const std::vector<std::vector<std::string>> writers = {
      {"APPEND", "k", "w"}, {"SETRANGE", "k", "1", "w"}, {"RENAME", "k", "k"}};
  const std::vector<std::string>* uncovered = nullptr;
  for (const std::vector<std::string>& writer : writers) {
    if (!shadow_.Covers(writer)) {
      uncovered = &writer;
      break;
    }
  }
  if (uncovered == nullptr) GTEST_SKIP() << "the model covers every candidate";
  EXPECT_EQ(Run({"SET", "k", "v"}), "");
  const uint64_t compared = shadow_.compared();
  EXPECT_EQ(Run(*uncovered), "");
  EXPECT_EQ(shadow_.compared(), compared);
  EXPECT_EQ(Run({"GET", "k"}), "");
  EXPECT_EQ(shadow_.compared(), compared + 1);
}

}  // namespace
}  // namespace keel::fuzz
