#pragma once
// The built-in upstream: answers each endpoint the way an OpenAI-compatible provider does,
// with a deterministic `usage`, so the gateway's settlement and the tests see real numbers:
// - chat completions: a JSON body, or server-sent events ending in `data: [DONE]` (stream);
// - embeddings: one deterministic vector per input (`dimensions`, default
//   kMockEmbeddingDimensions), as float arrays or base64 packed little-endian float32;
// - responses: a JSON response object, or the typed events of a responses stream
//   (response.created ... response.output_text.delta ... response.completed, which carries
//   the usage).
// Latency is the transport's to apply (core reads no clock here).

#include <cstdint>
#include <string>
#include <vector>

#include "core/gateway/chat_request.h"

namespace limitscope::gateway {

struct MockCompletion {
  std::int64_t prompt_tokens = 0;      // ceil(prompt characters / 4)
  std::int64_t completion_tokens = 0;  // min(max_tokens, kMockCompletionTokens); 0 for embeddings
  /// The JSON body (stream false) or the SSE events, one chunk each (stream true).
  std::vector<std::string> chunks;
  std::string content_type;
};

/// Completion tokens the mock answers with when max_tokens allows.
inline constexpr std::int64_t kMockCompletionTokens = 16;
/// Dimensions of the mock's embeddings when the request names none.
inline constexpr std::int64_t kMockEmbeddingDimensions = 16;

/// The mock's answer to `request`, whichever its endpoint.
/// @param request_id distinguishes answers ("chatcmpl-mock-<id>", "resp_mock_<id>")
/// @param created_unix_s the `created` field (seconds since the Unix epoch)
MockCompletion mock_completion(const ChatRequest& request, std::uint64_t request_id,
                               std::int64_t created_unix_s);

}  // namespace limitscope::gateway
