#pragma once
// The built-in upstream: answers a chat completion the way an OpenAI-compatible provider
// does (a JSON body, or server-sent events ending in `data: [DONE]` when stream is true),
// with a deterministic `usage`, so the gateway's settlement and the tests see real numbers.
// Latency is the transport's to apply (core reads no clock here).

#include <cstdint>
#include <string>
#include <vector>

#include "core/gateway/chat_request.h"

namespace limitscope::gateway {

struct MockCompletion {
  std::int64_t prompt_tokens = 0;      // ceil(prompt characters / 4)
  std::int64_t completion_tokens = 0;  // min(max_tokens, kMockCompletionTokens)
  /// The JSON body (stream false) or the SSE events, one chunk each (stream true).
  std::vector<std::string> chunks;
  std::string content_type;
};

/// Completion tokens the mock answers with when max_tokens allows.
inline constexpr std::int64_t kMockCompletionTokens = 16;

/// @param request_id distinguishes answers ("chatcmpl-mock-<id>")
/// @param created_unix_s the `created` field (seconds since the Unix epoch)
MockCompletion mock_completion(const ChatRequest& request, std::uint64_t request_id,
                               std::int64_t created_unix_s);

}  // namespace limitscope::gateway
