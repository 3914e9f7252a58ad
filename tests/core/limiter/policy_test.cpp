// Verifies that policies parse, that every invalid value is refused with source, JSON path and
// reason, and that the embedded default policy holds DESIGN.md's numbers.

#include "core/limiter/policy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace limitscope {
namespace {

using nlohmann::json;

// A small valid policy; each bad row below changes one value of it.
const char* const kBase = R"({
  "version": 1,
  "default_tier": "free",
  "tiers": {
    "free": { "requests": { "algorithm": "token-bucket", "capacity": 20, "refill": "1/s" },
              "daily_quota": 1000 },
    "team": { "requests": { "algorithm": "sliding-log", "limit": 100, "window": "1m" } }
  },
  "models": {
    "small": { "cost": 1, "price_per_million_tokens": 0.5 },
    "big": { "cost": 10 },
    "openai/gpt-4.1": { "cost": 8, "price_per_million_tokens": 8 }
  },
  "keys": { "k-free": "free", "k-team": "team" }
})";

TEST(PolicyParse, ReadsTiersModelsKeys) {
  auto p = parse_policy(kBase, "base.json");
  ASSERT_TRUE(p.ok()) << p.error();
  ASSERT_EQ(p->tiers.size(), 2u);
  const TierPolicy* free = p->find_tier("free");
  ASSERT_NE(free, nullptr);
  EXPECT_EQ(free->requests.algorithm, Algorithm::token_bucket);
  EXPECT_EQ(free->requests.capacity, 20);
  EXPECT_DOUBLE_EQ(free->requests.refill.per_second(), 1);
  EXPECT_EQ(free->daily_quota, 1000);
  const TierPolicy* team = p->find_tier("team");
  ASSERT_NE(team, nullptr);
  EXPECT_EQ(team->requests.algorithm, Algorithm::sliding_log);
  EXPECT_EQ(team->requests.limit, 100);
  EXPECT_EQ(team->requests.window, Nanos{60'000'000'000});
  EXPECT_FALSE(team->daily_quota.has_value());
  EXPECT_EQ(p->model_cost("big").value(), 10);
  EXPECT_EQ(p->model("big").value()->price_per_million_tokens, 0);
  EXPECT_DOUBLE_EQ(p->price_of_tokens("small", 2'000'000).value(), 1.0);
  EXPECT_EQ(p->model_cost("openai/gpt-4.1").value(), 8);
}

TEST(PolicyParse, LlmTokensLimitIsOptionalAndReadNextToRequests) {
  json doc = json::parse(kBase);
  doc["tiers"]["free"]["llm_tokens"] =
      json::parse(R"({"algorithm": "token-bucket", "capacity": 30000, "refill": "30000/min"})");
  auto p = parse_policy(doc.dump(), "tpm.json");
  ASSERT_TRUE(p.ok()) << p.error();
  const TierPolicy* free = p->find_tier("free");
  ASSERT_TRUE(free->llm_tokens.has_value());
  EXPECT_EQ(free->llm_tokens->capacity, 30000);
  EXPECT_DOUBLE_EQ(free->llm_tokens->refill.per_second(), 500);
  EXPECT_FALSE(p->find_tier("team")->llm_tokens.has_value());
}

TEST(PolicyParse, KeysMayCarryANameBesideTheirTier) {
  json doc = json::parse(kBase);
  doc["keys"]["k-acme"] = json{{"tier", "team"}, {"name", "acme-prod"}};
  doc["keys"]["k-bare"] = json{{"tier", "free"}};
  auto p = parse_policy(doc.dump(), "named.json");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->tier_for_key("k-acme")->name, "team");
  EXPECT_EQ(p->tier_for_key("k-bare")->name, "free");
  EXPECT_EQ(p->tier_for_key("k-free")->name, "free");  // the plain "key": "tier" form
  ASSERT_EQ(p->key_names.size(), 1u);
  EXPECT_EQ(p->key_names.at("k-acme"), "acme-prod");
}

TEST(PolicyParse, TierComesFromThePolicyAndUnknownKeysGetTheDefault) {
  auto p = parse_policy(kBase, "base.json");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->tier_for_key("k-team")->name, "team");
  EXPECT_EQ(p->tier_for_key("k-free")->name, "free");
  EXPECT_EQ(p->tier_for_key("never-listed")->name, "free");
  EXPECT_EQ(p->tier_for_key("team")->name, "free");  // a tier name is not a key

  json doc = json::parse(kBase);
  doc.erase("default_tier");
  auto strict = parse_policy(doc.dump(), "strict.json");
  ASSERT_TRUE(strict.ok()) << strict.error();
  EXPECT_EQ(strict->tier_for_key("never-listed"), nullptr);
  EXPECT_FALSE(strict->tier_index_for_key("never-listed").has_value());
  EXPECT_EQ(strict->tier_for_key("k-team")->name, "team");
}

