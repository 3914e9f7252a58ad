// Verifies the gateway with the official OpenAI Node SDK, as users drive it: the SDK's retry on
// our 429 waits the retry-after-ms we sent and then succeeds; streaming chat and streaming
// responses; models.list() and embeddings; OpenAI's six rate-limit headers agreeing with the
// IETF fields. Each test starts its own gateway (mock upstream) and runs node on
// e2e/openai_sdk/openai_sdk_test.cjs, with the SDK scripts/test installed into
// <build>/openai-sdk (npm ci from the committed package-lock.json).

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/process.h"
#include "support/test_paths.h"

namespace limitscope::test {
namespace {

const std::string kSdkDir = binary_path("openai-sdk");

// Why the SDK cannot be used, or "" when the pinned version is installed.
std::string sdk_problem() {
  const std::string installed = kSdkDir + "/node_modules/openai/package.json";
  if (!std::filesystem::exists(installed)) {
    std::string why = "the openai npm package is not installed in " + kSdkDir +
                      ": scripts/test installs it (npm ci from tests/e2e/openai_sdk/"
                      "package-lock.json; needs the npm registry or npm's cache)";
    const std::string log = read_file(kSdkDir + "/npm-ci.log");
    if (!log.empty())
      why += "; npm ci said:\n" + log.substr(log.size() > 2000 ? log.size() - 2000 : 0);
    return why;
  }
  const auto lock = nlohmann::json::parse(
      read_file(test_source_path("e2e/openai_sdk/package-lock.json")), nullptr, false);
  const auto have = nlohmann::json::parse(read_file(installed), nullptr, false);
  if (lock.is_discarded() || have.is_discarded()) return "cannot read the lockfile or " + installed;
  const std::string pinned = lock["packages"]["node_modules/openai"].value("version", "?");
  if (have.value("version", "") != pinned) {
    return kSdkDir + " holds openai " + have.value("version", "?") + ", the lockfile pins " +
           pinned + ": run scripts/test (npm ci) again";
  }
  return "";
}

class OpenAiSdkE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string problem = sdk_problem();
    ASSERT_EQ(problem, "");
    policy_path_ = write_temp("sdk_policy.json", e2e_policy_json());
    gw_ = std::make_unique<GatewayProcess>(
        std::vector<std::string>{"--policy", policy_path_, "--mock-upstream"});
    ASSERT_TRUE(gw_->running());
  }

  // Runs one scenario of the node script against this test's gateway.
  void run_scenario(const std::string& scenario) {
    const ProcessResult r =
        run_process("node", test::quoted(test_source_path("e2e/openai_sdk/openai_sdk_test.cjs")) +
                                " " + test::quoted(kSdkDir) + " " + test::quoted(gw_->url()) + " " +
                                test::quoted(policy_path_) + " " + scenario);
    EXPECT_EQ(r.exit_code, 0) << "node: " << r.out << r.err
                              << "\ngateway: " << gw_->process().stderr_text();
    EXPECT_NE(r.out.find("ok " + scenario), std::string::npos) << r.out << r.err;
    if (!r.out.empty()) std::cout << r.out;
  }

  std::string policy_path_;
  std::unique_ptr<GatewayProcess> gw_;
};

TEST_F(OpenAiSdkE2E, RetryOn429WaitsRetryAfterMsThenSucceeds) {
  run_scenario("retry");
}

TEST_F(OpenAiSdkE2E, StreamingChatCompletions) {
  run_scenario("stream-chat");
}

TEST_F(OpenAiSdkE2E, StreamingAndPlainResponses) {
  run_scenario("stream-responses");
}

TEST_F(OpenAiSdkE2E, ModelsListIsThePolicysModelsAndEmbeddingsDecode) {
  run_scenario("models-embeddings");
}

TEST_F(OpenAiSdkE2E, OpenAiHeadersAgreeWithIetfOnAllowedAndDenied) {
  run_scenario("headers");
}

}  // namespace
}  // namespace limitscope::test
