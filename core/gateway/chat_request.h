#pragma once
// The parts of an OpenAI-compatible chat completion request the gateway needs (model, prompt
// size, max_tokens, stream), the token estimate taken from the TPM bucket before the call,
// and the upstream's `usage` read back afterwards (from a JSON body or an SSE stream).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/expected.h"

namespace limitscope::gateway {

struct ChatRequest {
  std::string model;
  /// Characters (UTF-8 code points) of every message's text content.
  std::size_t prompt_chars = 0;
  /// `max_completion_tokens`, else `max_tokens`; nullopt when the client sent neither.
  std::optional<std::int64_t> max_tokens;
  bool stream = false;
};

/// Parses a POST /v1/chat/completions body.
/// @return the request, or an error for malformed JSON ("line L, column C: ...") or a
///         missing/ill-typed field ("\"model\" must be a non-empty string").
Expected<ChatRequest> parse_chat_request(std::string_view body);

/// LLM tokens reserved before the call: ceil(prompt characters / 4) + max_tokens, with
/// `default_max_tokens` when the request names none.
std::int64_t estimate_llm_tokens(const ChatRequest& request, std::int64_t default_max_tokens);

/// `usage.total_tokens` (else prompt_tokens + completion_tokens) of a JSON response body;
/// nullopt when the body is not JSON or carries no usage.
std::optional<std::int64_t> usage_total_tokens(std::string_view response_json);

/// Reads a streamed (text/event-stream) response as it passes through, chunk by chunk, and
/// remembers the last `usage` any `data: {...}` event carried. Chunks may split lines anywhere.
class SseUsageScanner {
 public:
  void feed(std::string_view chunk);
  /// Call when the stream ended: a last line without a newline is read too.
  void finish();
  std::optional<std::int64_t> total_tokens() const { return total_; }

 private:
  void line(std::string_view text);
  std::string pending_;  // an incomplete line, bounded (see feed)
  std::optional<std::int64_t> total_;
};

}  // namespace limitscope::gateway
