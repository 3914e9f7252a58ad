#include "core/gateway/mock_upstream.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/common/base64.h"

namespace limitscope::gateway {
namespace {

using nlohmann::json;

constexpr const char* kWords[] = {
    "This", " is", " a", " mock", " completion", " from", " limitscope-gateway", "."};

std::string content_text() {
  std::string s;
  for (const char* w : kWords) s += w;
  return s;
}

json usage_json(const MockCompletion& m) {
  return {{"prompt_tokens", m.prompt_tokens},
          {"completion_tokens", m.completion_tokens},
          {"total_tokens", m.prompt_tokens + m.completion_tokens}};
}

std::string sse_event(const json& data) {
  return "data: " + data.dump() + "\n\n";
}

// Input `index`'s vector: small multiples of 1/256, exact in float32 and short in JSON.
std::vector<float> embedding_values(std::size_t index, std::int64_t dimensions) {
  std::vector<float> v(static_cast<std::size_t>(dimensions));
  for (std::size_t j = 0; j < v.size(); ++j) {
    v[j] = static_cast<float>(static_cast<int>((j * 37 + index * 11) % 64) - 32) / 256.0f;
  }
  return v;
}

std::string packed_little_endian(const std::vector<float>& v) {
  std::string bytes;
  bytes.reserve(v.size() * 4);
  for (float f : v) {
    std::uint32_t u = 0;
    std::memcpy(&u, &f, sizeof u);
    for (int b = 0; b < 4; ++b) bytes += static_cast<char>((u >> (8 * b)) & 0xff);
  }
  return bytes;
}

void embeddings(const ChatRequest& request, MockCompletion& m) {
  const std::int64_t dimensions = request.dimensions.value_or(kMockEmbeddingDimensions);
  json data = json::array();
  for (std::size_t i = 0; i < request.inputs; ++i) {
    const std::vector<float> v = embedding_values(i, dimensions);
    json item = {{"object", "embedding"}, {"index", i}};
    if (request.base64) {
      item["embedding"] = base64_encode(packed_little_endian(v));
    } else {
      item["embedding"] = v;
    }
    data.push_back(std::move(item));
  }
  m.content_type = "application/json";
  m.chunks.push_back(
      json{{"object", "list"},
           {"data", std::move(data)},
           {"model", request.model},
           {"usage", {{"prompt_tokens", m.prompt_tokens}, {"total_tokens", m.prompt_tokens}}}}
          .dump());
}

// A response object of the Responses API; `done` false: the in-progress shell a stream starts
// with (no output, no usage).
json response_object(const ChatRequest& request, const MockCompletion& m, const std::string& id,
                     std::int64_t created_unix_s, bool done) {
  json r = {{"id", id},
            {"object", "response"},
            {"created_at", created_unix_s},
            {"status", done ? "completed" : "in_progress"},
            {"model", request.model},
            {"output", json::array()},
            {"usage", nullptr}};
  if (done) {
    r["output"].push_back({{"type", "message"},
                           {"id", "msg_" + id},
                           {"status", "completed"},
                           {"role", "assistant"},
                           {"content", json::array({{{"type", "output_text"},
                                                     {"text", content_text()},
                                                     {"annotations", json::array()}}})}});
    r["usage"] = {{"input_tokens", m.prompt_tokens},
                  {"input_tokens_details", {{"cached_tokens", 0}}},
                  {"output_tokens", m.completion_tokens},
                  {"output_tokens_details", {{"reasoning_tokens", 0}}},
                  {"total_tokens", m.prompt_tokens + m.completion_tokens}};
  }
  return r;
}

void responses(const ChatRequest& request, std::uint64_t request_id, std::int64_t created_unix_s,
               MockCompletion& m) {
  const std::string id = "resp_mock_" + std::to_string(request_id);
  const json done = response_object(request, m, id, created_unix_s, true);
  if (!request.stream) {
    m.content_type = "application/json";
    m.chunks.push_back(done.dump());
    return;
  }
  m.content_type = "text/event-stream";
  int sequence = 0;
  auto event = [&](const char* type, json data) {
    data["type"] = type;
    data["sequence_number"] = sequence++;
    m.chunks.push_back(std::string("event: ") + type + "\n" + sse_event(data));
  };
  const json& message = done["output"][0];
  json empty_message = message;
  empty_message["status"] = "in_progress";
  empty_message["content"] = json::array();
  const json part = {{"type", "output_text"}, {"text", ""}, {"annotations", json::array()}};
  const json where = {{"item_id", message["id"]}, {"output_index", 0}, {"content_index", 0}};
  event("response.created", {{"response", response_object(request, m, id, created_unix_s, false)}});
  event("response.output_item.added", {{"output_index", 0}, {"item", empty_message}});
  json part_added = where;
  part_added["part"] = part;
  event("response.content_part.added", std::move(part_added));
  for (const char* w : kWords) {
    json delta = where;
    delta["delta"] = w;
    event("response.output_text.delta", std::move(delta));
  }
  json text_done = where;
  text_done["text"] = content_text();
  event("response.output_text.done", std::move(text_done));
  json part_done = where;
  part_done["part"] = message["content"][0];
  event("response.content_part.done", std::move(part_done));
  event("response.output_item.done", {{"output_index", 0}, {"item", message}});
  event("response.completed", {{"response", done}});
}

}  // namespace

MockCompletion mock_completion(const ChatRequest& request, std::uint64_t request_id,
                               std::int64_t created_unix_s) {
  MockCompletion m;
  m.prompt_tokens = static_cast<std::int64_t>((request.prompt_chars + 3) / 4);
  if (request.endpoint == Endpoint::embeddings) {
    embeddings(request, m);
    return m;
  }
  m.completion_tokens =
      std::min(request.max_tokens.value_or(kMockCompletionTokens), kMockCompletionTokens);
  if (request.endpoint == Endpoint::responses) {
    responses(request, request_id, created_unix_s, m);
    return m;
  }
  const std::string id = "chatcmpl-mock-" + std::to_string(request_id);
  if (!request.stream) {
    json body = {
        {"id", id},
        {"object", "chat.completion"},
        {"created", created_unix_s},
        {"model", request.model},
        {"choices", json::array({{{"index", 0},
                                  {"message", {{"role", "assistant"}, {"content", content_text()}}},
                                  {"finish_reason", "stop"}}})},
        {"usage", usage_json(m)}};
    m.content_type = "application/json";
    m.chunks.push_back(body.dump());
    return m;
  }
  m.content_type = "text/event-stream";
  auto event = [&](const json& delta, const json& finish, const json* usage) {
    json chunk = {
        {"id", id},
        {"object", "chat.completion.chunk"},
        {"created", created_unix_s},
        {"model", request.model},
        {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}};
    if (usage != nullptr) chunk["usage"] = *usage;
    return sse_event(chunk);
  };
  m.chunks.push_back(event({{"role", "assistant"}, {"content", ""}}, nullptr, nullptr));
  for (const char* w : kWords) m.chunks.push_back(event({{"content", w}}, nullptr, nullptr));
  const json usage = usage_json(m);
  m.chunks.push_back(event(json::object(), "stop", &usage));
  m.chunks.push_back("data: [DONE]\n\n");
  return m;
}

}  // namespace limitscope::gateway
