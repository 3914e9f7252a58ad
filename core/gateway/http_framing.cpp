#include "core/gateway/http_framing.h"

namespace limitscope::gateway {
namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c <= ' ' || c == 0x7f || c == ':' || c == '"' || c == '(' || c == ')' || c == ',' ||
        c == '/' || c == ';' || c == '<' || c == '=' || c == '>' || c == '?' || c == '@' ||
        c == '[' || c == '\\' || c == ']' || c == '{' || c == '}') {
      return false;
    }
  }
  return true;
}

FramingError bad(std::string message, std::string code = "bad_request", int status = 400) {
  return FramingError{status, std::move(code), std::move(message)};
}

// Calls f(token) for each comma-separated token of a header value, trimmed.
template <class F>
void each_token(std::string_view value, F f) {
  while (!value.empty()) {
    const auto comma = value.find(',');
    f(trim(value.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
}

}  // namespace

std::variant<std::monostate, RequestHead, FramingError> parse_request_head(std::string_view buffer,
                                                                           std::size_t max_head,
                                                                           std::uint64_t max_body) {
  const auto end = buffer.find("\r\n\r\n");
  if (end == std::string_view::npos || end + 4 > max_head) {
    if (buffer.size() <= max_head && end == std::string_view::npos) return std::monostate{};
    return bad("The request head is larger than " + std::to_string(max_head) + " bytes.",
               "request_header_fields_too_large", 431);
  }
  RequestHead head;
  head.head_bytes = end + 4;
  std::string_view rest = buffer.substr(0, end + 2);  // every line ends with CRLF
  const auto line_end = rest.find("\r\n");
  const std::string_view line = rest.substr(0, line_end);
  rest.remove_prefix(line_end + 2);
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return bad("The request line must be \"METHOD TARGET HTTP/1.1\".");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method) || target.empty()) return bad("The request line is malformed.");
  if (version == "HTTP/1.0") {
    head.http10 = true;
    head.keep_alive = false;
  } else if (version != "HTTP/1.1") {
    return bad("Only HTTP/1.1 and HTTP/1.0 are served.", "http_version_not_supported", 505);
  }
  head.method = std::string(method);
  head.target = std::string(target);
  int lengths = 0;
  int encodings = 0;
  while (!rest.empty()) {
    const auto eol = rest.find("\r\n");
    const std::string_view field = rest.substr(0, eol);
    rest.remove_prefix(eol + 2);
    if (field.front() == ' ' || field.front() == '\t') {
      return bad("Folded header lines are not accepted.");
    }
    const auto colon = field.find(':');
    if (colon == std::string_view::npos || !is_token(field.substr(0, colon))) {
      return bad("A header line is malformed.");
    }
    const std::string_view name = field.substr(0, colon);
    const std::string_view value = trim(field.substr(colon + 1));
    if (iequals(name, "Content-Length")) {
      if (++lengths > 1) {
        return bad("The request has more than one Content-Length header.", "ambiguous_length");
      }
      if (value.empty() || value.size() > 18 ||
          value.find_first_not_of("0123456789") != std::string_view::npos) {
        return bad("Content-Length must be a number.");
      }
      head.content_length = std::stoull(std::string(value));
    } else if (iequals(name, "Transfer-Encoding")) {
      if (++encodings > 1 || !iequals(value, "chunked")) {
        return bad("Only \"Transfer-Encoding: chunked\" is accepted.",
                   "unsupported_transfer_encoding", 501);
      }
      head.chunked = true;
    } else if (iequals(name, "Connection")) {
      each_token(value, [&](std::string_view t) {
        if (iequals(t, "close")) head.keep_alive = false;
        if (iequals(t, "keep-alive") && head.http10) head.keep_alive = true;
      });
    } else if (iequals(name, "Expect")) {
      head.expect_continue = iequals(value, "100-continue");
    }
  }
  if (lengths > 0 && encodings > 0) {
    return bad("The request has both Content-Length and Transfer-Encoding.", "ambiguous_length");
  }
  if (head.content_length > max_body) {
    return bad("The request body is larger than the gateway accepts.", "request_too_large", 413);
  }
  return head;
}

std::variant<std::monostate, std::size_t, FramingError> chunked_body_end(
    std::string_view body, std::uint64_t max_body, ChunkedProgress* progress) {
  constexpr std::size_t kMaxLine = 1024;  // a chunk-size line with extensions, or a trailer
  std::size_t pos = progress != nullptr ? progress->pos : 0;
  std::uint64_t total = progress != nullptr ? progress->total : 0;
  for (;;) {
    const std::size_t chunk_start = pos;
    const std::uint64_t total_before = total;
    const auto incomplete = [&]() -> std::variant<std::monostate, std::size_t, FramingError> {
      if (progress != nullptr) *progress = ChunkedProgress{chunk_start, total_before};
      return std::monostate{};
    };
    const auto eol = body.find("\r\n", pos);
    if (eol == std::string_view::npos) {
      if (body.size() - pos > kMaxLine) return bad("A chunk-size line is too long.");
      return incomplete();
    }
    std::string_view size_text = body.substr(pos, eol - pos);
    size_text = size_text.substr(0, size_text.find(';'));  // chunk extensions are ignored
    size_text = trim(size_text);
    if (size_text.empty() || size_text.size() > 15 ||
        size_text.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) {
      return bad("A chunk size is malformed.");
    }
    const std::uint64_t size = std::stoull(std::string(size_text), nullptr, 16);
    pos = eol + 2;
    if (size == 0) {
      for (std::size_t trailers = 0;; ++trailers) {  // trailer lines, then a blank line
        const auto t = body.find("\r\n", pos);
        if (t == std::string_view::npos) {
          if (body.size() - pos > kMaxLine) return bad("A trailer line is too long.");
          return incomplete();
        }
        if (t == pos) return pos + 2;
        if (trailers >= 32) return bad("Too many trailer lines.");
        pos = t + 2;
      }
    }
    total += size;
    if (total > max_body) {
      return bad("The request body is larger than the gateway accepts.", "request_too_large", 413);
    }
    if (body.size() < pos + size + 2) return incomplete();
    if (body.substr(pos + size, 2) != "\r\n") return bad("A chunk does not end with CRLF.");
    pos += size + 2;
  }
}

}  // namespace limitscope::gateway
