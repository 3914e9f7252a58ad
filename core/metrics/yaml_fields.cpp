#include "core/metrics/yaml_fields.h"

#include <nlohmann/json.hpp>
#include <set>

namespace limitscope::metrics::yamlx {

namespace {

YAML::Node from_json(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      YAML::Node n(YAML::NodeType::Map);
      for (const auto& [k, v] : j.items()) n[k] = from_json(v);
      return n;
    }
    case nlohmann::json::value_t::array: {
      YAML::Node n(YAML::NodeType::Sequence);
      for (const auto& v : j) n.push_back(from_json(v));
      return n;
    }
    case nlohmann::json::value_t::null:
      return YAML::Node(YAML::NodeType::Null);
    case nlohmann::json::value_t::string:
      return YAML::Node(j.get<std::string>());
    default:
      return YAML::Node(j.dump());  // numbers and booleans keep their JSON spelling
  }
}

}  // namespace

int line_of(const YAML::Node& n) {
  if (!n.IsDefined()) return 0;
  const YAML::Mark m = n.Mark();
  return m.line >= 0 ? m.line + 1 : 0;
}

std::string at(const YAML::Node& n) {
  const int l = line_of(n);
  return l > 0 ? "line " + std::to_string(l) + ": " : "";
}

Expected<YAML::Node> load(std::string_view text, std::string_view name, bool json) {
  if (json) {
    try {
      return from_json(nlohmann::json::parse(text.begin(), text.end()));
    } catch (const nlohmann::json::exception& e) {
      return make_error(std::string(name) + ": invalid JSON: " + e.what());
    }
  }
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return make_error(std::string(name) + ":" + std::to_string(e.mark.line + 1) +
                      ": invalid YAML: " + e.msg);
  }
}

Status check_keys(const YAML::Node& n, std::initializer_list<std::string_view> allowed,
                  std::string_view type) {
  if (!n.IsDefined() || n.IsNull()) return {};
  if (!n.IsMap()) return make_error(at(n) + "expected a mapping for " + std::string(type));
  std::set<std::string> seen;
  for (const auto& kv : n) {
    if (!kv.first.IsScalar()) {
      return make_error(at(kv.first) + "non-scalar key in " + std::string(type));
    }
    const std::string key = kv.first.Scalar();
    bool known = false;
    for (std::string_view a : allowed) known = known || a == key;
    if (!known)
      return make_error(at(kv.first) + "field " + key + " not found in " + std::string(type));
    if (!seen.insert(key).second) {
      return make_error(at(kv.first) + "mapping key \"" + key + "\" already defined");
    }
  }
  return {};
}

Expected<std::string> scalar(const YAML::Node& n, std::string_view field) {
  if (!n.IsDefined() || n.IsNull()) return std::string();
  if (!n.IsScalar()) {
    return make_error(at(n) + "field " + std::string(field) + " must be a single value");
  }
  return n.Scalar();
}

}  // namespace limitscope::metrics::yamlx
