// Verifies what audits call a key: a hash-led label (api_key_hash, a Redis identity) takes the
// tenant's name from the policy, the key-names file or limitscope_key_info; a label that is a
// raw key the policy lists is shown by its hash, with its name, never as itself; any other
// label is shown as written.

#include "core/audit/audit_names.h"

#include <gtest/gtest.h>

#include "core/common/sha256.h"
#include "named_test_policy.h"

namespace limitscope::test {
namespace {

TEST(AuditNames, LabelsAreNamedAndRawKeysNeverShown) {
  const Policy policy = named_test_policy();
  KeyNames names = audit::policy_key_names(policy);
  ASSERT_TRUE(names.set("0123456789abcdef", "from-file"));
  const std::string acme = api_key_hash("sk-acme");
  struct Row {
    std::string label, key, name;
  };
  const Row rows[] = {
      {acme, acme, "acme-prod"},  // api_key_hash
      {sha256_hex("sk-acme").substr(0, 32) + ":m", sha256_hex("sk-acme").substr(0, 32) + ":m",
       "acme-prod"},
      {"sk-acme", acme, "acme-prod"},            // a raw key: its hash
      {"sk-anon", api_key_hash("sk-anon"), ""},  // raw, unnamed: still hashed
      {"0123456789abcdef:m", "0123456789abcdef:m", "from-file"},
      {"tenant-a", "tenant-a", ""},  // not a key we know
  };
  for (const Row& r : rows) {
    const auto shown = audit::show_key(r.label, names, &policy);
    EXPECT_EQ(shown.key, r.key) << r.label;
    EXPECT_EQ(shown.name, r.name) << r.label;
  }
  // Without a policy nothing is known to be a raw key.
  EXPECT_EQ(audit::show_key("sk-acme", names, nullptr).key, "sk-acme");
}

TEST(AuditNames, KeyInfoOfAScrapeNamesKeys) {
  auto scrape = probe::parse_scrape(
      "limitscope_key_info{api_key_hash=\"aaaaaaaaaaaa\",name=\"acme\",tier=\"free\"} 1\n"
      "limitscope_key_info{api_key_hash=\"bbbbbbbbbbbb\",name=\"\",tier=\"free\"} 1\n"
      "other{api_key_hash=\"cccccccccccc\",name=\"no\"} 1\n",
      "text/plain", 0, "test");
  ASSERT_TRUE(scrape.ok()) << scrape.error();
  KeyNames names;
  audit::add_key_info(names, *scrape);
  EXPECT_EQ(names.size(), 1u);
  ASSERT_NE(names.find("aaaaaaaaaaaa"), nullptr);
  EXPECT_EQ(*names.find("aaaaaaaaaaaa"), "acme");
  KeyNames over;
  ASSERT_TRUE(over.set("aaaaaaaaaaaa", "acme-renamed"));
  names.merge(over);
  EXPECT_EQ(*names.find("aaaaaaaaaaaa"), "acme-renamed");
}

}  // namespace
}  // namespace limitscope::test
