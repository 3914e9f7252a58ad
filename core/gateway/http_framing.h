#pragma once
// Where an HTTP/1.1 request ends, decided before anything else reads it (RFC 9112 §6): the
// gateway's connection front reads requests with deadlines, holding no worker, and hands only
// complete ones on. Framing a proxy could read differently (two Content-Length, Content-Length
// with Transfer-Encoding, a transfer coding other than chunked) is refused, never guessed.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace limitscope::gateway {

struct RequestHead {
  std::string method;
  std::string target;
  bool http10 = false;
  std::size_t head_bytes = 0;  // through the blank line
  /// The body's length when framed by Content-Length (0 when neither header is present).
  std::uint64_t content_length = 0;
  bool chunked = false;          // Transfer-Encoding: chunked
  bool keep_alive = true;        // HTTP/1.1 unless "Connection: close"; 1.0 only with keep-alive
  bool expect_continue = false;  // "Expect: 100-continue"
};

/// Why a request cannot be read, with the status to answer.
struct FramingError {
  int status = 400;  // 400, 413, 431 or 501
  std::string code;  // "ambiguous_length", "bad_request", "request_too_large", ...
  std::string message;
};

/// Parses the head of `buffer` (a request line, header lines, a blank line).
/// @param max_body largest body accepted (Content-Length above it: 413)
/// @return the head, nullopt while the blank line has not arrived yet (and the head is within
///         max_head bytes), or the error to answer
std::variant<std::monostate, RequestHead, FramingError> parse_request_head(std::string_view buffer,
                                                                           std::size_t max_head,
                                                                           std::uint64_t max_body);

/// Where chunked_body_end stopped: the start of the chunk it could not finish, and the bytes
/// decoded before it. Passing it back resumes there, so a body arriving a byte at a time is
/// read once, not once per byte.
struct ChunkedProgress {
  std::size_t pos = 0;
  std::uint64_t total = 0;
};

/// Where a chunked body that starts at the front of `body` ends (after the last chunk and any
/// trailers): bytes of `body` it takes; nullopt while incomplete; an error for malformed chunks
/// or more than max_body decoded bytes.
/// @param progress where a previous call on the same (grown) body stopped; updated
std::variant<std::monostate, std::size_t, FramingError> chunked_body_end(
    std::string_view body, std::uint64_t max_body, ChunkedProgress* progress = nullptr);

}  // namespace limitscope::gateway
