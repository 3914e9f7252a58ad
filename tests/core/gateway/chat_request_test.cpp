// Verifies request parsing for chat completions, embeddings and responses, the token estimate,
// and reading usage from JSON and SSE bodies in each endpoint's shape.

#include "core/gateway/chat_request.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace limitscope::gateway {
namespace {

TEST(ChatRequest, ReadsModelPromptMaxTokensStream) {
  auto r = parse_chat_request(R"({"model":"gpt-4.1","stream":true,"max_tokens":100,
    "messages":[{"role":"system","content":"abcd"},
                {"role":"user","content":[{"type":"text","text":"héllo"},{"type":"image_url"}]}]})");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->model, "gpt-4.1");
  // Strings: system 6, abcd 4, user 4, text 4, héllo 5 (é is two bytes, one code point);
  // member names: role 4 + content 7 (twice), type 4, text 4.
  EXPECT_EQ(r->text_chars, 23u + 30u);
  EXPECT_EQ(r->prompt_chars, 9u) << "the messages' text alone";
  EXPECT_EQ(r->image_tokens, kImageTokens);
  EXPECT_EQ(r->max_tokens, 100);
  EXPECT_TRUE(r->stream);
  EXPECT_EQ(estimate_llm_tokens(*r, 1024), 14 + kImageTokens + 100);  // ceil(53 / 4) + ...
}

// Every field that carries text reaches the estimate, whatever its name: 4,000 characters are
// at least 1,000 tokens wherever they sit.
class ChatRequestCountsText : public ::testing::TestWithParam<const char*> {};

TEST_P(ChatRequestCountsText, WhereverItSits) {
  std::string body = GetParam();
  body.replace(body.find("TEXT"), 4, std::string(4000, 'x'));
  auto r = parse_chat_request(body);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_GE(estimate_llm_tokens(*r, 0), 1000) << GetParam();
  EXPECT_LT(estimate_llm_tokens(*r, 0), 1050) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(
    Fields, ChatRequestCountsText,
    ::testing::Values(
        R"({"model":"m","messages":[{"role":"user","content":"TEXT"}]})",
        R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"TEXT"}]}]})",
        R"({"model":"m","messages":[{"content":"hi"}],"tools":[{"type":"function","function":
            {"name":"f","description":"TEXT","parameters":{"type":"object"}}}]})",
        R"({"model":"m","messages":[{"content":"hi"}],"tools":[{"type":"function","function":
            {"name":"f","parameters":{"properties":{"TEXT":{"type":"string"}}}}}]})",
        R"({"model":"m","messages":[{"content":"hi"}],"functions":[{"name":"f","description":"TEXT"}]})",
        R"({"model":"m","messages":[{"content":"hi"}],"response_format":{"type":"json_schema",
            "json_schema":{"name":"s","schema":{"description":"TEXT"}}}})",
        R"({"model":"m","messages":[{"content":"hi"}],"system":"TEXT"})",
        R"({"model":"m","messages":[{"role":"assistant","tool_calls":[{"function":{"arguments":"TEXT"}}]}]})",
        R"({"model":"m","messages":[{"content":"hi"}],"prediction":{"type":"content","content":"TEXT"}})",
        R"({"model":"m","messages":[{"content":"hi"}],"unknown_future_field":[[["TEXT"]]]})"));

TEST(ChatRequest, ImagesCostTheirTokensNotTheirPayload) {
  const std::string payload(1'000'000, 'A');  // a base64 image: not text
  auto r = parse_chat_request(
      R"({"model":"m","messages":[{"role":"user","content":[
         {"type":"image_url","image_url":{"url":"data:image/png;base64,)" +
      payload + R"("}},
         {"type":"image_url","image_url":{"url":"https://x/y.png","detail":"low"}},
         {"type":"input_image","image_url":"https://x/z.png"},
         {"type":"image","source":{"type":"base64","media_type":"image/png","data":")" +
      payload + R"("}}]}]})");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->image_tokens, 3 * kImageTokens + kLowDetailImageTokens);
  EXPECT_LT(r->text_chars, 100u);
}

