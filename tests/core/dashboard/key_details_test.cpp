// Verifies the key details pane's words: the heading names the key, its tier, model and limit;
// the key's identity shows only when its name differs; a shard shows on a cluster; the level
// reads "level X of C (P%)" with a capacity in whole units or up to three decimals, or says the
// source does not report it; a figure the source does not report reads "—", never 0; the fixed
// window's caveat is a note; and the caller's number format is used for amounts.
#include "core/dashboard/key_details.h"

#include <gtest/gtest.h>

namespace limitscope {
namespace {

KeyRow row() {
  KeyRow r;
  r.api_key = "0123456789ab:gpt-4.1";
  r.tier = "pro";
  r.model = "gpt-4.1";
  r.parameters = "token-bucket capacity=1500 refill=25/s";
  r.algorithm = "token-bucket";
  r.level = 0.4;
  r.capacity = 1500;
  r.requests_per_s = 12.34;
  r.rejected_per_s = 0.5;
  r.peak_rejected_per_s = 3.26;
  r.spend = 1234.5;
  r.quota_burn = 0.123;
  return r;
}

TEST(KeyDetails, EverythingTheSourceReports) {
  const KeyDetails d = key_details(row(), "acme-prod");
  EXPECT_EQ(d.name, "acme-prod");
  EXPECT_EQ(d.heading, " · pro · gpt-4.1");
  ASSERT_EQ(d.lines.size(), 3u);
  EXPECT_EQ(d.lines[0], "Key: 0123456789ab:gpt-4.1");
  EXPECT_EQ(d.lines[1],
            "Limit: token-bucket capacity=1500 refill=25/s · level 600 of 1,500 (40.0%)");
  EXPECT_EQ(d.lines[2],
            "Requests 12.3/s · 429 0.5/s (peak 3.3/s) · spend $1234.50 · quota burn 12.3%");
  EXPECT_EQ(d.note, "");
}

TEST(KeyDetails, WhatIsNotReportedReadsADashAndTheShardAndLimitShow) {
  KeyRow r = row();
  r.name = r.api_key;
  r.limit = "llm_tokens";
  r.node = "10.0.0.7:7001";
  r.capacity = 59.5;
  r.level = 0.5;
  r.rates_reported = false;
  r.spend_reported = false;
  r.quota_reported = false;
  r.peak_rejected_per_s.reset();
  r.algorithm = "fixed-window";
  const KeyDetails d = key_details(r, r.api_key);
  EXPECT_EQ(d.heading, " · pro · gpt-4.1 · llm_tokens");
  ASSERT_EQ(d.lines.size(), 3u);  // no "Key:" line: the name is the key
  EXPECT_EQ(d.lines[0], "Shard: 10.0.0.7:7001");
  EXPECT_EQ(d.lines[1],
            "Limit: token-bucket capacity=1500 refill=25/s · level 29.8 of 59.5 (50.0%)");
  EXPECT_EQ(d.lines[2], "Requests —/s · 429 —/s (peak —/s) · spend — · quota burn —");
  EXPECT_EQ(d.note, "Fixed window: up to twice the limit can pass across a window boundary.");
  r.capacity = 0;
  EXPECT_EQ(key_details(r, "x").lines[2],
            "Limit: token-bucket capacity=1500 refill=25/s · level not reported by this source "
            "(rates only)");
}

TEST(KeyDetails, AmountsUseTheCallersFormat) {
  const AmountText dotted = [](double v, int decimals) {
    std::string s = english_amount(v, decimals);
    for (char& c : s) c = c == ',' ? '.' : c == '.' ? ',' : c;
    return s;
  };
  EXPECT_EQ(key_details(row(), "a", dotted).lines[1],
            "Limit: token-bucket capacity=1500 refill=25/s · level 600 of 1.500 (40.0%)");
  EXPECT_EQ(capacity_text(1e6), "1,000,000");
  EXPECT_EQ(capacity_text(2.125), "2.125");
  EXPECT_EQ(capacity_text(2.5), "2.5");
}

}  // namespace
}  // namespace limitscope
