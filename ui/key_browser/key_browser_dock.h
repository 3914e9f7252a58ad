#pragma once
// The Redis key browser (a dock): the open Redis's limiter keys with profile, kind, level, TTL
// and sampled memory, filtered by a SCAN MATCH pattern, refreshed on demand; selecting a key
// shows its raw fields. Every read runs on the browser's own worker thread
// (KeyBrowserWorker); errors (server down, wrong type, a key that vanished) show in the dock.

#include <QDockWidget>
#include <QPointer>
#include <QThread>

#include "ui/key_browser/key_browser_worker.h"

QT_BEGIN_NAMESPACE
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTableWidget;
QT_END_NAMESPACE

namespace limitscope::ui {

class KeyBrowserModel;

class KeyBrowserDock : public QDockWidget {
  Q_OBJECT
 public:
  explicit KeyBrowserDock(QWidget* parent = nullptr);
  ~KeyBrowserDock() override;

  /// Browses this Redis (URL with its password; never shown) with these profiles.
  void setTarget(const QString& url, const QString& profiles);
  /// The SCAN MATCH pattern (the filter field), then a refresh.
  void setMatch(const QString& pattern);
  void refresh();
  /// Selects a key's row and reads its raw fields. @return false when it is not listed
  bool selectKey(const QString& key);

  KeyBrowserModel* model() const { return m_model; }
  /// The raw-fields table (field, value) of the selected key.
  QTableWidget* rawView() const { return m_raw; }
  QString statusText() const;
  QString rawStatusText() const;

 signals:
  /// After each listing or failure reached the view (tests wait on these).
  void listingShown();
  void rawShown(const QString& key);
  void failureShown(const QString& kind, const QString& message);

 private:
  void onListed(const KeyListingPtr& listing);
  void onInspected(const RawKeyPtr& raw);
  void onFailed(const QString& kind, const QString& message, const QString& key);
  void inspectSelected();

  QThread m_thread;
  QPointer<KeyBrowserWorker> m_worker;
  bool m_hasTarget = false;
  QString m_selected;
  KeyBrowserModel* m_model = nullptr;
  QSortFilterProxyModel* m_proxy = nullptr;
  QTableView* m_view = nullptr;
  QLineEdit* m_match = nullptr;
  QPushButton* m_refresh = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_rawStatus = nullptr;
  QTableWidget* m_raw = nullptr;
};

}  // namespace limitscope::ui