TEST(ChatRequest, AMegabyteOfToolsIsAQuarterMillionTokens) {
  std::string tools = "[";
  for (int i = 0; i < 10'000; ++i) {
    if (i > 0) tools += ",";
    tools += R"({"type":"function","function":{"name":"f)" + std::to_string(i) +
             R"(","description":")" + std::string(80, 'd') + R"("}})";
  }
  tools += "]";
  ASSERT_GT(tools.size(), 1'000'000u);
  auto r =
      parse_chat_request(R"({"model":"m","messages":[{"content":"hi"}],"tools":)" + tools + "}");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_GT(estimate_llm_tokens(*r, 16), 250'000);
}

TEST(ChatRequest, HugeMaxTokensAndChoicesSaturateTheEstimate) {
  auto r = parse_chat_request(
      R"({"model":"m","messages":[{"content":"abcdefgh"}],"max_tokens":9223372036854775807})");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(estimate_llm_tokens(*r, 16), INT64_MAX);
  auto n = parse_chat_request(
      R"({"model":"m","messages":[{"content":"abcdefgh"}],"max_tokens":4611686018427387904,"n":3})");
  ASSERT_TRUE(n.ok()) << n.error();
  EXPECT_EQ(n->choices, 3);
  EXPECT_EQ(estimate_llm_tokens(*n, 16), INT64_MAX);
  auto few = parse_chat_request(R"({"model":"m","messages":[{"content":"abcdefgh"}],"n":3})");
  ASSERT_TRUE(few.ok());
  EXPECT_EQ(estimate_llm_tokens(*few, 100), 4 + 3 * 100);  // ceil(15 / 4) + n × max_tokens
}

TEST(ChatRequest, DeepNestingIsCountedWithoutRecursion) {
  // As deep as a body may be (kMaxJsonDepth, the body object included); deeper is refused
  // before parsing (NestingDeeperThanTheLimitIsRefusedBeforeParsing).
  const std::string deep =
      std::string(kMaxJsonDepth - 1, '[') + "\"abcd\"" + std::string(kMaxJsonDepth - 1, ']');
  auto r = parse_chat_request(R"({"model":"m","messages":[{"content":"x"}],"extra":)" + deep + "}");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->text_chars, 1u + 7u + 4u);  // x, content, abcd
}

TEST(ChatRequest, MaxCompletionTokensWinsAndDefaultApplies) {
  auto r = parse_chat_request(
      R"({"model":"m","max_completion_tokens":7,"max_tokens":9,"messages":[{"content":"abcdefgh"}]})");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->max_tokens, 7);
  auto d = parse_chat_request(R"({"model":"m","messages":[{"content":"abcdefgh"}]})");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->max_tokens.has_value());
  EXPECT_EQ(estimate_llm_tokens(*d, 1024), 4 + 1024);  // abcdefgh, content: 15 characters
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
        BadBody{R"({"model":"m","messages":[{}],"stream":"yes"})", "\"stream\""},
        BadBody{R"({"model":"m","messages":[{}],"n":0})", "\"n\" must be a positive integer"}));

