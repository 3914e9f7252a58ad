// Verifies request framing as the connection front decides it: complete and incomplete heads,
// keep-alive by version and Connection, Expect, and the refusals (two Content-Length,
// Content-Length with chunked, other codings, folded lines, oversize heads and bodies); and
// where a chunked body ends, fed whole or cut anywhere.

#include "core/gateway/http_framing.h"

#include <gtest/gtest.h>

namespace limitscope::gateway {
namespace {

constexpr std::size_t kHead = 1024;
constexpr std::uint64_t kBody = 1000;

RequestHead head_of(std::string_view text) {
  auto r = parse_request_head(text, kHead, kBody);
  EXPECT_TRUE(std::holds_alternative<RequestHead>(r)) << text;
  return std::holds_alternative<RequestHead>(r) ? std::get<RequestHead>(r) : RequestHead{};
}

TEST(HttpFraming, ReadsAHeadAndItsBodyLength) {
  const std::string text = "POST /v1/x HTTP/1.1\r\nHost: a\r\ncontent-length:  12 \r\n\r\nbody...";
  const RequestHead h = head_of(text);
  EXPECT_EQ(h.method, "POST");
  EXPECT_EQ(h.target, "/v1/x");
  EXPECT_EQ(h.head_bytes, text.find("body"));
  EXPECT_EQ(h.content_length, 12u);
  EXPECT_TRUE(h.keep_alive);
  EXPECT_FALSE(h.chunked);
  // Every prefix short of the blank line is "not yet".
  for (std::size_t n = 0; n < h.head_bytes; ++n) {
    EXPECT_TRUE(
        std::holds_alternative<std::monostate>(parse_request_head(text.substr(0, n), kHead, kBody)))
        << n;
  }
}

TEST(HttpFraming, KeepAliveExpectAndChunked) {
  EXPECT_FALSE(head_of("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").keep_alive);
  EXPECT_FALSE(head_of("GET / HTTP/1.0\r\n\r\n").keep_alive);
  EXPECT_TRUE(head_of("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").keep_alive);
  EXPECT_TRUE(head_of("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n")
                  .expect_continue);
  EXPECT_TRUE(head_of("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n").chunked);
}

TEST(HttpFraming, RefusesWhatCouldBeFramedTwoWays) {
  struct Row {
    std::string text;
    int status;
    const char* code;
  };
  for (const Row& r :
       {Row{"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", 400,
            "ambiguous_length"},
        Row{"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
            "ambiguous_length"},
        Row{"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501,
            "unsupported_transfer_encoding"},
        Row{"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            501, "unsupported_transfer_encoding"},
        Row{"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "bad_request"},
        Row{"POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n", 413, "request_too_large"},
        Row{"POST / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", 400, "bad_request"},
        Row{"POST / HTTP/1.1\r\nNo colon here\r\n\r\n", 400, "bad_request"},
        Row{"POST /\r\n\r\n", 400, "bad_request"},
        Row{"GET / HTTP/2.0\r\n\r\n", 505, "http_version_not_supported"},
        Row{"GET / HTTP/1.1\r\nX: " + std::string(kHead, 'a') + "\r\n\r\n", 431,
            "request_header_fields_too_large"},
        Row{"GET / HTTP/1.1\r\nX: " + std::string(kHead, 'a'), 431,
            "request_header_fields_too_large"}}) {
    auto parsed = parse_request_head(r.text, kHead, kBody);
    ASSERT_TRUE(std::holds_alternative<FramingError>(parsed)) << r.text.substr(0, 80);
    EXPECT_EQ(std::get<FramingError>(parsed).status, r.status) << r.text.substr(0, 80);
    EXPECT_EQ(std::get<FramingError>(parsed).code, r.code) << r.text.substr(0, 80);
  }
}

TEST(HttpFraming, ChunkedBodyEndsAfterTheLastChunkAndTrailers) {
  const std::string body = "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n";
  const std::string next = "GET / HTTP/1.1\r\n\r\n";
  auto end = chunked_body_end(body + next, kBody);
  ASSERT_TRUE(std::holds_alternative<std::size_t>(end));
  EXPECT_EQ(std::get<std::size_t>(end), body.size());
  for (std::size_t n = 0; n < body.size(); ++n) {
    EXPECT_TRUE(std::holds_alternative<std::monostate>(chunked_body_end(body.substr(0, n), kBody)))
        << n;
  }
  // Fed a byte at a time with its progress kept: the same end, each byte read about once.
  ChunkedProgress progress;
  std::variant<std::monostate, std::size_t, FramingError> step;
  for (std::size_t n = 1; n <= body.size(); ++n)
    step = chunked_body_end(body.substr(0, n), kBody, &progress);
  ASSERT_TRUE(std::holds_alternative<std::size_t>(step));
  EXPECT_EQ(std::get<std::size_t>(step), body.size());
  ChunkedProgress big_chunk;
  const std::string half = "3E8\r\n" + std::string(500, 'a');  // 1000 bytes announced, 500 here
  EXPECT_TRUE(std::holds_alternative<std::monostate>(chunked_body_end(half, kBody, &big_chunk)));
  EXPECT_EQ(big_chunk.pos, 0u);  // resumes at the unfinished chunk's size line, not its data
  for (const std::string bad : {"x\r\n", "5\r\nhelloXX", "FFFFFFFFFFFFFFFFFF\r\n"}) {
    EXPECT_TRUE(std::holds_alternative<FramingError>(chunked_body_end(bad, kBody))) << bad;
  }
  auto big = chunked_body_end("3E9\r\n", kBody);  // 1001 bytes announced
  ASSERT_TRUE(std::holds_alternative<FramingError>(big));
  EXPECT_EQ(std::get<FramingError>(big).status, 413);
}

}  // namespace
}  // namespace limitscope::gateway
