#include "core/gateway/chat_request.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <vector>

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

std::int64_t add_sat(std::int64_t a, std::int64_t b) {  // a, b >= 0
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

std::int64_t mul_sat(std::int64_t a, std::int64_t b) {  // a, b >= 0
  return b != 0 && a > INT64_MAX / b ? INT64_MAX : a * b;
}

std::string_view string_member(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                               : std::string_view();
}

// The tokens of an image part (OpenAI image_url / input_image, Anthropic image), or nullopt
// for any other object.
std::optional<std::int64_t> image_part_tokens(const json& object) {
  const std::string_view type = string_member(object, "type");
  if (type != "image_url" && type != "input_image" && type != "image") return std::nullopt;
  std::string_view detail = string_member(object, "detail");
  if (auto url = object.find("image_url"); url != object.end() && url->is_object()) {
    detail = string_member(*url, "detail");
  }
  return detail == "low" ? kLowDetailImageTokens : kImageTokens;
}

// Counts the text and images of every top-level field but "model" into out.text_chars and
// out.image_tokens: any field may carry text the provider bills for (tools, functions,
// response_format, system, ...), so no field smuggles a prompt past the estimate. Iterative:
// a body nested thousands deep must not exhaust the stack.
void count_text_and_images(const json& doc, ChatRequest& out) {
  std::vector<const json*> pending;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() != "model") pending.push_back(&it.value());
  }
  while (!pending.empty()) {
    const json& v = *pending.back();
    pending.pop_back();
    if (v.is_string()) {
      out.text_chars += code_points(v.get_ref<const std::string&>());
    } else if (v.is_array()) {
      for (const json& item : v) pending.push_back(&item);
    } else if (v.is_object()) {
      if (auto image = image_part_tokens(v)) {
        out.image_tokens = add_sat(out.image_tokens, *image);
        continue;
      }
      for (auto it = v.begin(); it != v.end(); ++it) {
        out.text_chars += code_points(it.key());
        pending.push_back(&it.value());
      }
    }
  }
}

// A non-negative integer member of `object`, if it has one.
std::optional<std::int64_t> count_member(const json& object, const char* name) {
  auto v = object.find(name);
  if (v == object.end() || !v->is_number_integer() || v->get<std::int64_t>() < 0)
    return std::nullopt;
  return v->get<std::int64_t>();
}

std::optional<std::int64_t> usage_of(const json& doc) {
  if (!doc.is_object()) return std::nullopt;
  auto usage = doc.find("usage");
  if (usage == doc.end() || !usage->is_object()) {
    // A responses stream reports usage in its response.completed event's `response`.
    auto response = doc.find("response");
    if (response == doc.end() || !response->is_object()) return std::nullopt;
    usage = response->find("usage");
    if (usage == response->end() || !usage->is_object()) return std::nullopt;
  }
  if (auto total = count_member(*usage, "total_tokens")) return total;
  auto input = count_member(*usage, "prompt_tokens");
  if (!input) input = count_member(*usage, "input_tokens");
  auto output = count_member(*usage, "completion_tokens");
  if (!output) output = count_member(*usage, "output_tokens");
  if (!input || (!output && usage->contains("completion_tokens"))) return std::nullopt;
  return *input + output.value_or(0);  // embeddings have no output tokens
}

// The byte offset where `text` (JSON) nests arrays and objects deeper than `limit`, if it does.
// Counts brackets outside strings only; a malformed text is left to the parser.
std::optional<std::size_t> too_deep_at(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

// The body as a JSON object with a non-empty string "model" (copied to out.model), or why not.
Expected<json> parse_body_with_model(std::string_view body, Endpoint endpoint, ChatRequest& out) {
  if (auto at = too_deep_at(body, kMaxJsonDepth)) {
    return make_error("malformed JSON: nested deeper than " + std::to_string(kMaxJsonDepth) +
                      " arrays/objects at byte " + std::to_string(*at));
  }
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
  auto model = doc.find("model");
  if (model == doc.end() || !model->is_string() || model->get_ref<const std::string&>().empty()) {
    return make_error("\"model\" must be a non-empty string");
  }
  out.endpoint = endpoint;
  out.model = model->get<std::string>();
  count_text_and_images(doc, out);
  return doc;
}

// The first of `names` present and not null, which must be a positive integer.
Expected<std::optional<std::int64_t>> positive_member(const json& doc,
                                                      std::initializer_list<const char*> names) {
  for (const char* name : names) {
    auto v = doc.find(name);
    if (v == doc.end() || v->is_null()) continue;
    if (!v->is_number_integer() || v->get<std::int64_t>() <= 0) {
      return make_error("\"" + std::string(name) + "\" must be a positive integer");
    }
    return std::optional<std::int64_t>(v->get<std::int64_t>());
  }
  return std::optional<std::int64_t>();
}

// Reads out.max_tokens (the first of `names`) and out.stream. @return ok, or why not
Status read_output_options(const json& doc, std::initializer_list<const char*> names,
                           ChatRequest& out) {
  auto max_tokens = positive_member(doc, names);
  if (!max_tokens) return make_error(max_tokens.error());
  out.max_tokens = *max_tokens;
  auto stream = doc.find("stream");
  if (stream == doc.end() || stream->is_null()) return {};
  if (!stream->is_boolean()) return make_error("\"stream\" must be true or false");
  out.stream = stream->get<bool>();
  return {};
}

// A token-array input of embeddings: non-empty, integers only.
bool is_token_array(const json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const json& t : v) {
    if (!t.is_number_integer()) return false;
  }
  return true;
}

}  // namespace

