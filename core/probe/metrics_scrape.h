#pragma once
// Scraping a gateway's /metrics: one HTTP GET, parsed as Prometheus text or OpenMetrics. As in
// Prometheus, a scrape with any parse error (a truncated body, garbage lines) is refused as a
// whole and reported with its line numbers: partial data would bend every rate computed from
// it, and what was recorded before is kept. From two good scrapes come the figures an operator
// looks at first: 429s per second by tier and model (counter resets handled), and quota burn.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/common/expected.h"
#include "core/http/http_fetch.h"
#include "core/metrics/exposition_parser.h"
#include "core/metrics/series_store.h"

namespace limitscope::probe {

struct Scrape {
  std::int64_t at_ms = 0;  ///< when the scrape was taken (caller's wall clock)
  std::vector<metrics::ParsedSample> samples;
  metrics::ParseReport report;
};

/// GETs and parses `url`, sending the basic or bearer credentials of `options` if any.
/// Errors: transport failures, an HTTP status other than 200 (with the start of the body,
/// credentials redacted; a 401/403 says whether credentials were sent), and parse errors
/// (the first few, with line numbers). No error ever holds a credential.
Expected<Scrape> scrape_metrics(const http::HttpUrl& url, const http::FetchOptions& options,
                                std::int64_t at_ms);
/// The parsing half, for a body already fetched (and for tests).
Expected<Scrape> parse_scrape(std::string_view body, std::string_view content_type,
                              std::int64_t at_ms, std::string_view source);

/// Appends every sample at the scrape's time (or the sample's own timestamp).
/// @return how many samples the store refused (limits), 0 normally
std::size_t append_scrape(metrics::SeriesStore& store, const Scrape& scrape);

struct DerivedFigures {
  double interval_s = 0;
  double rejected_per_s = 0;  ///< all gateway_rate_limit_hits_total
  std::map<std::string, double> rejected_per_s_by_tier;
  std::map<std::string, double> rejected_per_s_by_model;
  double max_quota_burn = 0;          ///< max gateway_quota_burn_ratio
  std::string max_quota_burn_series;  ///< its labels
  bool counter_reset = false;         ///< some counter went down in between
};

/// Figures from two scrapes of the same target, `before` older than `after`.
Expected<DerivedFigures> derive_figures(const Scrape& before, const Scrape& after);

}  // namespace limitscope::probe
