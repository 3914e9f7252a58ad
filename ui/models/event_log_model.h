#pragma once
// The rows of the Events dock: a live source's event log ("connected to …", "scrape failed:
// …"), oldest first, one row per event with its local time and text. Snapshots carry the
// source's whole recent tail each time; this model appends only the events it has not seen and
// keeps the earlier ones after the source has dropped them, up to kMaxRows.

#include <QString>
#include <QStringView>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"
#include "ui/models/flat_table_model.h"

namespace limitscope::ui {

/// True when an event's text reads as a failure, so the dock marks it. The rule, on purpose a
/// small fixed list matched case-insensitively anywhere in the text: "failed", "cannot",
/// "did not answer", "error", "refused", "timed out", "unreachable", "HTTP 401", "HTTP 403";
/// and, case-sensitive, Redis error replies: "ERR ", "NOAUTH", "WRONGPASS", "NOPERM".
/// (Bare "401"/"403" are not matched: counter values in "counter reset" lines would be.)
bool looksLikeFailure(QStringView text);

class EventLogModel : public FlatTableModel {
  Q_OBJECT
 public:
  enum Column { Time, Text, ColumnCount };
  enum Role { FailureRole = Qt::UserRole + 1 };
  /// Rows kept; the oldest go first. The source sends at most its newest 50 events.
  static constexpr int kMaxRows = 1000;

  explicit EventLogModel(QObject* parent = nullptr);

  /// Takes a snapshot's events (oldest first). Events seen in an earlier call are not added
  /// again, also when the source has since dropped the oldest ones (the list's head moved).
  /// Numbered events (SourceEvent::seq) are matched by number: a jump adds one row saying how
  /// many were not received, and numbers going back mean another log (the rows restart).
  /// An empty list means the source keeps no event log (simulation, recording): all rows go.
  /// @return the number of rows appended
  int update(const std::vector<SourceEvent>& events);
  /// Removes the rows shown; the events already received stay seen and are not shown again.
  void clearShown();

  /// True when the last update() carried events (a source with an event log).
  bool hasSource() const { return !m_seen.empty(); }
  int failureCount() const { return m_failures; }
  /// Rows that are events (not the "N earlier events not shown" rows of a gap).
  int eventCount() const { return rowCount() - m_gaps; }
  /// The row as a copied line: "HH:mm:ss  text".
  QString lineAt(int row) const;

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 private:
  int rows() const override;

  struct Row {
    qint64 t_ms = 0;
    QString time;  // HH:mm:ss, local time, made once
    QString text;
    bool failure = false;
    bool gap = false;  // "N earlier events not shown": numbers skipped between two updates
  };
  void removeAll();

  std::vector<Row> m_rows;
  std::vector<SourceEvent> m_seen;  // the last update's list: what the next one is matched to
  int m_failures = 0;               // rows with failure set
  int m_gaps = 0;                   // rows with gap set
};

}  // namespace limitscope::ui
