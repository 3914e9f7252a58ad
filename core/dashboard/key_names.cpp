#include "core/dashboard/key_names.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/limiter/policy.h"
#include "core/metrics/metric_names.h"

namespace limitscope {
namespace {

bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

std::size_t hex_run(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && is_hex(s[n])) ++n;
  return n;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// One CSV field from `line` at `pos` (RFC 4180 quoting); pos moves past the comma.
std::optional<std::string> csv_field(std::string_view line, std::size_t& pos) {
  std::string out;
  if (pos < line.size() && line[pos] == '"') {
    ++pos;
    for (;;) {
      if (pos >= line.size()) return std::nullopt;  // unterminated quote
      if (line[pos] == '"') {
        if (pos + 1 < line.size() && line[pos + 1] == '"') {
          out += '"';
          pos += 2;
          continue;
        }
        ++pos;
        break;
      }
      out += line[pos++];
    }
    if (pos < line.size() && line[pos] != ',') return std::nullopt;
  } else {
    const std::size_t comma = std::min(line.find(',', pos), line.size());
    out = std::string(line.substr(pos, comma - pos));
    pos = comma;
  }
  if (pos < line.size()) ++pos;  // the comma
  return out;
}

}  // namespace

LimitedKeyParts split_limited_key(std::string_view rest, std::string_view limit_name) {
  LimitedKeyParts p;
  if (!limit_name.empty() && rest.size() > limit_name.size() + 1 && rest.ends_with(limit_name) &&
      rest[rest.size() - limit_name.size() - 1] == ':') {
    p.limit = std::string(limit_name);
    rest.remove_suffix(limit_name.size() + 1);
  }
  // The gateway's limited key: 32 hex digits of the key's SHA-256, then the model.
  constexpr std::size_t kGatewayDigits = 32;
  if (rest.size() > kGatewayDigits + 1 && hex_run(rest) == kGatewayDigits &&
      rest[kGatewayDigits] == ':') {
    p.api_key = std::string(rest.substr(0, kGatewayDigits));
    p.model = std::string(rest.substr(kGatewayDigits + 1));
  } else {
    p.api_key = std::string(rest);
  }
  return p;
}

void KeyNames::merge(const KeyNames& other) {
  for (const auto& [hash, name] : other.by_hash_) by_hash_[hash] = name;
}

std::optional<std::string> key_hash_prefix(std::string_view api_key) {
  // A hex run longer than 12 digits is a longer hash of the same key (Redis keys hold 32).
  const std::size_t run = hex_run(api_key);
  if (run < kKeyHashDigits || (run != api_key.size() && api_key[run] != ':')) return std::nullopt;
  return lower(api_key.substr(0, kKeyHashDigits));
}

bool KeyNames::set(std::string_view hash, std::string name) {
  const std::size_t run = hex_run(hash);
  if (run < kKeyHashDigits || run != hash.size()) return false;
  by_hash_[lower(hash.substr(0, kKeyHashDigits))] = std::move(name);
  return true;
}

void KeyNames::join_key_info(const metrics::SeriesStore& store) {
  auto m = metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal,
                                       std::string(metrics::names::kKeyInfo));
  const std::vector<metrics::LabelMatcher> by_name{*m};
  for (const auto& s : store.select_latest(by_name, std::numeric_limits<std::int64_t>::min(),
                                           std::numeric_limits<std::int64_t>::max())) {
    const std::string_view name = s.labels.get(metrics::names::kName);
    if (!name.empty()) set(s.labels.get(metrics::names::kApiKeyHash), std::string(name));
  }
}

const std::string* KeyNames::find(std::string_view api_key) const {
  if (by_hash_.empty()) return nullptr;
  const auto hash = key_hash_prefix(api_key);
  if (!hash) return nullptr;
  const auto it = by_hash_.find(*hash);
  return it != by_hash_.end() ? &it->second : nullptr;
}

std::string KeyNames::display(std::string_view api_key) const {
  if (const std::string* n = find(api_key)) return *n;
  if (hex_run(api_key) == api_key.size() && api_key.size() > kKeyHashDigits) {
    return lower(api_key.substr(0, kKeyHashDigits));
  }
  return std::string(api_key);
}

Expected<KeyNames> parse_key_names_csv(std::string_view text, std::string_view source) {
  KeyNames out;
  std::size_t line_no = 0;
  std::size_t start = 0;
  const auto fail = [&](const std::string& why) {
    return make_error(std::string(source) + ":" + std::to_string(line_no) + ": " + why);
  };
  while (start < text.size()) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    std::size_t pos = 0;
    const auto hash = csv_field(line, pos);
    if (hash && (pos == 0 || line[pos - 1] != ','))
      return fail("expected two fields, api_key_hash,name");
    const std::size_t name_at = pos;
    const auto name = hash ? csv_field(line, pos) : std::nullopt;
    if (!hash || !name) return fail("malformed CSV (an unterminated or misplaced quote)");
    if (pos < line.size() || (pos > name_at && line[pos - 1] == ',')) {
      return fail("expected two fields, api_key_hash,name");
    }
    if (line_no == 1 && *hash == "api_key_hash") continue;  // the header
    if (name->empty() || name->size() > kMaxKeyNameLength) {
      return fail("a name must be 1 to " + std::to_string(kMaxKeyNameLength) + " characters");
    }
    if (!out.set(*hash, *name)) {
      return fail("\"" + hash->substr(0, 64) + "\" is not an api_key_hash (12 or more hex digits)");
    }
  }
  return out;
}

Expected<KeyNames> load_key_names_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open the key-names file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_key_names_csv(text.str(), path);
}

}  // namespace limitscope
