#pragma once
// Reads a recording written by RecordingWriter (docs/recording.md). A bad line ends the
// load with an error naming the file and line; everything before it is kept, so a recording
// cut short by a crash still plays back up to its last whole line.

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"
#include "core/metrics/labels.h"
#include "core/recording/recording_writer.h"

namespace limitscope {

/// A key-table row's fixed part (a "key" line).
struct RecordedKey {
  std::string api_key, model, tier, algorithm, parameters;
  double capacity = 0;
  std::string node;  // Redis Cluster: the key's shard ("host:port"); empty when not recorded
  std::string name;  // what operators call the key ("acme-prod"); empty when not recorded
};

/// A key-table row's values at one step.
struct RecordedKeyValues {
  std::uint32_t id = 0;  // index into Recording::keys
  double level = 1;
  std::optional<double> occupancy;
  double requests_per_s = 0, rejected_per_s = 0, spend = 0, quota_burn = 0;
  std::int64_t last_seen_ms = 0;
};

struct RecordedStep {
  std::int64_t t_ms = 0;
  std::vector<RecordedKeyValues> keys;
  std::vector<std::string> incidents;
  std::uint64_t dropped_samples = 0;
  /// The sources (their outages, the metrics they wrote) and the gateway's fail-open as of
  /// this step: carried from the last step that recorded them; null before any did (and in
  /// recordings made before these fields existed).
  std::shared_ptr<const std::vector<SourceStatus>> sources;
  std::shared_ptr<const ProtectionStatus> protection;
  std::size_t events_through = 0;  ///< Recording::events logged up to this step
};

struct RecordedSamples {
  std::int64_t t_ms = 0;
  std::vector<std::pair<std::uint32_t, double>> values;  // (series id, value)
};

/// Alert rows and bands as of one evaluation; open bands have open = true, end_ms = t_ms.
struct RecordedAlerts {
  std::int64_t t_ms = 0;
  std::vector<AlertRow> alerts;
  std::vector<AlertInterval> intervals;
};

/// One request line, compact: strings are indices into Recording::names.
struct RecordedRequest {
  std::int64_t t_ns = 0;                                              // ns since the epoch
  std::uint32_t key = 0, tier = 0, model = 0, reason = 0, limit = 0;  // names indices; 0 = ""
  double cost = 0, remaining = 0, spend = 0;
  double retry_after_s = -1;     // < 0: none
  std::int64_t llm_tokens = -1;  // -1: the line had none (unknown, not free)
  std::int32_t attempt = 0;
  bool allowed = false, degraded = false;
};

struct Recording {
  RecordingHeader header;
  std::vector<metrics::Labels> series;  // by series id
  std::vector<RecordedSamples> samples;
  std::vector<RecordedKey> keys;  // by key id
  std::vector<RecordedStep> steps;
  std::vector<SourceEvent> events;  // the event log, in the order logged (step lines' "events")
  std::vector<RecordedAlerts> alerts;
  std::vector<std::string> names;  // interned request strings; names[0] = ""
  std::vector<RecordedRequest> requests;
  std::optional<std::int64_t> end_ms;  // the end line's time, when the recording was closed
  std::int64_t first_ms = 0;           // earliest and latest time of any line
  std::int64_t last_ms = 0;
  std::size_t lines = 0;  // lines read (the good ones)

  DecisionRow decision(const RecordedRequest& r) const;
};

struct RecordingLoad {
  Recording recording;
  /// "FILE:LINE: reason" for the first bad line (nothing after it is read), or empty.
  std::string error;
  bool has_header = false;  // false: nothing usable was read
};

/// @param name the file name used in errors
RecordingLoad read_recording(std::istream& in, const std::string& name);

}  // namespace limitscope
