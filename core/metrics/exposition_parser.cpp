#include "core/metrics/exposition_parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "core/metrics/exposition_lexing.h"
#include "core/metrics/series_hash_set.h"

namespace limitscope::metrics {

namespace {

using namespace exposition_detail;  // NOLINT: the parser's own helpers

class Parser {
 public:
  Parser(std::string_view text, ExpositionVisitor& visitor, const ParseOptions& options)
      : text_(text), visitor_(visitor), limits_(options.limits) {
    report_.format = options.format == ExpositionFormat::kAuto
                         ? detect_format(text, options.content_type)
                         : options.format;
    om_ = report_.format == ExpositionFormat::kOpenMetrics;
    report_.bytes = text.size();
    // About one series per 64 bytes of text at most; sizing the set up front saves rehashing.
    series_.reserve(std::min(text.size() / 64, limits_.max_series));
  }

  ParseReport run() {
    std::size_t pos = 0;
    const std::size_t n = text_.size();
    while (pos < n) {
      const void* nl = std::memchr(text_.data() + pos, '\n', n - pos);
      const std::size_t end =
          nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text_.data()) : n;
      ++line_no_;
      if (eof_seen_) {
        error("content after \"# EOF\" (OpenMetrics ends there)");
        break;
      }
      parse_line(text_.substr(pos, end - pos));
      pos = end + 1;
    }
    report_.lines = line_no_;
    finish_group();
    if (om_ && !eof_seen_) {
      error_at(line_no_ + 1, "missing \"# EOF\" at the end of the OpenMetrics exposition");
    }
    report_.series = series_.size();
    return std::move(report_);
  }

 private:
  void error(std::string message) { error_at(line_no_, std::move(message)); }
  void error_at(std::size_t line, std::string message) {
    ++report_.errors;
    visitor_.on_error(ParseError{line, std::move(message)});
  }

  void parse_line(std::string_view line) {
    if (line.size() > limits_.max_line_length) {
      error("line is " + std::to_string(line.size()) + " bytes, over max_line_length (" +
            std::to_string(limits_.max_line_length) + ")");
      return;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      if (om_) error("empty line (not allowed in OpenMetrics)");
      return;
    }
    if (!om_) {
      std::size_t i = 0;
      while (i < line.size() && is_blank(line[i])) ++i;
      if (i == line.size()) return;
      line.remove_prefix(i);
    }
    if (line[0] == '#') {
      parse_comment(line);
    } else {
      parse_sample(line);
    }
  }

  // --- comments: HELP, TYPE, UNIT, EOF -------------------------------------------------

  static std::string_view next_token(std::string_view line, std::size_t& i) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    return line.substr(start, i - start);
  }

