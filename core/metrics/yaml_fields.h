#pragma once
// Internal to core/metrics (yaml-cpp is a private dependency of limitscope_core): strict
// reading of YAML (or JSON converted to YAML nodes) the way Go's yaml.UnmarshalStrict reads
// Prometheus's files: unknown or repeated keys are errors, scalars must be scalars.

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "core/common/expected.h"

namespace limitscope::metrics::yamlx {

/// 1-based line of a node, 0 when unknown (nodes built from JSON).
int line_of(const YAML::Node& n);

/// Parses YAML, or JSON (through nlohmann::json, then converted) when json is true.
/// @return the root node, or "NAME:LINE: REASON".
Expected<YAML::Node> load(std::string_view text, std::string_view name, bool json);

/// Checks that n is a mapping (or null) whose keys are all in allowed and appear once.
/// @param type names the structure in errors ("rule group").
/// @return ok, or "line L: field K not found in TYPE" or similar.
Status check_keys(const YAML::Node& n, std::initializer_list<std::string_view> allowed,
                  std::string_view type);

/// Reads a scalar as text. @return its text ("" for null/absent), or an error when n is a
/// list or map.
Expected<std::string> scalar(const YAML::Node& n, std::string_view field);

/// "line L: " when the line is known, else "".
std::string at(const YAML::Node& n);

}  // namespace limitscope::metrics::yamlx