TEST(PolicyParse, UnknownModelIsAClearError) {
  auto p = parse_policy(kBase, "base.json");
  ASSERT_TRUE(p.ok()) << p.error();
  auto m = p->model_cost("gpt-9");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("unknown model \"gpt-9\""), std::string::npos) << m.error();
  EXPECT_NE(m.error().find("big, openai/gpt-4.1, small"), std::string::npos) << m.error();
  EXPECT_FALSE(p->price_of_tokens("gpt-9", 1).ok());
  EXPECT_FALSE(p->model_index("gpt-9").has_value());
}

// One refusal of tests/data/policy/refusals.json: the member at `pointer` replaced by `value`
// (deleted when the row has none) must be refused naming `path` (default: `pointer`) and
// containing `reason`.
struct BadRow {
  json row;
};

void PrintTo(const BadRow& r, std::ostream* os) {
  *os << r.row.dump();
}

std::vector<BadRow> bad_rows() {
  std::ifstream in(test::data_path("policy/refusals.json"));
  const json rows = json::parse(in, nullptr, /*allow_exceptions=*/false);
  std::vector<BadRow> out;
  if (rows.is_array()) {
    for (const json& row : rows) out.push_back(BadRow{row});
  }
  return out;
}

TEST(PolicyRefuses, TableOfRefusalsIsComplete) {
  EXPECT_EQ(bad_rows().size(), 47u) << test::data_path("policy/refusals.json");
}

class PolicyRefuses : public ::testing::TestWithParam<BadRow> {};

TEST_P(PolicyRefuses, NamesSourcePathAndReason) {
  const json& row = GetParam().row;
  const std::string pointer = row.at("pointer").get<std::string>();
  const std::string path = row.value("path", pointer);
  json doc = json::parse(kBase);
  const json::json_pointer ptr(pointer);
  if (!row.contains("value")) {
    doc[ptr.parent_pointer()].erase(ptr.back());
  } else {
    doc[ptr] = row.at("value");
  }
  auto p = parse_policy(doc.dump(2), "bad.json");
  ASSERT_FALSE(p.ok()) << row.dump();
  const std::string& e = p.error();
  EXPECT_EQ(e.rfind("bad.json: ", 0), 0u) << e;
  EXPECT_NE(e.find(path + ": "), std::string::npos) << e;
  EXPECT_NE(e.find(row.at("reason").get<std::string>()), std::string::npos) << e;
}

INSTANTIATE_TEST_SUITE_P(Values, PolicyRefuses, ::testing::ValuesIn(bad_rows()));

TEST(PolicyRefuses, WrongRootType) {
  auto p = parse_policy("[1, 2]", "list.json");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error(), "list.json: document root: the document must be a JSON object, got array");
}

struct MalformedRow {
  const char* text;
  const char* where;   // "line:column" the error must name
  const char* reason;  // fragment of the reason
};

class PolicyMalformed : public ::testing::TestWithParam<MalformedRow> {};

TEST_P(PolicyMalformed, NamesLineAndColumn) {
  auto p = parse_policy(GetParam().text, "broken.json");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().rfind(std::string("broken.json:") + GetParam().where + ": ", 0), 0u)
      << p.error();
  EXPECT_NE(p.error().find(GetParam().reason), std::string::npos) << p.error();
}

INSTANTIATE_TEST_SUITE_P(
    Texts, PolicyMalformed,
    ::testing::Values(MalformedRow{"{\n  \"tiers\": {\n    \"free\": { ,\n", "3:15",
                                   "malformed JSON"},
                      MalformedRow{"{\"tiers\": {}}}", "1:14", "malformed JSON"},
                      MalformedRow{"", "1:1", "malformed JSON"},
                      MalformedRow{"{\n\"a\": NaN}", "2:6", "malformed JSON"}));

