// Verifies chat request parsing, the token estimate, and reading usage from JSON and SSE bodies.

#include "core/gateway/chat_request.h"

#include <gtest/gtest.h>

#include <string>

namespace limitscope::gateway {
namespace {

TEST(ChatRequest, ReadsModelPromptMaxTokensStream) {
  auto r = parse_chat_request(R"({"model":"gpt-4.1","stream":true,"max_tokens":100,
    "messages":[{"role":"system","content":"abcd"},
                {"role":"user","content":[{"type":"text","text":"héllo"},{"type":"image_url"}]}]})");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->model, "gpt-4.1");
  EXPECT_EQ(r->prompt_chars, 9u);  // 4 + 5 code points (é is two bytes)
  EXPECT_EQ(r->max_tokens, 100);
  EXPECT_TRUE(r->stream);
  EXPECT_EQ(estimate_llm_tokens(*r, 1024), 3 + 100);  // ceil(9 / 4) + max_tokens
}

TEST(ChatRequest, MaxCompletionTokensWinsAndDefaultApplies) {
  auto r = parse_chat_request(
      R"({"model":"m","max_completion_tokens":7,"max_tokens":9,"messages":[{"content":"abcdefgh"}]})");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->max_tokens, 7);
  auto d = parse_chat_request(R"({"model":"m","messages":[{"content":"abcdefgh"}]})");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->max_tokens.has_value());
  EXPECT_EQ(estimate_llm_tokens(*d, 1024), 2 + 1024);
}

struct BadBody {
  const char* body;
  const char* reason;
};

class ChatRequestRefuses : public ::testing::TestWithParam<BadBody> {};

TEST_P(ChatRequestRefuses, WithAReason) {
  auto r = parse_chat_request(GetParam().body);
  ASSERT_FALSE(r.ok()) << GetParam().body;
  EXPECT_NE(r.error().find(GetParam().reason), std::string::npos) << r.error();
}

INSTANTIATE_TEST_SUITE_P(
    Rows, ChatRequestRefuses,
    ::testing::Values(
        BadBody{"{\"model\": ", "malformed JSON"}, BadBody{"", "malformed JSON"},
        BadBody{"[1]", "must be a JSON object"},
        BadBody{R"({"messages":[{"content":"x"}]})", "\"model\" must be a non-empty string"},
        BadBody{R"({"model":3,"messages":[{"content":"x"}]})", "\"model\""},
        BadBody{R"({"model":"m"})", "\"messages\" must be a non-empty array"},
        BadBody{R"({"model":"m","messages":[]})", "\"messages\""},
        BadBody{R"({"model":"m","messages":[3]})", "must be an object"},
        BadBody{R"({"model":"m","messages":[{}],"max_tokens":0})",
                "\"max_tokens\" must be a positive integer"},
        BadBody{R"({"model":"m","messages":[{}],"max_tokens":"5"})", "positive integer"},
        BadBody{R"({"model":"m","messages":[{}],"stream":"yes"})", "\"stream\""}));

TEST(Usage, FromJsonBody) {
  EXPECT_EQ(
      usage_total_tokens(R"({"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}})"),
      7);
  EXPECT_EQ(usage_total_tokens(R"({"usage":{"prompt_tokens":3,"completion_tokens":4}})"), 7);
  EXPECT_FALSE(usage_total_tokens(R"({"choices":[]})").has_value());
  EXPECT_FALSE(usage_total_tokens("not json").has_value());
  EXPECT_FALSE(usage_total_tokens(R"({"usage":{"total_tokens":-1}})").has_value());
}

TEST(Usage, FromAnSseStreamSplitAnywhere) {
  const std::string stream =
      "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"
      "data: "
      "{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":6,\"total_tokens\":11}}"
      "\r\n\r\n"
      "data: [DONE]\n\n";
  for (std::size_t cut = 1; cut < stream.size(); cut += 7) {
    SseUsageScanner s;
    for (std::size_t i = 0; i < stream.size(); i += cut)
      s.feed(std::string_view(stream).substr(i, cut));
    s.finish();
    EXPECT_EQ(s.total_tokens(), 11) << "chunk size " << cut;
  }
  SseUsageScanner none;
  none.feed("data: {\"choices\":[]}\n\ndata: [DONE]");
  none.finish();
  EXPECT_FALSE(none.total_tokens().has_value());
}

}  // namespace
}  // namespace limitscope::gateway