TEST(EmbeddingsRequest, InputShapesCountTheirTextAndNoOutputTokens) {
  struct Row {
    const char* body;
    std::size_t prompt_chars;
    std::size_t inputs;
  };
  for (const Row& r :
       {Row{R"({"model":"m","input":"héllo wörld"})", 11, 1},
        Row{R"({"model":"m","input":["abcd","efgh","ij"]})", 10, 3},
        Row{R"({"model":"m","input":[1,2,3]})", 12, 1},  // a token counts as 4 characters
        Row{R"({"model":"m","input":[[1,2],[3],"abcd"]})", 16, 3}}) {
    auto e = parse_embeddings_request(r.body);
    ASSERT_TRUE(e.ok()) << r.body << ": " << e.error();
    EXPECT_EQ(e->endpoint, Endpoint::embeddings);
    EXPECT_EQ(e->prompt_chars, r.prompt_chars) << r.body;
    EXPECT_EQ(e->inputs, r.inputs) << r.body;
    EXPECT_FALSE(e->base64);
    EXPECT_EQ(estimate_llm_tokens(*e, 1024), static_cast<std::int64_t>((r.prompt_chars + 3) / 4))
        << "embeddings reserve no output tokens: " << r.body;
  }
  auto b = parse_embeddings_request(
      R"({"model":"m","input":"x","encoding_format":"base64","dimensions":8})");
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_TRUE(b->base64);
  EXPECT_EQ(b->dimensions, 8);
}

TEST(ResponsesRequest, InputInstructionsMaxOutputTokensStream) {
  auto r = parse_responses_request(R"({"model":"gpt-4.1","instructions":"be brief",
    "input":[{"role":"user","content":[{"type":"input_text","text":"abcd"}]},
             {"type":"function_call_output","call_id":"c","output":"efgh"},
             {"role":"user","content":"ij"}],
    "max_output_tokens":40,"stream":true})");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->endpoint, Endpoint::responses);
  EXPECT_EQ(r->prompt_chars, 8u + 4 + 4 + 2);
  EXPECT_EQ(r->max_tokens, 40);
  EXPECT_TRUE(r->stream);
  // Every string and nested member name: 104 characters (the prompt proper is 18).
  EXPECT_EQ(estimate_llm_tokens(*r, 1024), 26 + 40);
  auto plain = parse_responses_request(R"({"model":"m","input":"abcdefgh"})");
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_EQ(estimate_llm_tokens(*plain, 1024), 2 + 1024);
  EXPECT_FALSE(plain->stream);
}

struct EndpointBadBody {
  Endpoint endpoint;
  const char* body;
  const char* reason;
};

class EndpointRequestRefuses : public ::testing::TestWithParam<EndpointBadBody> {};

TEST_P(EndpointRequestRefuses, WithAReason) {
  auto r = parse_request(GetParam().endpoint, GetParam().body);
  ASSERT_FALSE(r.ok()) << GetParam().body;
  EXPECT_NE(r.error().find(GetParam().reason), std::string::npos) << r.error();
}

INSTANTIATE_TEST_SUITE_P(
    Rows, EndpointRequestRefuses,
    ::testing::Values(
        EndpointBadBody{Endpoint::embeddings, "{\"model\":", "malformed JSON"},
        EndpointBadBody{Endpoint::embeddings, R"({"input":"x"})", "\"model\""},
        EndpointBadBody{Endpoint::embeddings, R"({"model":"m"})", "\"input\" must be"},
        EndpointBadBody{Endpoint::embeddings, R"({"model":"m","input":""})", "\"input\""},
        EndpointBadBody{Endpoint::embeddings, R"({"model":"m","input":[]})", "\"input\""},
        EndpointBadBody{Endpoint::embeddings, R"({"model":"m","input":["a",""]})", "\"input\""},
        EndpointBadBody{Endpoint::embeddings, R"({"model":"m","input":[1.5]})", "\"input\""},
        EndpointBadBody{Endpoint::embeddings, R"({"model":"m","input":{"a":1}})", "\"input\""},
        EndpointBadBody{Endpoint::embeddings,
                        R"({"model":"m","input":"x","encoding_format":"hex"})",
                        "\"encoding_format\""},
        EndpointBadBody{Endpoint::embeddings, R"({"model":"m","input":"x","dimensions":0})",
                        "\"dimensions\" must be a positive integer"},
        EndpointBadBody{Endpoint::embeddings, R"({"model":"m","input":"x","dimensions":99999})",
                        "at most 3072"},
        EndpointBadBody{Endpoint::responses, R"({"model":"m","input":3})", "\"input\" must be"},
        EndpointBadBody{Endpoint::responses, R"({"model":"m","input":["x"]})", "must be an object"},
        EndpointBadBody{Endpoint::responses, R"({"model":"m","instructions":7})",
                        "\"instructions\""},
        EndpointBadBody{Endpoint::responses, R"({"model":"m","max_output_tokens":-1})",
                        "\"max_output_tokens\" must be a positive integer"},
        EndpointBadBody{Endpoint::responses, R"({"model":"m","stream":1})", "\"stream\""},
        EndpointBadBody{Endpoint::chat_completions, R"({"model":"m"})", "\"messages\""}));