  void parse_comment(std::string_view line) {
    if (om_) {
      if (line == "# EOF") {
        eof_seen_ = true;
        return;
      }
      const bool meta =
          line.starts_with("# HELP ") || line.starts_with("# TYPE ") || line.starts_with("# UNIT ");
      if (!meta) {
        error("invalid comment " + quoted(line) +
              " (OpenMetrics allows only # HELP, # TYPE, # UNIT and # EOF)");
        return;
      }
    }
    std::size_t i = 1;
    const std::string_view keyword = next_token(line, i);
    const bool help = keyword == "HELP";
    const bool type = keyword == "TYPE";
    const bool unit = om_ && keyword == "UNIT";
    if (!help && !type && !unit) return;  // a plain comment in 0.0.4
    const std::string_view name = next_token(line, i);
    if (!valid_metric_name(name)) {
      error("invalid metric name " + quoted(name) + " in # " + std::string(keyword));
      return;
    }
    if (name.size() > limits_.max_metric_name_length) {
      error("metric name over max_metric_name_length (" +
            std::to_string(limits_.max_metric_name_length) + ")");
      return;
    }
    if (help) {
      // The help text is the rest of the line after the blanks that follow the name.
      while (i < line.size() && is_blank(line[i])) ++i;
      const std::string_view text = line.substr(i);
      auto unescaped = unescape_help(text, om_);
      if (!unescaped) {
        error(unescaped.error());
        return;
      }
      const auto fam = first_metadata_line(name, &FamilyState::has_help, keyword);
      if (fam) report_.families[*fam].help = std::move(*unescaped);
      return;
    }
    const std::string_view arg = next_token(line, i);
    const std::string_view extra = next_token(line, i);
    if (!extra.empty()) {
      error("unexpected text " + quoted(extra) + " after # " + std::string(keyword) + " " +
            std::string(name));
      return;
    }
    if (type) {
      auto t = parse_type(arg, om_);
      if (!t) {
        error("unknown metric type " + quoted(arg) + " for " + std::string(name));
        return;
      }
      auto fam = family_for_metadata(name);
      if (!fam) return;
      MetricFamily& f = report_.families[*fam];
      if (f.typed) {
        error("second TYPE line for " + std::string(name));
        return;
      }
      if (states_[*fam].has_samples) {
        error("TYPE line for " + std::string(name) + " after its samples");
        return;
      }
      f.type = *t;
      f.typed = true;
      return;
    }
    // UNIT (OpenMetrics): the family name must end with "_<unit>".
    if (!arg.empty() && !(name.size() > arg.size() + 1 && name.ends_with(arg) &&
                          name[name.size() - arg.size() - 1] == '_')) {
      error("metric " + std::string(name) + " must end with its unit suffix _" + std::string(arg));
      return;
    }
    const auto fam = first_metadata_line(name, &FamilyState::has_unit, keyword);
    if (fam) report_.families[*fam].unit = std::string(arg);
  }

  // The family of a HELP or UNIT line (`keyword`), when it is the family's first such line
  // (`seen` marks it); nullopt, with the error reported, for a second one.
  std::optional<std::size_t> first_metadata_line(std::string_view name, bool FamilyState::*seen,
                                                 std::string_view keyword) {
    const auto fam = family_for_metadata(name);
    if (!fam) return std::nullopt;
    if (states_[*fam].*seen) {
      error("second " + std::string(keyword) + " line for " + std::string(name));
      return std::nullopt;
    }
    states_[*fam].*seen = true;
    return fam;
  }

  // The family a HELP/TYPE/UNIT line talks about, created when new.
  std::optional<std::size_t> family_for_metadata(std::string_view name) {
    auto it = by_name_.find(std::string(name));
    std::size_t fam;
    if (it == by_name_.end()) {
      auto created = create_family(name);
      if (!created) return std::nullopt;
      fam = *created;
    } else {
      fam = it->second;
      if (om_ && fam != current_ && states_[fam].has_samples) {
        error("metadata for " + std::string(name) +
              " after another family (families must not be interleaved)");
        return std::nullopt;
      }
    }
    switch_family(fam);
    return fam;
  }

  std::optional<std::size_t> create_family(std::string_view name) {
    if (report_.families.size() >= limits_.max_families) {
      error("over max_families (" + std::to_string(limits_.max_families) + "); " +
            std::string(name) + " dropped");
      return std::nullopt;
    }
    const std::size_t idx = report_.families.size();
    MetricFamily f;
    f.name = std::string(name);
    report_.families.push_back(std::move(f));
    states_.emplace_back();
    by_name_.emplace(report_.families.back().name, idx);
    return idx;
  }

  void switch_family(std::size_t fam) {
    if (fam == current_) return;
    finish_group();
    current_ = fam;
  }

  // --- samples -----------------------------------------------------------------------