std::string_view endpoint_path(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::embeddings:
      return "/v1/embeddings";
    case Endpoint::responses:
      return "/v1/responses";
    case Endpoint::chat_completions:
      break;
  }
  return "/v1/chat/completions";
}

Expected<ChatRequest> parse_chat_request(std::string_view body) {
  ChatRequest out;
  auto doc = parse_body_with_model(body, Endpoint::chat_completions, out);
  if (!doc) return make_error(doc.error());
  auto messages = doc->find("messages");
  if (messages == doc->end() || !messages->is_array() || messages->empty()) {
    return make_error("\"messages\" must be a non-empty array");
  }
  for (const json& m : *messages) {
    if (!m.is_object()) return make_error("each of \"messages\" must be an object");
    auto content = m.find("content");
    if (content != m.end()) out.prompt_chars += content_chars(*content);
  }
  if (Status why = read_output_options(*doc, {"max_completion_tokens", "max_tokens"}, out);
      !why.ok()) {
    return make_error(why.error());
  }
  auto n = positive_member(*doc, {"n"});
  if (!n) return make_error(n.error());
  out.choices = n->value_or(1);
  return out;
}

Expected<ChatRequest> parse_embeddings_request(std::string_view body) {
  ChatRequest out;
  auto doc = parse_body_with_model(body, Endpoint::embeddings, out);
  if (!doc) return make_error(doc.error());
  const std::string bad_input =
      "\"input\" must be a non-empty string, array of strings, token array or array of token "
      "arrays";
  auto input = doc->find("input");
  if (input == doc->end()) return make_error(bad_input);
  if (input->is_string()) {
    if (input->get_ref<const std::string&>().empty()) return make_error(bad_input);
    out.prompt_chars = code_points(input->get_ref<const std::string&>());
  } else if (is_token_array(*input)) {
    out.prompt_chars = 4 * input->size();
  } else if (input->is_array() && !input->empty()) {
    out.inputs = input->size();
    for (const json& one : *input) {
      if (one.is_string() && !one.get_ref<const std::string&>().empty()) {
        out.prompt_chars += code_points(one.get_ref<const std::string&>());
      } else if (is_token_array(one)) {
        out.prompt_chars += 4 * one.size();
      } else {
        return make_error(bad_input);
      }
    }
  } else {
    return make_error(bad_input);
  }
  if (out.inputs > kMaxEmbeddingInputs) {
    return make_error("\"input\" holds " + std::to_string(out.inputs) + " inputs; at most " +
                      std::to_string(kMaxEmbeddingInputs) + " are allowed");
  }
  if (auto format = doc->find("encoding_format"); format != doc->end() && !format->is_null()) {
    if (*format != "float" && *format != "base64") {
      return make_error("\"encoding_format\" must be \"float\" or \"base64\"");
    }
    out.base64 = *format == "base64";
  }
  auto dimensions = positive_member(*doc, {"dimensions"});
  if (!dimensions) return make_error(dimensions.error());
  if (*dimensions && **dimensions > kMaxEmbeddingDimensions) {
    return make_error("\"dimensions\" must be at most " + std::to_string(kMaxEmbeddingDimensions));
  }
  out.dimensions = *dimensions;
  return out;
}

Expected<ChatRequest> parse_responses_request(std::string_view body) {
  ChatRequest out;
  auto doc = parse_body_with_model(body, Endpoint::responses, out);
  if (!doc) return make_error(doc.error());
  if (auto input = doc->find("input"); input != doc->end() && !input->is_null()) {
    if (input->is_string()) {
      out.prompt_chars += code_points(input->get_ref<const std::string&>());
    } else if (input->is_array()) {
      for (const json& item : *input) {
        if (!item.is_object()) return make_error("each item of \"input\" must be an object");
        // Messages carry `content`; tool results (function_call_output) carry `output`.
        for (const char* text : {"content", "output"}) {
          if (auto v = item.find(text); v != item.end()) out.prompt_chars += content_chars(*v);
        }
      }
    } else {
      return make_error("\"input\" must be a string or an array of items");
    }
  }
  if (auto instructions = doc->find("instructions");
      instructions != doc->end() && !instructions->is_null()) {
    if (!instructions->is_string()) return make_error("\"instructions\" must be a string");
    out.prompt_chars += code_points(instructions->get_ref<const std::string&>());
  }
  if (Status why = read_output_options(*doc, {"max_output_tokens"}, out); !why.ok())
    return make_error(why.error());
  return out;
}

Expected<ChatRequest> parse_request(Endpoint endpoint, std::string_view body) {
  switch (endpoint) {
    case Endpoint::embeddings:
      return parse_embeddings_request(body);
    case Endpoint::responses:
      return parse_responses_request(body);
    case Endpoint::chat_completions:
      break;
  }
  return parse_chat_request(body);
}

std::int64_t estimate_llm_tokens(const ChatRequest& request, std::int64_t default_max_tokens) {
  const std::size_t chars = std::max(request.text_chars, request.prompt_chars);
  const auto prompt =
      add_sat(static_cast<std::int64_t>(chars / 4 + (chars % 4 != 0)), request.image_tokens);
  if (request.endpoint == Endpoint::embeddings) return prompt;
  const std::int64_t completion =
      mul_sat(std::max<std::int64_t>(0, request.max_tokens.value_or(default_max_tokens)),
              std::max<std::int64_t>(1, request.choices));
  return add_sat(prompt, completion);
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