TEST(PolicyRefuses, NumberOverflowIsMalformed) {
  std::string text = kBase;
  text.replace(text.find("\"capacity\": 20"), 15, "\"capacity\": 1e400");
  auto p = parse_policy(text, "huge.json");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("huge.json: malformed JSON: "), std::string::npos) << p.error();
  EXPECT_NE(p.error().find("1e400"), std::string::npos) << p.error();
}

TEST(PolicyRefuses, DuplicateKeysAreNamed) {
  auto p = parse_policy(R"({"tiers": {"free": {}, "free": {}}, "models": {}})", "dup.json");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error(), "dup.json: /tiers: duplicate key \"free\"");
}

TEST(PolicyLoad, ReadsAFileAndNamesMissingOnes) {
  const std::string path = test::binary_path("policy_test_tmp.json");
  {
    std::ofstream out(path);
    out << kBase;
  }
  auto p = load_policy_file(path);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->source, path);
  std::remove(path.c_str());
  auto missing = load_policy_file(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find(path + ": cannot open"), std::string::npos) << missing.error();
}

TEST(DefaultPolicy, EmbeddedCopyHasDesignNumbers) {
  const Policy& p = default_policy();
  struct TierRow {
    const char* name;
    double capacity;
    double per_second;
    double quota;
  };
  for (const TierRow& t : {TierRow{"free", 60, 1, 1000}, TierRow{"pro", 500, 50, 50000},
                           TierRow{"enterprise", 5000, 500, 500000}}) {
    const TierPolicy* tier = p.find_tier(t.name);
    ASSERT_NE(tier, nullptr) << t.name;
    EXPECT_EQ(tier->requests.algorithm, Algorithm::token_bucket) << t.name;
    EXPECT_EQ(tier->requests.capacity, t.capacity) << t.name;
    EXPECT_DOUBLE_EQ(tier->requests.refill.per_second(), t.per_second) << t.name;
    EXPECT_EQ(tier->daily_quota, t.quota) << t.name;
  }
  struct ModelRow {
    const char* name;
    double cost;
    double price;
  };
  for (const ModelRow& m :
       {ModelRow{"gpt-4.1", 8, 8}, ModelRow{"claude-sonnet-4.5", 15, 15},
        ModelRow{"gemini-2.5-flash", 2, 2.5}, ModelRow{"deepseek-v3.2", 1, 0.42}}) {
    auto model = p.model(m.name);
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_EQ((*model)->cost, m.cost) << m.name;
    EXPECT_DOUBLE_EQ((*model)->price_per_million_tokens, m.price) << m.name;
  }
  ASSERT_TRUE(p.default_tier.has_value());
  EXPECT_EQ(p.tiers[*p.default_tier].name, "free");
  EXPECT_EQ(p.tier_for_key("someone-new")->name, "free");
  for (const char* tier : {"free", "pro", "enterprise"}) {
    int keys = 0;
    for (const auto& [key, idx] : p.keys) keys += p.tiers[idx].name == tier ? 1 : 0;
    EXPECT_GE(keys, 1) << "no demo key for " << tier;
  }
}

TEST(PolicyDocs, FullExampleInDocsParses) {
  std::ifstream in(std::string(LIMITSCOPE_TEST_DATA_DIR) + "/../../docs/policy.md");
  ASSERT_TRUE(in.good());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto start = text.find("```json\n");
  ASSERT_NE(start, std::string::npos);
  const auto end = text.find("```", start + 8);
  auto p =
      parse_policy(std::string_view(text).substr(start + 8, end - start - 8), "docs/policy.md");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->tier_for_key("sk-acme-prod")->requests.algorithm, Algorithm::gcra);
  EXPECT_EQ(p->tier_for_key("sk-acme-ci")->requests.algorithm, Algorithm::sliding_log);
  EXPECT_EQ(p->model_cost("openai/gpt-4.1-mini").value(), 1);
}

TEST(DefaultPolicy, EmbeddedTextMatchesTheResourceFile) {
  std::ifstream in(std::string(LIMITSCOPE_RESOURCES_DIR) + "/default-policy.json",
                   std::ios::binary);
  ASSERT_TRUE(in.good());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(default_policy_json(), text);
}

}  // namespace
}  // namespace limitscope
