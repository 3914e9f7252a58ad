#include "core/gateway/chat_request.h"

#include <nlohmann/json.hpp>

namespace limitscope::gateway {
namespace {

using nlohmann::json;

// A line longer than this is not an SSE usage event worth keeping whole.
constexpr std::size_t kMaxSseLine = 1 << 20;

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;  // skip continuation bytes
  }
  return n;
}

// Text of a message's content: a string, or an array of parts whose "text" members count.
std::size_t content_chars(const json& content) {
  if (content.is_string()) return code_points(content.get_ref<const std::string&>());
  std::size_t n = 0;
  if (content.is_array()) {
    for (const json& part : content) {
      if (!part.is_object()) continue;
      auto text = part.find("text");
      if (text != part.end() && text->is_string())
        n += code_points(text->get_ref<const std::string&>());
    }
  }
  return n;
}

std::optional<std::int64_t> usage_of(const json& doc) {
  if (!doc.is_object()) return std::nullopt;
  auto usage = doc.find("usage");
  if (usage == doc.end() || !usage->is_object()) return std::nullopt;
  auto total = usage->find("total_tokens");
  if (total != usage->end() && total->is_number_integer() && total->get<std::int64_t>() >= 0) {
    return total->get<std::int64_t>();
  }
  auto prompt = usage->find("prompt_tokens");
  auto completion = usage->find("completion_tokens");
  if (prompt != usage->end() && completion != usage->end() && prompt->is_number_integer() &&
      completion->is_number_integer() && prompt->get<std::int64_t>() >= 0 &&
      completion->get<std::int64_t>() >= 0) {
    return prompt->get<std::int64_t>() + completion->get<std::int64_t>();
  }
  return std::nullopt;
}

}  // namespace

Expected<ChatRequest> parse_chat_request(std::string_view body) {
  json doc;
  try {
    doc = json::parse(body.begin(), body.end());
  } catch (const json::exception& e) {
    std::string what = e.what();
    const auto bracket = what.find("] ");
    return make_error("malformed JSON: " +
                      (bracket == std::string::npos ? what : what.substr(bracket + 2)));
  }
  if (!doc.is_object()) return make_error("the body must be a JSON object");
  ChatRequest out;
  auto model = doc.find("model");
  if (model == doc.end() || !model->is_string() || model->get_ref<const std::string&>().empty()) {
    return make_error("\"model\" must be a non-empty string");
  }
  out.model = model->get<std::string>();
  auto messages = doc.find("messages");
  if (messages == doc.end() || !messages->is_array() || messages->empty()) {
    return make_error("\"messages\" must be a non-empty array");
  }
  for (const json& m : *messages) {
    if (!m.is_object()) return make_error("each of \"messages\" must be an object");
    auto content = m.find("content");
    if (content != m.end()) out.prompt_chars += content_chars(*content);
  }
  for (const char* name : {"max_completion_tokens", "max_tokens"}) {
    auto v = doc.find(name);
    if (v == doc.end() || v->is_null()) continue;
    if (!v->is_number_integer() || v->get<std::int64_t>() <= 0) {
      return make_error("\"" + std::string(name) + "\" must be a positive integer");
    }
    out.max_tokens = v->get<std::int64_t>();
    break;
  }
  if (auto stream = doc.find("stream"); stream != doc.end() && !stream->is_null()) {
    if (!stream->is_boolean()) return make_error("\"stream\" must be true or false");
    out.stream = stream->get<bool>();
  }
  return out;
}

std::int64_t estimate_llm_tokens(const ChatRequest& request, std::int64_t default_max_tokens) {
  const auto prompt = static_cast<std::int64_t>((request.prompt_chars + 3) / 4);
  return prompt + request.max_tokens.value_or(default_max_tokens);
}

std::optional<std::int64_t> usage_total_tokens(std::string_view response_json) {
  json doc =
      json::parse(response_json.begin(), response_json.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return std::nullopt;
  return usage_of(doc);
}

void SseUsageScanner::feed(std::string_view chunk) {
  while (!chunk.empty()) {
    const auto nl = chunk.find('\n');
    if (nl == std::string_view::npos) {
      if (pending_.size() + chunk.size() <= kMaxSseLine) pending_.append(chunk);
      return;
    }
    if (pending_.empty()) {
      line(chunk.substr(0, nl));
    } else {
      if (pending_.size() + nl <= kMaxSseLine) pending_.append(chunk.substr(0, nl));
      line(pending_);
      pending_.clear();
    }
    chunk.remove_prefix(nl + 1);
  }
}

void SseUsageScanner::finish() {
  if (!pending_.empty()) line(pending_);
  pending_.clear();
}

void SseUsageScanner::line(std::string_view text) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  constexpr std::string_view kData = "data:";
  if (text.substr(0, kData.size()) != kData) return;
  text.remove_prefix(kData.size());
  if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (text.find("\"usage\"") == std::string_view::npos) return;  // most events: skip the parse
  if (auto total = usage_total_tokens(text)) total_ = total;
}

}  // namespace limitscope::gateway
