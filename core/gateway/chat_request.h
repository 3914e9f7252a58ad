#pragma once
// The parts of an OpenAI-compatible request the gateway needs (model, prompt size, max_tokens,
// stream) for the three endpoints it admits (chat completions, embeddings, responses), the
// token estimate taken from the TPM bucket before the call, and the upstream's `usage` read
// back afterwards (from a JSON body or an SSE stream, in each endpoint's shape).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/expected.h"

namespace limitscope::gateway {

/// The endpoints the gateway admits, all under the same limits.
enum class Endpoint { chat_completions, embeddings, responses };

/// "/v1/chat/completions", "/v1/embeddings", "/v1/responses".
std::string_view endpoint_path(Endpoint endpoint);

/// Most inputs of one embeddings request, and most dimensions asked (OpenAI's own limits).
inline constexpr std::size_t kMaxEmbeddingInputs = 2048;
inline constexpr std::int64_t kMaxEmbeddingDimensions = 3072;

/// Tokens an image is estimated at: its size is unknown before the provider decodes it, so the
/// largest a provider bills for one at full detail (OpenAI high detail 85 + 170 per 512 px tile
/// up to 1,445; Anthropic about 1,600 for 1.15 megapixels), and OpenAI's price of a low-detail
/// one.
inline constexpr std::int64_t kImageTokens = 1600;
inline constexpr std::int64_t kLowDetailImageTokens = 85;

/// Deepest nesting of arrays and objects a request body may have. Each level costs the parser
/// a container of its own (a 1 MiB body of "[" cost about 70 MB), and no API body needs more.
inline constexpr std::size_t kMaxJsonDepth = 64;

/// A request to any of the endpoints (named after the first one the gateway served).
struct ChatRequest {
  Endpoint endpoint = Endpoint::chat_completions;
  std::string model;
  /// Characters (UTF-8 code points) of the prompt: every message's text content (chat), the
  /// `input` and `instructions` text (responses), the `input` strings (embeddings; a token of
  /// a token-array input counts as 4 characters, so its estimate is its length).
  std::size_t prompt_chars = 0;
  /// Characters of every string the body carries, however deep and in whatever field
  /// (messages, tools, functions, response_format schemas, ...), plus the names of nested
  /// object members (a tool's parameter names reach the model too); not "model", the names of
  /// top-level fields, nor image payloads (counted in image_tokens). >= prompt_chars but for
  /// token-array embeddings inputs.
  std::size_t text_chars = 0;
  /// Images: parts of type image_url, input_image or image, at kImageTokens each
  /// (kLowDetailImageTokens with "detail": "low"); saturates.
  std::int64_t image_tokens = 0;
  /// `max_completion_tokens`, else `max_tokens` (chat), `max_output_tokens` (responses);
  /// nullopt when the client sent none. Embeddings produce no output tokens.
  std::optional<std::int64_t> max_tokens;
  /// Chat's `n`: how many completions are asked for, each up to max_tokens.
  std::int64_t choices = 1;
  bool stream = false;
  /// Embeddings only: how many inputs, answered as base64 packed floats or float arrays, and
  /// the `dimensions` asked for.
  std::size_t inputs = 1;
  bool base64 = false;
  std::optional<std::int64_t> dimensions;
};

/// Parses a POST /v1/chat/completions body.
/// @return the request, or an error for malformed JSON ("line L, column C: ..."; nesting
///         deeper than kMaxJsonDepth, refused before the parser allocates anything) or a
///         missing/ill-typed field ("\"model\" must be a non-empty string").
Expected<ChatRequest> parse_chat_request(std::string_view body);

/// Parses a POST /v1/embeddings body: `input` a non-empty string, array of strings, token
/// array or array of token arrays (at most kMaxEmbeddingInputs), `encoding_format` "float" or
/// "base64", `dimensions` 1..kMaxEmbeddingDimensions. Errors as parse_chat_request.
Expected<ChatRequest> parse_embeddings_request(std::string_view body);

/// Parses a POST /v1/responses body: `input` a string or an array of items (their text
/// content counts), `instructions`, `max_output_tokens`, `stream`. Errors as parse_chat_request.
Expected<ChatRequest> parse_responses_request(std::string_view body);

/// The parser of `endpoint`.
Expected<ChatRequest> parse_request(Endpoint endpoint, std::string_view body);

/// LLM tokens reserved before the call: ceil(max(text, prompt characters) / 4) + image tokens
/// + choices × max_tokens (`default_max_tokens` when the request names none; no output term for
/// embeddings), saturating at INT64_MAX (which no token capacity admits).
std::int64_t estimate_llm_tokens(const ChatRequest& request, std::int64_t default_max_tokens);

/// The tokens a JSON response body reports in `usage` (or, for a responses stream event, in
/// `response.usage`): total_tokens, else input plus output tokens, in any endpoint's names
/// (prompt_tokens/completion_tokens for chat, prompt_tokens for embeddings,
/// input_tokens/output_tokens for responses); nullopt when the body is not JSON or has none.
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