  // Parses `{name="value", ...}` starting at line[i] == '{' into out (values unescaped into
  // scratch_, which was reserved to the line's size so views into it stay valid).
  bool parse_labels(std::string_view line, std::size_t& i, std::vector<LabelView>& out,
                    std::uint64_t* sum, std::uint64_t* le_hash, std::string_view what) {
    ++i;  // '{'
    const std::size_t n = line.size();
    while (true) {
      while (i < n && is_blank(line[i])) ++i;
      if (i >= n) {
        error(std::string("unterminated label set in ") + std::string(what));
        return false;
      }
      if (line[i] == '}') {
        ++i;
        return true;
      }
      if (!kChars.label_start[uc(line[i])]) {
        error(std::string("invalid label name start ") + quoted(line.substr(i, 1)) + " in " +
              std::string(what));
        return false;
      }
      const std::size_t ns = i;
      while (i < n && kChars.label_char[uc(line[i])]) ++i;
      const std::string_view lname = line.substr(ns, i - ns);
      if (lname.size() > limits_.max_label_name_length) {
        error("label name over max_label_name_length (" +
              std::to_string(limits_.max_label_name_length) + ") in " + std::string(what));
        return false;
      }
      while (i < n && is_blank(line[i])) ++i;
      if (i >= n || line[i] != '=') {
        error("expected '=' after label name " + quoted(lname) + " in " + std::string(what));
        return false;
      }
      ++i;
      while (i < n && is_blank(line[i])) ++i;
      if (i >= n || line[i] != '"') {
        error("expected '\"' to open the value of label " + quoted(lname) + " in " +
              std::string(what));
        return false;
      }
      ++i;
      std::string_view value;
      if (!parse_label_value(line, i, value, lname, what)) return false;
      if (out.size() >= limits_.max_labels_per_sample) {
        error("over max_labels_per_sample (" + std::to_string(limits_.max_labels_per_sample) +
              ") in " + std::string(what));
        return false;
      }
      if (lname == "__name__") {
        error(std::string("label __name__ is reserved (in ") + std::string(what) + ")");
        return false;
      }
      for (const auto& l : out) {
        if (l.name == lname) {
          error("duplicate label " + quoted(lname) + " in " + std::string(what));
          return false;
        }
      }
      out.push_back(LabelView{lname, value});
      if (sum) {
        const std::uint64_t h = label_hash(lname, value);
        *sum += h;
        if (lname == "le") *le_hash = h;
      }
      while (i < n && is_blank(line[i])) ++i;
      if (i < n && line[i] == ',') {
        ++i;
        if (om_) {
          std::size_t j = i;
          while (j < n && is_blank(line[j])) ++j;
          if (j < n && line[j] == '}') {
            error(std::string("trailing comma in label set of ") + std::string(what) +
                  " (not allowed in OpenMetrics)");
            return false;
          }
        }
        continue;
      }
      if (i < n && line[i] == '}') {
        ++i;
        return true;
      }
      error(std::string("expected ',' or '}' after label ") + quoted(lname) + " in " +
            std::string(what));
      return false;
    }
  }

  bool parse_label_value(std::string_view line, std::size_t& i, std::string_view& value,
                         std::string_view lname, std::string_view what) {
    const std::size_t n = line.size();
    const std::size_t start = i;
    // Fast path: no escapes, the value is a view into the input. Skip 8 bytes at a time
    // while none of them ends the value or starts an escape.
    while (i + 8 <= n && !has_quote_or_backslash(load64(line.data() + i))) i += 8;
    while (i < n && line[i] != '"' && line[i] != '\\') ++i;
    if (i < n && line[i] == '"') {
      value = line.substr(start, i - start);
      ++i;
    } else {
      const std::size_t out_start = scratch_.size();
      scratch_.append(line.data() + start, i - start);
      while (true) {
        if (i >= n) {
          error("unterminated value of label " + quoted(lname) + " in " + std::string(what));
          return false;
        }
        const char c = line[i];
        if (c == '"') break;
        if (c == '\\') {
          if (i + 1 >= n) {
            error("unterminated value of label " + quoted(lname) + " in " + std::string(what));
            return false;
          }
          const char e = line[i + 1];
          if (e == '\\' || e == '"') {
            scratch_ += e;
          } else if (e == 'n') {
            scratch_ += '\n';
          } else {
            error(std::string("invalid escape sequence \\") + e + " in value of label " +
                  quoted(lname) + " in " + std::string(what));
            return false;
          }
          i += 2;
        } else {
          scratch_ += c;
          ++i;
        }
      }
      ++i;
      value = std::string_view(scratch_).substr(out_start);
    }
    if (value.size() > limits_.max_label_value_length) {
      error("value of label " + quoted(lname) + " over max_label_value_length (" +
            std::to_string(limits_.max_label_value_length) + ") in " + std::string(what));
      return false;
    }
    if (!valid_utf8(value)) {
      // Prometheus refuses these too ("invalid label value"): they cannot be queried or shown.
      error("value of label " + quoted(lname) + " is not valid UTF-8 in " + std::string(what));
      return false;
    }
    return true;
  }

