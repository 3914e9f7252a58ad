#pragma once
// A finished result as the dashboard shows it: a verdict line over a table of rows, already
// formatted (units, names, examples), so widgets only display it and the CLI's tests and the
// GUI's read the same words. Audits (core/audit/audit_tables.h) and the Tuner's what-if
// scenarios (core/tuner/scenario_tables.h) produce them.

#include <string>
#include <vector>

namespace limitscope {

struct ResultTable {
  struct Row {
    std::vector<std::string> cells;  ///< one per column
    bool flagged = false;            ///< this row is a finding (a leak, a lie, a skewed clock)
    std::string detail;              ///< examples and explanations (a tooltip), or ""
  };
  std::string title;
  std::string verdict;   ///< one line: what the result says
  bool problem = false;  ///< the verdict is a finding
  std::vector<std::string> columns;
  std::vector<Row> rows;
  std::vector<std::string> notes;  ///< under the table
};

/// `v` with `decimals` digits after the point ("1.50"); "-" for NaN.
std::string format_number(double v, int decimals);
/// "$0.42", "$12.40", "$1234" (whole dollars from $100), "-$3.10".
std::string format_dollars(double v);
/// A duration in seconds as a person reads it: "0.4 ms", "12.5 ms" under a second, else
/// "3.20 s", "95 s".
std::string format_seconds(double s);
/// A signed difference: "+3", "-2", "0".
std::string format_signed(long long v);

}  // namespace limitscope
