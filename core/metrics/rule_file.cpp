#include "core/metrics/rule_file.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "core/common/bounded_read.h"
#include "core/metrics/prom_duration.h"
#include "core/metrics/promql.h"
#include "core/metrics/yaml_fields.h"

namespace limitscope::metrics {

bool is_valid_metric_name(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
                    (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

bool is_valid_label_name(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                    (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

namespace {

using yamlx::at;

// Collects every problem of a file; the first is reported, with a count of the rest.
class RuleFileReader {
 public:
  explicit RuleFileReader(std::string_view name) : name_(name) {}

  Expected<RuleFile> read(const YAML::Node& root) {
    RuleFile file;
    file.path = name_;
    if (Status st = yamlx::check_keys(root, {"groups"}, "rulefmt.RuleGroups"); !st.ok()) {
      add(root, "", st.error());
      return finish(std::move(file));
    }
    const YAML::Node groups = root.IsMap() ? root["groups"] : YAML::Node();
    if (groups.IsDefined() && !groups.IsNull() && !groups.IsSequence()) {
      add(groups, "", "groups must be a list");
      return finish(std::move(file));
    }
    std::set<std::string> names;
    if (groups.IsDefined() && groups.IsSequence()) {
      for (const auto& g : groups) {
        RuleGroup group;
        if (read_group(g, group)) {
          if (!names.insert(group.name).second) {
            add(g, "", "groupname: \"" + group.name + "\" is repeated in the same file");
          }
          file.groups.push_back(std::move(group));
        }
      }
    }
    return finish(std::move(file));
  }

 private:
  Expected<RuleFile> finish(RuleFile file) {
    if (errors_.empty()) return file;
    std::string msg = errors_.front();
    if (errors_.size() > 1) msg += " (and " + std::to_string(errors_.size() - 1) + " more errors)";
    return make_error(msg);
  }

  // where: `group "G", rule N ("X")` or "" for file-level problems.
  void add(const YAML::Node& n, const std::string& where, const std::string& reason) {
    const int line = yamlx::line_of(n);
    std::string msg = name_;
    if (line > 0) msg += ":" + std::to_string(line);
    msg += ": ";
    if (!where.empty()) msg += where + ": ";
    // check_keys prefixes "line L: "; the line is already in front.
    std::string r = reason;
    if (r.rfind("line ", 0) == 0) {
      const std::size_t colon = r.find(": ");
      if (colon != std::string::npos) {
        msg = name_ + ":" + r.substr(5, colon - 5) + ": " + (where.empty() ? "" : where + ": ");
        r = r.substr(colon + 2);
      }
    }
    errors_.push_back(msg + r);
  }

  bool read_group(const YAML::Node& g, RuleGroup& group) {
    group.file = name_;
    if (Status st =
            yamlx::check_keys(g, {"name", "interval", "limit", "rules"}, "rulefmt.RuleGroup");
        !st.ok()) {
      add(g, "", st.error());
      return false;
    }
    if (!g.IsMap()) {
      add(g, "", "a group must be a mapping with name and rules");
      return false;
    }
    auto name = yamlx::scalar(g["name"], "name");
    if (!name) add(g, "", name.error());
    group.name = name ? *name : std::string();
    const std::string where = "group \"" + group.name + "\"";
    if (group.name.empty()) add(g, "", "Groupname must not be empty");
    if (auto text = yamlx::scalar(g["interval"], "interval"); !text) {
      add(g["interval"], where, text.error());
    } else if (!text->empty()) {
      auto d = parse_prom_duration(*text);
      if (!d.ok()) {
        add(g["interval"], where, "bad interval: " + d.error());
      } else {
        group.interval_ms = *d;
      }
    }
    if (auto text = yamlx::scalar(g["limit"], "limit"); !text) {
      add(g["limit"], where, text.error());
    } else if (!text->empty()) {
      try {
        std::size_t used = 0;
        const long long v = std::stoll(*text, &used);
        if (used != text->size() || v < 0) throw std::invalid_argument("limit");
        group.limit = static_cast<std::size_t>(v);
      } catch (const std::exception&) {
        add(g["limit"], where, "limit must be a non-negative integer, got \"" + *text + "\"");
      }
    }
    const YAML::Node rules = g["rules"];
    if (rules.IsDefined() && !rules.IsNull() && !rules.IsSequence()) {
      add(rules, where, "rules must be a list");
      return true;
    }
    if (rules.IsDefined() && rules.IsSequence()) {
      std::size_t index = 0;
      for (const auto& r : rules) {
        ++index;
        Rule rule;
        if (read_rule(r, where, index, rule)) group.rules.push_back(std::move(rule));
      }
    }
    return true;
  }

  bool read_rule(const YAML::Node& r, const std::string& group_where, std::size_t index,
                 Rule& rule) {
    std::string where = group_where + ", rule " + std::to_string(index);
    if (Status st = yamlx::check_keys(
            r, {"record", "alert", "expr", "for", "keep_firing_for", "labels", "annotations"},
            "rulefmt.RuleNode");
        !st.ok()) {
      add(r, where, st.error());
      return false;
    }
    if (!r.IsMap()) {
      add(r, where, "a rule must be a mapping");
      return false;
    }
    rule.line = yamlx::line_of(r);
    const std::size_t errors_before = errors_.size();
    std::string record, alert, expr, for_text, keep_text;
    for (auto [field, out] :
         {std::pair{"record", &record}, std::pair{"alert", &alert}, std::pair{"expr", &expr},
          std::pair{"for", &for_text}, std::pair{"keep_firing_for", &keep_text}}) {
      auto text = yamlx::scalar(r[field], field);
      if (!text) add(r[field], where, text.error());
      *out = text ? std::move(*text) : std::string();
    }
    rule.kind = record.empty() ? RuleKind::alerting : RuleKind::recording;
    rule.name = record.empty() ? alert : record;
    if (!rule.name.empty()) where += " (\"" + rule.name + "\")";
    if (!record.empty() && !alert.empty())
      add(r, where, "only one of 'record' and 'alert' must be set");
    if (record.empty() && alert.empty()) add(r, where, "one of 'record' or 'alert' must be set");
    rule.expr_text = expr;
    if (expr.empty()) {
      add(r, where, "field 'expr' must be set in rule");
    } else {
      auto parsed = parse_promql(expr);
      if (!parsed.ok()) {
        add(r["expr"], where, "could not parse expression: " + parsed.error());
      } else if ((*parsed)->type != ValueType::instant_vector &&
                 (*parsed)->type != ValueType::scalar) {
        add(r["expr"], where,
            "expression must return an instant vector or a scalar, not a " +
                std::string(value_type_name((*parsed)->type)));
      } else {
        rule.expr = *parsed;
      }
    }
    if (rule.kind == RuleKind::recording) {
      if (!is_valid_metric_name(record))
        add(r["record"], where, "invalid recording rule name: " + record);
      if (r["annotations"].IsDefined() && !r["annotations"].IsNull()) {
        add(r["annotations"], where, "invalid field 'annotations' in recording rule");
      }
      if (!for_text.empty()) add(r["for"], where, "invalid field 'for' in recording rule");
      if (!keep_text.empty()) {
        add(r["keep_firing_for"], where, "invalid field 'keep_firing_for' in recording rule");
      }
    }
    for (auto [text, out, field] :
         {std::tuple{&for_text, &rule.for_ms, "for"},
          std::tuple{&keep_text, &rule.keep_firing_for_ms, "keep_firing_for"}}) {
      if (text->empty()) continue;
      auto d = parse_prom_duration(*text);
      if (!d.ok()) {
        add(r[field], where, std::string("bad '") + field + "' duration: " + d.error());
      } else {
        *out = *d;
      }
    }
    read_pairs(r["labels"], where, "labels", rule.kind == RuleKind::alerting, rule.labels);
    if (rule.kind == RuleKind::alerting) {
      read_pairs(r["annotations"], where, "annotations", true, rule.annotations);
    }
    return errors_.size() == errors_before;
  }

  void read_pairs(const YAML::Node& n, const std::string& where, const std::string& field,
                  bool templated, std::vector<TemplatedPair>& out) {
    if (!n.IsDefined() || n.IsNull()) return;
    if (!n.IsMap()) {
      add(n, where, field + " must be a mapping of names to values");
      return;
    }
    std::set<std::string> seen;
    for (const auto& kv : n) {
      std::string key;
      if (!kv.first.IsScalar()) {
        add(kv.first, where, field + " names must be plain strings");
        continue;
      }
      key = kv.first.Scalar();
      auto scalar = yamlx::scalar(kv.second, field + "." + key);
      if (!scalar) {
        add(kv.second, where, scalar.error());
        continue;
      }
      const std::string& value = *scalar;
      if (!seen.insert(key).second) {
        add(kv.first, where, "mapping key \"" + key + "\" already defined");
        continue;
      }
      const bool is_label = field == "labels";
      if (!is_valid_label_name(key) || (is_label && key == "__name__")) {
        add(kv.first, where,
            std::string(is_label ? "invalid label name: " : "invalid annotation name: ") + key);
        continue;
      }
      TemplatedPair p;
      p.name = key;
      p.text = value;
      // Recording-rule labels are literal; an alerting rule's are templates parsed now.
      if (templated) {
        auto t = AlertTemplate::parse(value, field + "." + key);
        if (!t.ok()) {
          add(kv.second, where, t.error());
          continue;
        }
        p.tmpl = std::move(*t);
      }
      out.push_back(std::move(p));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  }

  std::string name_;
  std::vector<std::string> errors_;
};

}  // namespace

Expected<RuleFile> parse_rule_file(std::string_view text, std::string_view name,
                                   RuleFileFormat format) {
  bool json = format == RuleFileFormat::json;
  if (format == RuleFileFormat::automatic) {
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    json = first != std::string_view::npos && text[first] == '{';
  }
  auto root = yamlx::load(text, name, json);
  if (!root.ok()) return make_error(root.error());
  return RuleFileReader(name).read(*root);
}

Expected<RuleFile> load_rule_file(const std::string& path) {
  auto text = read_file_bounded(path, kMaxRuleFileBytes, "rule file");
  if (!text) return make_error(text.error());
  const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  return parse_rule_file(*text, path, json ? RuleFileFormat::json : RuleFileFormat::yaml);
}

}  // namespace limitscope::metrics
