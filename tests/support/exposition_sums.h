#pragma once
// Sums the samples of one series name in an exposition text, optionally only those whose
// labels match, so gateway tests compare /metrics with what a client saw.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace limitscope::test {

using LabelMatch = std::vector<std::pair<std::string, std::string>>;

/// Sum of the values of samples named `name` whose labels include every pair of `match`;
/// fails the current test (and returns -1) when the text does not parse.
double sum_samples(std::string_view text, std::string_view name, const LabelMatch& match = {});

/// The value of label `label` on the first sample named `name`, or "" when there is none.
std::string first_label(std::string_view text, std::string_view name, std::string_view label);

}  // namespace limitscope::test