  // Finds (or creates) the family a sample name belongs to and the sample's role in it.
  std::optional<std::size_t> resolve_family(std::string_view name, Role& role) {
    if (current_ != kNone) {
      const MetricFamily& f = report_.families[current_];
      if (name.starts_with(f.name)) {
        if (name.size() == f.name.size()) {
          role = Role::kPlain;
          if (role_allowed(f.type, role)) return current_;
        } else {
          const std::string_view rest = name.substr(f.name.size());
          for (const auto& s : kSuffixes) {
            if (rest == s.text && role_allowed(f.type, s.role)) {
              role = s.role;
              return current_;
            }
          }
        }
      }
    }
    lookup_key_.assign(name);
    auto it = by_name_.find(lookup_key_);
    if (it != by_name_.end() && role_allowed(report_.families[it->second].type, Role::kPlain)) {
      role = Role::kPlain;
      return it->second;
    }
    for (const auto& s : kSuffixes) {
      if (name.size() <= s.text.size() || !name.ends_with(s.text)) continue;
      lookup_key_.assign(name.substr(0, name.size() - s.text.size()));
      auto base = by_name_.find(lookup_key_);
      if (base != by_name_.end() && role_allowed(report_.families[base->second].type, s.role)) {
        role = s.role;
        return base->second;
      }
    }
    if (it != by_name_.end()) {
      error("sample " + std::string(name) + " does not fit the " +
            std::string(type_name(report_.families[it->second].type)) + " family " +
            std::string(name));
      return std::nullopt;
    }
    role = Role::kPlain;
    return create_family(name);
  }

  void parse_sample(std::string_view line) {
    const std::size_t n = line.size();
    std::size_t i = 0;
    if (!kChars.name_start[uc(line[0])]) {
      error("invalid metric name start " + quoted(line.substr(0, 1)));
      return;
    }
    while (i < n && kChars.name_char[uc(line[i])]) ++i;
    const std::string_view name = line.substr(0, i);
    if (name.size() > limits_.max_metric_name_length) {
      error("metric name over max_metric_name_length (" +
            std::to_string(limits_.max_metric_name_length) + ")");
      return;
    }
    labels_.clear();
    scratch_.clear();
    scratch_.reserve(n);  // unescaped values never outgrow the line: views stay valid
    std::uint64_t label_sum = 0;
    std::uint64_t le_hash = 0;
    if (i < n && line[i] == '{') {
      if (!parse_labels(line, i, labels_, &label_sum, &le_hash, name)) return;
    } else if (i < n && !is_blank(line[i])) {
      error("invalid character " + quoted(line.substr(i, 1)) + " after metric name " +
            quoted(name));
      return;
    }
    // value
    if (i >= n || !is_blank(line[i])) {
      error("missing value for " + std::string(name));
      return;
    }
    std::string_view tok = next_token(line, i);
    if (tok.empty()) {
      error("missing value for " + std::string(name));
      return;
    }
    double value = 0;
    if (!parse_double(tok, value)) {
      error("invalid value " + quoted(tok) + " for " + std::string(name));
      return;
    }
    std::optional<std::int64_t> ts;
    tok = next_token(line, i);
    if (!om_ && tok.starts_with('#')) {
      error("unexpected \"#\" after the value of " + std::string(name) +
            " (exemplars need OpenMetrics)");
      return;
    }
    if (!tok.empty() && !(om_ && tok == "#")) {
      if (!parse_timestamp(tok, ts, name)) return;
      tok = next_token(line, i);
    }
    if (!tok.empty()) {
      if (!(om_ && tok == "#")) {
        error("unexpected text " + quoted(tok) + " after the sample " + std::string(name));
        return;
      }
      if (!skip_exemplar(line, i)) return;
    }

    Role role = Role::kPlain;
    auto fam = resolve_family(name, role);
    if (!fam) return;
    if (om_ && *fam != current_ && states_[*fam].has_samples) {
      error("family " + report_.families[*fam].name +
            " continues after another family (families must not be interleaved in OpenMetrics)");
      return;
    }
    switch_family(*fam);
    if (!check_semantics(*fam, role, name, value, label_sum, le_hash)) return;

    const std::uint64_t series_key = mix64(hash_bytes(name)) + label_sum;
    if (series_.size() >= limits_.max_series && !series_.contains(series_key)) {
      error("over max_series (" + std::to_string(limits_.max_series) + "); series " +
            std::string(name) + " dropped");
      return;
    }
    if (!series_.insert(series_key)) {
      error("duplicate series " + std::string(name) + " (same labels as an earlier sample)");
      return;
    }
    states_[*fam].has_samples = true;
    ++report_.samples;
    SampleView s;
    s.name = name;
    s.labels = labels_;
    s.value = value;
    s.timestamp_ms = ts;
    s.line = line_no_;
    s.family = *fam;
    s.family_info = &report_.families[*fam];
    visitor_.on_sample(s);
  }

