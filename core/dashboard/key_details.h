#pragma once
// The dashboard's key details pane in words: for the selected key row, its name and where it
// lives, its limit and level, its rates, spend and quota burn (what the source does not report
// reads "—", never 0), and the fixed window's caveat. Plain text in parts the pane lays out
// (bold heading, lines, an italic note); numbers are formatted by the caller's `AmountText`
// (the user's locale in the GUI).

#include <functional>
#include <string>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"

namespace limitscope {

/// `v` with `decimals` decimals, thousands grouped ("1,000,000", "59.5").
using AmountText = std::function<std::string(double v, int decimals)>;

/// AmountText in English: "," groups thousands, "." marks decimals.
std::string english_amount(double v, int decimals);

/// A capacity or limit: whole numbers without decimals, fractions with up to three ("59.5").
std::string capacity_text(double v, const AmountText& amount = english_amount);

struct KeyDetails {
  std::string name;                ///< the heading's first part, shown strong
  std::string heading;             ///< the rest of the heading: " · tier · model[ · limit]"
  std::vector<std::string> lines;  ///< "Key: …", "Shard: …", "Limit: … · level …", "Requests …"
  std::string note;                ///< the caveat of the algorithm, or ""
};

/// @param name what the operator calls the key (the key table's name column)
KeyDetails key_details(const KeyRow& row, const std::string& name,
                       const AmountText& amount = english_amount);

}  // namespace limitscope