TEST(EmbeddingsRequest, AtMost2048Inputs) {
  std::string many = R"({"model":"m","input":[)";
  for (int i = 0; i < 2049; ++i) many += i == 0 ? "\"a\"" : ",\"a\"";
  many += "]}";
  auto r = parse_embeddings_request(many);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("2049 inputs"), std::string::npos) << r.error();
}

TEST(ChatRequest, NestingDeeperThanTheLimitIsRefusedBeforeParsing) {
  // The body object is level 1; "pad" holds levels 2..depth.
  auto body = [](std::size_t depth, const std::string& in_string) {
    return R"({"model":"m","messages":[{"content":")" + in_string + R"("}],"pad":)" +
           std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
  };
  EXPECT_TRUE(parse_chat_request(body(kMaxJsonDepth, "")).ok());
  auto deep = parse_chat_request(body(kMaxJsonDepth + 1, ""));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.error().find("nested deeper than 64"), std::string::npos) << deep.error();
  // Brackets inside strings, even after an escaped quote, are text, not nesting.
  EXPECT_TRUE(parse_chat_request(body(kMaxJsonDepth, "\\\"" + std::string(200, '['))).ok());
  // Every endpoint's parser applies it.
  EXPECT_FALSE(parse_request(Endpoint::embeddings,
                             R"({"model":"m","input":"x","p":)" + std::string(70, '[') + "]}")
                   .ok());
}

TEST(Endpoint, Paths) {
  EXPECT_EQ(endpoint_path(Endpoint::chat_completions), "/v1/chat/completions");
  EXPECT_EQ(endpoint_path(Endpoint::embeddings), "/v1/embeddings");
  EXPECT_EQ(endpoint_path(Endpoint::responses), "/v1/responses");
}

TEST(Usage, FromJsonBody) {
  EXPECT_EQ(
      usage_total_tokens(R"({"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}})"),
      7);
  EXPECT_EQ(usage_total_tokens(R"({"usage":{"prompt_tokens":3,"completion_tokens":4}})"), 7);
  EXPECT_FALSE(usage_total_tokens(R"({"choices":[]})").has_value());
  EXPECT_FALSE(usage_total_tokens("not json").has_value());
  EXPECT_FALSE(usage_total_tokens(R"({"usage":{"total_tokens":-1}})").has_value());
}

TEST(Usage, InEachEndpointsShape) {
  // embeddings: prompt tokens only
  EXPECT_EQ(usage_total_tokens(R"({"object":"list","usage":{"prompt_tokens":9}})"), 9);
  // responses: input and output tokens
  EXPECT_EQ(
      usage_total_tokens(R"({"object":"response","usage":{"input_tokens":5,"output_tokens":6}})"),
      11);
  // a responses stream's response.completed event: usage inside `response`
  EXPECT_EQ(usage_total_tokens(R"({"type":"response.completed","response":{"usage":
              {"input_tokens":5,"output_tokens":6,"total_tokens":11}}})"),
            11);
  // the in-progress shell of response.created has usage null: nothing known yet
  EXPECT_FALSE(
      usage_total_tokens(R"({"type":"response.created","response":{"usage":null}})").has_value());
  EXPECT_FALSE(
      usage_total_tokens(R"({"usage":{"prompt_tokens":3,"completion_tokens":"4"}})").has_value());
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