  bool parse_timestamp(std::string_view tok, std::optional<std::int64_t>& ts,
                       std::string_view name) {
    if (om_) {
      double seconds = 0;
      // 9.2e15 s keeps seconds * 1000 inside int64.
      if (!parse_double(tok, seconds) || !std::isfinite(seconds) || std::fabs(seconds) > 9.2e15) {
        error("invalid timestamp " + quoted(tok) + " for " + std::string(name) +
              " (OpenMetrics: seconds)");
        return false;
      }
      ts = std::llround(seconds * 1000.0);
      return true;
    }
    std::int64_t ms = 0;
    if (!parse_int64(tok, ms)) {
      error("invalid timestamp " + quoted(tok) + " for " + std::string(name) +
            " (integer milliseconds)");
      return false;
    }
    ts = ms;
    return true;
  }

  // OpenMetrics exemplar after " # ": `{labels} value [timestamp]`. Checked, then dropped.
  bool skip_exemplar(std::string_view line, std::size_t& i) {
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i >= line.size() || line[i] != '{') {
      error("exemplar must start with '{' after \" # \"");
      return false;
    }
    exemplar_labels_.clear();
    if (!parse_labels(line, i, exemplar_labels_, nullptr, nullptr, "exemplar")) return false;
    double v = 0;
    std::string_view tok = next_token(line, i);
    if (!parse_double(tok, v)) {
      error("invalid exemplar value " + quoted(tok));
      return false;
    }
    tok = next_token(line, i);
    if (!tok.empty()) {
      std::optional<std::int64_t> ts;
      if (!parse_timestamp(tok, ts, "exemplar")) return false;
    }
    tok = next_token(line, i);
    if (!tok.empty()) {
      error("unexpected text " + quoted(tok) + " after exemplar");
      return false;
    }
    return true;
  }

  const LabelView* find_label(std::string_view lname) const {
    for (const auto& l : labels_) {
      if (l.name == lname) return &l;
    }
    return nullptr;
  }

  // Type rules: counters, bucket ordering, quantiles. On false the sample is dropped.
  bool check_semantics(std::size_t fam, Role role, std::string_view name, double value,
                       std::uint64_t label_sum, std::uint64_t le_hash) {
    const MetricFamily& f = report_.families[fam];
    switch (f.type) {
      case MetricType::kCounter:
        if (om_ && role == Role::kPlain) {
          error("counter sample " + std::string(name) + " needs the _total suffix in OpenMetrics");
          return false;
        }
        if (om_ && role == Role::kTotal && (std::isnan(value) || value < 0)) {
          error("counter " + std::string(name) + " must not be negative or NaN");
          return false;
        }
        return true;
      case MetricType::kSummary:
        if (role == Role::kPlain) {
          const LabelView* q = find_label("quantile");
          double qv = 0;
          if (q == nullptr) {
            error("summary sample " + std::string(name) + " needs a quantile label");
            return false;
          }
          if (!parse_double(q->value, qv) || !(qv >= 0 && qv <= 1)) {
            error("invalid quantile " + quoted(q->value) + " for " + std::string(name) +
                  " (must be in [0, 1])");
            return false;
          }
        }
        if (role == Role::kCount && (std::isnan(value) || value < 0)) {
          error("count " + std::string(name) + " must not be negative or NaN");
          return false;
        }
        return true;
      case MetricType::kHistogram:
      case MetricType::kGaugeHistogram:
        if (role == Role::kBucket) return check_bucket(fam, name, value, label_sum, le_hash);
        if ((role == Role::kCount || role == Role::kGCount) && (std::isnan(value) || value < 0)) {
          error("count " + std::string(name) + " must not be negative or NaN");
          return false;
        }
        return true;
      default:
        return true;
    }
  }

  bool check_bucket(std::size_t fam, std::string_view name, double value, std::uint64_t label_sum,
                    std::uint64_t le_hash) {
    const LabelView* le = find_label("le");
    double bound = 0;
    if (le == nullptr) {
      error("histogram bucket " + std::string(name) + " needs an le label");
      return false;
    }
    if (!parse_double(le->value, bound) || std::isnan(bound)) {
      error("invalid le " + quoted(le->value) + " for " + std::string(name));
      return false;
    }
    if (std::isnan(value) || value < 0) {
      error("bucket count of " + std::string(name) + " must not be negative or NaN");
      return false;
    }
    const std::uint64_t key = mix64(fam + 1) + (label_sum - le_hash);
    if (!group_.active || group_.key != key || group_.family != fam) {
      finish_group();
      group_ = BucketGroup{true, key, bound, value, std::isinf(bound) && bound > 0, line_no_, fam};
      return true;
    }
    if (!(bound > group_.last_le)) {
      error("bucket le=" + quoted(le->value) + " of " + std::string(name) +
            " is not above the previous bucket's le (buckets must be in increasing le order)");
      return false;
    }
    if (value < group_.last_count) {
      error("bucket le=" + quoted(le->value) + " of " + std::string(name) +
            " counts less than the previous bucket (buckets are cumulative)");
      return false;
    }
    group_.last_le = bound;
    group_.last_count = value;
    group_.saw_inf = group_.saw_inf || (std::isinf(bound) && bound > 0);
    group_.last_line = line_no_;
    return true;
  }

  void finish_group() {
    if (group_.active && !group_.saw_inf) {
      error_at(group_.last_line, "histogram " + report_.families[group_.family].name +
                                     " has no le=\"+Inf\" bucket for the series ending here");
    }
    group_.active = false;
  }

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  std::string_view text_;
  ExpositionVisitor& visitor_;
  ParseLimits limits_;
  ParseReport report_;
  bool om_ = false;
  bool eof_seen_ = false;
  std::size_t line_no_ = 0;
  std::size_t current_ = kNone;
  std::vector<FamilyState> states_;
  std::unordered_map<std::string, std::size_t> by_name_;
  SeriesHashSet series_;
  BucketGroup group_;
  // Reused across lines so a sample costs no allocation once they have grown.
  std::vector<LabelView> labels_;
  std::vector<LabelView> exemplar_labels_;
  std::string scratch_;
  std::string lookup_key_;
};

}  // namespace

ParseReport parse_exposition(std::string_view text, ExpositionVisitor& visitor,
                             const ParseOptions& options) {
  Parser parser(text, visitor, options);
  return parser.run();
}

}  // namespace limitscope::metrics
