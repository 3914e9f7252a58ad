#include "core/gateway/mock_upstream.h"

#include <algorithm>
#include <nlohmann/json.hpp>

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

}  // namespace

MockCompletion mock_completion(const ChatRequest& request, std::uint64_t request_id,
                               std::int64_t created_unix_s) {
  MockCompletion m;
  m.prompt_tokens = static_cast<std::int64_t>((request.prompt_chars + 3) / 4);
  m.completion_tokens =
      std::min(request.max_tokens.value_or(kMockCompletionTokens), kMockCompletionTokens);
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
    return "data: " + chunk.dump() + "\n\n";
  };
  m.chunks.push_back(event({{"role", "assistant"}, {"content", ""}}, nullptr, nullptr));
  for (const char* w : kWords) m.chunks.push_back(event({{"content", w}}, nullptr, nullptr));
  const json usage = usage_json(m);
  m.chunks.push_back(event(json::object(), "stop", &usage));
  m.chunks.push_back("data: [DONE]\n\n");
  return m;
}

}  // namespace limitscope::gateway
