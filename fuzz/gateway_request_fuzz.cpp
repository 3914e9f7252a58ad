// libFuzzer target for what the gateway reads from a client (core/gateway/http_framing,
// core/gateway/chat_request). The same bytes go to:
// - parse_request_head: an error has a status and a code; a head lies inside the buffer, fits
//   max_body, is never both chunked and Content-Length framed, and its own bytes parse again to
//   the same head; "incomplete" happens only within max_head;
// - chunked_body_end: fed whole, and fed growing a byte at a time with the resume state, it
//   gives the same answer;
// - the three body parsers: an error has a message; a request has a model, text at least its
//   prompt (chat, responses) and an estimate that never goes negative.
// seed-corpus: tests/data/fuzz/gateway_request
// dict: fuzz/gateway_request.dict
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "core/gateway/chat_request.h"
#include "core/gateway/http_framing.h"
#include "fuzz/fuzz_check.h"

namespace {

using namespace limitscope::gateway;

constexpr std::size_t kMaxHead = 2048;
constexpr std::uint64_t kMaxBody = 4096;

void check_head(std::string_view text) {
  auto r = parse_request_head(text, kMaxHead, kMaxBody);
  if (auto* e = std::get_if<FramingError>(&r)) {
    check(e->status == 400 || e->status == 413 || e->status == 431 || e->status == 501 ||
          e->status == 505);
    check(!e->code.empty());
    return;
  }
  if (std::holds_alternative<std::monostate>(r)) {
    check(text.size() <= kMaxHead);
    return;
  }
  const RequestHead& h = std::get<RequestHead>(r);
  check(h.head_bytes > 0 && h.head_bytes <= text.size() && h.head_bytes <= kMaxHead);
  check(!h.method.empty() && !h.target.empty());
  check(h.content_length <= kMaxBody);
  check(!(h.chunked && h.content_length > 0));
  auto again = parse_request_head(text.substr(0, h.head_bytes), kMaxHead, kMaxBody);
  const RequestHead* h2 = std::get_if<RequestHead>(&again);
  check(h2 != nullptr && h2->head_bytes == h.head_bytes && h2->method == h.method &&
        h2->target == h.target && h2->content_length == h.content_length &&
        h2->chunked == h.chunked && h2->keep_alive == h.keep_alive);
}

void check_chunked(std::string_view text) {
  auto whole = chunked_body_end(text, kMaxBody);
  if (auto* end = std::get_if<std::size_t>(&whole)) check(*end <= text.size());
  if (text.size() > 1024) return;
  ChunkedProgress progress;
  std::variant<std::monostate, std::size_t, FramingError> grown;
  for (std::size_t n = 0; n <= text.size(); ++n) {
    grown = chunked_body_end(text.substr(0, n), kMaxBody, &progress);
    if (!std::holds_alternative<std::monostate>(grown)) break;
  }
  check(grown.index() == whole.index());
  if (auto* end = std::get_if<std::size_t>(&whole)) check(std::get<std::size_t>(grown) == *end);
}

void check_body(std::string_view text) {
  for (Endpoint endpoint :
       {Endpoint::chat_completions, Endpoint::embeddings, Endpoint::responses}) {
    auto r = parse_request(endpoint, text);
    if (!r.ok()) {
      check(!r.error().empty());
      continue;
    }
    check(r->endpoint == endpoint);
    check(!r->model.empty());
    check(r->image_tokens >= 0 && r->choices >= 1);
    if (endpoint != Endpoint::embeddings) check(r->text_chars >= r->prompt_chars);
    check(estimate_llm_tokens(*r, 1024) >= 0);
    check(estimate_llm_tokens(*r, INT64_MAX) >= 0);
  }
  if (auto used = usage_total_tokens(text)) (void)*used;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 8192) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_head(text);
  check_chunked(text);
  check_body(text);
  return 0;
}
