#pragma once
// limitscope-cli's commands on one rule's live config (config, shadow) against a private
// redis-server: the fixture their CLI tests share.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {

class RuleCliTest : public ::testing::Test {
 protected:
  explicit RuleCliTest(std::string rule) : rule_(std::move(rule)) {}
  void SetUp() override { server_ = RedisServer::start(); }

  /// `limitscope-cli COMMAND --redis URL --rule RULE REST`.
  ProcessResult run(const std::string& command, const std::string& rest) {
    return run_cli(command + " --redis " + server_->url() + " --rule " + rule_ + " " + rest);
  }

  std::unique_ptr<RedisServer> server_;
  const std::string rule_;
};

}  // namespace limitscope::test
