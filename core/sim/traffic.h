#pragma once
// What a simulated client is: an API key, the models it calls, how often, and what it does
// after a 429. Plain data, so a scenario is easy to list in the dashboard and to write by hand.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/clock.h"
#include "core/common/expected.h"

namespace limitscope {

/// What the client is meant to show; the dashboard labels clients with it.
enum class ClientRole {
  steady,         // Poisson traffic at a constant rate
  bursty,         // steady plus short bursts far above its rate
  runaway,        // a client loop firing thousands of requests/s, deaf to Retry-After
  diurnal,        // rate follows a day curve compressed into the run
  misconfigured,  // heavy tenant whose key the policy maps to a tier too small for it
};

std::string_view to_string(ClientRole r);

/// What a client does with a 429.
enum class RetryBehaviour {
  give_up,             // drops the request
  honour_retry_after,  // waits max(Retry-After, jittered exponential backoff), bounded retries
  ignore_retry_after,  // retries after a fixed short interval, bounded retries
};

std::string_view to_string(RetryBehaviour b);

struct RetryPolicy {
  RetryBehaviour behaviour = RetryBehaviour::honour_retry_after;
  int max_retries = 4;                                  // retries per request after the first try
  Nanos base_backoff{std::chrono::milliseconds(500)};   // backoff before retry k: base * 2^k
  Nanos max_backoff{std::chrono::seconds(30)};          // cap on the backoff (not on Retry-After)
  Nanos ignore_interval{std::chrono::milliseconds(5)};  // ignore_retry_after: fixed wait
};

/// One model a client calls, with its share of the client's requests and the LLM tokens
/// (prompt + completion) per request, drawn uniformly in [tokens_min, tokens_max].
struct ModelShare {
  std::string model;
  double weight = 1;  // relative share; weights need not sum to 1
  std::int64_t tokens_min = 500;
  std::int64_t tokens_max = 2000;
};

/// A period of extra traffic: the client's rate is rate_per_s within [start, start + length).
struct Burst {
  Nanos start{0};
  Nanos length{0};
  double rate_per_s = 0;
};

/// When and how fast a client sends new requests (retries come on top).
struct TrafficShape {
  double rate_per_s = 1;      // mean requests/s (outside bursts)
  Nanos start{0};             // first possible request, simulated time since the run began
  std::optional<Nanos> stop;  // no new requests from here on (retries still finish)
  /// When > 0 the rate follows a day curve of this period: lowest at 0 ("midnight"), highest
  /// at half a period ("noon"), rate_per_s * (1 - amplitude * cos(2 pi t / day_length)).
  Nanos day_length{0};
  double diurnal_amplitude = 0.8;  // in [0, 1]
  std::vector<Burst> bursts;

  /// The instantaneous rate of new requests at simulated time t, requests/s.
  double rate_at(Nanos t) const;
  /// An upper bound of rate_at over all t (for thinning).
  double max_rate() const;
};

struct ClientSpec {
  std::string api_key;
  /// The tier the scenario gives this key when the policy does not list it. The policy's own
  /// mapping wins; a misconfigured tenant is a key mapped to a smaller tier than it needs.
  std::string tier;
  ClientRole role = ClientRole::steady;
  std::string description;  // one line for the dashboard
  std::vector<ModelShare> models;
  TrafficShape traffic;
  RetryPolicy retry;
};

/// Typical LLM tokens per request (prompt + completion) for the four default models; other
/// models get 300..2000.
ModelShare default_model_share(std::string_view model, double weight);

/// Checks a client: key and models present, weights and rates finite and >= 0, token ranges
/// ordered. @return ok, or the reason naming the client.
Status validate(const ClientSpec& client);

}  // namespace limitscope
