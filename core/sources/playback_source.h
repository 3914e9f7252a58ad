#pragma once
// Plays a recording back into the dashboard's views: a time cursor over the recorded
// session (play/pause and speed are the worker's; seek here). At the cursor, the charts read
// the recorded samples up to it, and the key table, alerts, incidents and recent decisions
// are the ones recorded last before it.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/common/expected.h"
#include "core/recording/recording_reader.h"
#include "core/sources/dashboard_source.h"

namespace limitscope {

struct PlaybackOptions {
  std::size_t sparkline_points = 60;  // as EmbeddedSimulationOptions
  std::size_t decisions_per_key = 50;
};

class PlaybackSource final : public DashboardSource {
 public:
  /// Loads a recording. A bad line after the header keeps what came before it and reports
  /// the error through load_error() and every snapshot's last_error.
  /// @return the source at the recording's end, or an error naming the file (and line) when
  ///         it cannot be read or has no valid header.
  static Expected<std::unique_ptr<PlaybackSource>> open(const std::string& path,
                                                        const PlaybackOptions& options = {});
  /// Same, from a stream; `name` names it in errors and in the status bar.
  static Expected<std::unique_ptr<PlaybackSource>> read(std::istream& in, const std::string& name,
                                                        const PlaybackOptions& options = {});

  /// Moves the cursor by `d`, stopping at the end. @return 1 if it moved, else 0.
  int advance(Nanos d) override;
  /// Puts the cursor at `t_ms`, clamped to [begin_ms, end_ms].
  void seek(std::int64_t t_ms);
  /// Puts the cursor `d` after the recording's start, or at its end when `d` is 0.
  int fast_forward(Nanos d) override;
  DashboardSnapshot snapshot(const ChartView& view) const override;
  std::int64_t now_ms() const override { return cursor_ms_; }
  std::string name() const override { return "playback: " + name_; }
  bool recordable() const override { return false; }
  SessionState& session() override { return *session_; }
  const SessionState& session() const override { return *session_; }

  std::int64_t begin_ms() const { return recording_.first_ms; }
  std::int64_t end_ms() const { return recording_.last_ms; }
  bool at_end() const { return cursor_ms_ >= end_ms(); }
  const std::string& load_error() const { return load_error_; }
  const std::string& file_name() const { return name_; }
  const Recording& recording() const { return recording_; }

 private:
  PlaybackSource() = default;
  void build();
  /// Index of the last element with t_ms <= cursor in a time-ordered vector, or -1.
  template <class V>
  std::ptrdiff_t last_at_or_before(const V& v) const;

  PlaybackOptions options_;
  std::string name_;
  std::string load_error_;
  Recording recording_;
  std::shared_ptr<SessionState> session_;       // the recording's samples; rules never evaluated
  std::vector<std::uint64_t> samples_through_;  // samples in lines [0, i]
  std::vector<std::vector<std::uint32_t>> requests_by_key_;  // names index -> request indices
  std::int64_t cursor_ms_ = 0;
  Nanos carry_{0};
};

}  // namespace limitscope
