#pragma once
// The Events dock's content: a live source's event log as a table (time, event), newest at the
// bottom, failures in red with a warning icon. It follows the newest row only while the
// operator is at the bottom; rows copy as text (Ctrl+C); Clear hides what has arrived so far.
// Sources without an event log (the simulation, a recording) get a placeholder line.

#include <QWidget>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"

QT_BEGIN_NAMESPACE
class QLabel;
class QPushButton;
class QStackedWidget;
class QTableView;
QT_END_NAMESPACE

namespace limitscope::ui {

class EventLogModel;

class EventLogPanel : public QWidget {
  Q_OBJECT
 public:
  explicit EventLogPanel(QWidget* parent = nullptr);

  /// Shows a snapshot's events (oldest first); cheap when nothing is new.
  void setEvents(const std::vector<SourceEvent>& events);
  /// Hides the rows shown so far; events already received do not come back.
  void clearShown();
  /// The selected rows as lines "HH:mm:ss  text", oldest first, one per line.
  QString selectedText() const;
  /// Puts selectedText() on the clipboard (Ctrl+C in the table).
  void copySelection() const;
  /// "Events" with the row count, for the dock's title.
  QString title() const;

  EventLogModel* model() const { return m_model; }
  QTableView* view() const { return m_view; }
  /// True while the placeholder is shown instead of the table.
  bool showsPlaceholder() const;
  QString placeholderText() const;

 signals:
  void titleChanged(const QString& title);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void refreshChrome();

  EventLogModel* m_model = nullptr;
  QTableView* m_view = nullptr;
  QStackedWidget* m_stack = nullptr;
  QLabel* m_placeholder = nullptr;
  QLabel* m_summary = nullptr;
  QPushButton* m_clear = nullptr;
  QString m_clearedAt;   // time of day of the last Clear, empty before any
  bool m_follow = true;  // the view was at the bottom: keep it there as rows arrive
};

}  // namespace limitscope::ui
