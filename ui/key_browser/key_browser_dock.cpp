#include "ui/key_browser/key_browser_dock.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/key_browser/key_browser_model.h"
#include "ui/qt_text.h"

namespace limitscope::ui {
namespace {

const QString kErrorStyle = QStringLiteral("color: #dc322f");

}  // namespace

KeyBrowserDock::KeyBrowserDock(QWidget* parent) : QDockWidget(tr("Redis keys"), parent) {
  qRegisterMetaType<KeyListingPtr>();
  qRegisterMetaType<RawKeyPtr>();
  setObjectName(QStringLiteral("keyBrowserDock"));
  auto* panel = new QWidget(this);
  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(4, 4, 4, 4);

  auto* top = new QHBoxLayout;
  m_match = new QLineEdit(panel);
  m_match->setObjectName(QStringLiteral("keyBrowserMatch"));
  m_match->setPlaceholderText(tr("SCAN MATCH pattern, e.g. rl:* (Enter to apply)"));
  m_match->setClearButtonEnabled(true);
  connect(m_match, &QLineEdit::returnPressed, this, [this] { setMatch(m_match->text()); });
  m_refresh = new QPushButton(tr("Refresh"), panel);
  m_refresh->setObjectName(QStringLiteral("keyBrowserRefresh"));
  m_refresh->setToolTip(tr("One more budgeted SCAN step, then re-read every listed key"));
  m_refresh->setEnabled(false);
  connect(m_refresh, &QPushButton::clicked, this, &KeyBrowserDock::refresh);
  top->addWidget(m_match, 1);
  top->addWidget(m_refresh);
  layout->addLayout(top);

  m_status = new QLabel(tr("Open a Redis connection (File ▸ Connect…) to browse its limiter keys."),
                        panel);
  m_status->setObjectName(QStringLiteral("keyBrowserStatus"));
  m_status->setWordWrap(true);
  layout->addWidget(m_status);

  m_model = new KeyBrowserModel(this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(KeyBrowserModel::SortRole);
  m_view = new QTableView(panel);
  m_view->setObjectName(QStringLiteral("keyBrowserTable"));
  m_view->setModel(m_proxy);
  m_view->setSortingEnabled(true);
  m_view->sortByColumn(KeyBrowserModel::Key, Qt::AscendingOrder);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);
  m_view->verticalHeader()->hide();
  m_view->verticalHeader()->setDefaultSectionSize(22);
  m_view->setAlternatingRowColors(true);
  m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_view->horizontalHeader()->setStretchLastSection(true);
  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &KeyBrowserDock::inspectSelected);

  auto* lower = new QWidget(panel);
  auto* lowerLayout = new QVBoxLayout(lower);
  lowerLayout->setContentsMargins(0, 0, 0, 0);
  m_rawStatus = new QLabel(tr("Select a key to see its raw fields."), lower);
  m_rawStatus->setObjectName(QStringLiteral("keyBrowserRawStatus"));
  m_rawStatus->setWordWrap(true);
  m_rawStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_raw = new QTableWidget(0, 2, lower);
  m_raw->setObjectName(QStringLiteral("keyBrowserRaw"));
  m_raw->setHorizontalHeaderLabels({tr("Field / member"), tr("Value / score")});
  m_raw->verticalHeader()->hide();
  m_raw->verticalHeader()->setDefaultSectionSize(20);
  m_raw->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_raw->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  m_raw->horizontalHeader()->setStretchLastSection(true);
  m_raw->setAlternatingRowColors(true);
  lowerLayout->addWidget(m_rawStatus);
  lowerLayout->addWidget(m_raw, 1);

  auto* split = new QSplitter(Qt::Vertical, panel);
  split->addWidget(m_view);
  split->addWidget(lower);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);
  setWidget(panel);

  // The worker and its blocking Redis calls live on the browser's own thread.
  m_worker = new KeyBrowserWorker;
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker.data(), &QObject::deleteLater);
  connect(m_worker.data(), &KeyBrowserWorker::listed, this, &KeyBrowserDock::onListed);
  connect(m_worker.data(), &KeyBrowserWorker::inspected, this, &KeyBrowserDock::onInspected);
  connect(m_worker.data(), &KeyBrowserWorker::failed, this, &KeyBrowserDock::onFailed);
  m_thread.setObjectName(QStringLiteral("key browser"));
  m_thread.start();
}

KeyBrowserDock::~KeyBrowserDock() {
  m_thread.quit();
  m_thread.wait();  // a read in progress ends within its command timeout
}

void KeyBrowserDock::setTarget(const QString& url, const QString& profiles) {
  m_hasTarget = true;
  m_refresh->setEnabled(true);
  m_selected.clear();
  m_model->setKeys({});
  m_raw->setRowCount(0);
  m_rawStatus->setText(tr("Select a key to see its raw fields."));
  m_status->setStyleSheet(QString());
  m_status->setText(tr("Scanning…"));
  const QString match = m_match->text();
  QMetaObject::invokeMethod(m_worker, [w = m_worker, url, profiles, match] {
    if (w) w->setTarget(url, profiles, match);
  });
}

void KeyBrowserDock::setMatch(const QString& pattern) {
  if (m_match->text() != pattern) m_match->setText(pattern);
  if (!m_hasTarget) return;
  m_status->setText(tr("Scanning…"));
  QMetaObject::invokeMethod(m_worker, [w = m_worker, pattern] {
    if (w) w->setMatch(pattern);
  });
}

void KeyBrowserDock::refresh() {
  if (!m_hasTarget) return;
  m_refresh->setEnabled(false);  // one refresh at a time; back on when it answers
  QMetaObject::invokeMethod(m_worker, [w = m_worker] {
    if (w) w->refresh();
  });
  if (!m_selected.isEmpty()) {
    QMetaObject::invokeMethod(m_worker, [w = m_worker, k = m_selected] {
      if (w) w->inspect(k);
    });
  }
}

bool KeyBrowserDock::selectKey(const QString& key) {
  const int row = m_model->findRow(key);
  if (row < 0) return false;
  const QModelIndex idx = m_proxy->mapFromSource(m_model->index(row, 0));
  m_view->selectionModel()->select(idx,
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  m_view->scrollTo(idx);
  return true;
}

QString KeyBrowserDock::statusText() const {
  return m_status->text();
}
QString KeyBrowserDock::rawStatusText() const {
  return m_rawStatus->text();
}

void KeyBrowserDock::inspectSelected() {
  const QModelIndexList rows = m_view->selectionModel()->selectedRows();
  if (rows.isEmpty()) return;
  const probe::BrowsedKey* k = m_model->keyAt(m_proxy->mapToSource(rows.front()).row());
  if (k == nullptr) return;
  m_selected = qs(k->reading.key);
  m_rawStatus->setStyleSheet(QString());
  m_rawStatus->setText(tr("Reading %1…").arg(m_selected));
  QMetaObject::invokeMethod(m_worker, [w = m_worker, key = m_selected] {
    if (w) w->inspect(key);
  });
}

void KeyBrowserDock::onListed(const KeyListingPtr& listing) {
  m_refresh->setEnabled(true);
  {
    // The selection follows the key, not the row, across the reset.
    const QSignalBlocker block(m_view->selectionModel());
    m_model->setKeys(listing->keys);
    if (!m_selected.isEmpty()) {
      const int row = m_model->findRow(m_selected);
      if (row >= 0) {
        m_view->selectionModel()->select(
            m_proxy->mapFromSource(m_model->index(row, 0)),
            QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
      }
    }
  }
  std::size_t errors = 0;
  for (const auto& k : listing->keys) errors += k.reading.error.empty() ? 0 : 1;
  QString text = listing->keys.size() == 1 ? tr("1 limiter key")
                                           : tr("%1 limiter keys").arg(listing->keys.size());
  if (errors > 0) text += tr(" (%1 unreadable)").arg(errors);
  text += tr(" · %1 other").arg(listing->unmatched);
  text += listing->discovery_complete ? tr(" · scan complete")
                                      : tr(" · scan in progress: Refresh to go on");
  text += tr(" · %1 SCAN calls, %2 memory samples · server time %3")
              .arg(listing->scan_calls)
              .arg(listing->memory_sampled)
              .arg(QDateTime::fromMSecsSinceEpoch(listing->server_time_us / 1000)
                       .toString(QStringLiteral("HH:mm:ss")));
  for (const std::string& e : listing->errors) text += QStringLiteral("\n") + qs(e);
  m_status->setStyleSheet(listing->errors.empty() ? QString() : kErrorStyle);
  m_status->setText(text);
  emit listingShown();
}

void KeyBrowserDock::onInspected(const RawKeyPtr& raw) {
  if (qs(raw->key) != m_selected) return;  // an answer for an earlier selection
  m_raw->setRowCount(static_cast<int>(raw->fields.size()));
  for (std::size_t i = 0; i < raw->fields.size(); ++i) {
    m_raw->setItem(static_cast<int>(i), 0, new QTableWidgetItem(qs(raw->fields[i].first)));
    m_raw->setItem(static_cast<int>(i), 1, new QTableWidgetItem(qs(raw->fields[i].second)));
  }
  QString text;
  if (raw->missing) {
    text = tr("%1: %2").arg(qs(raw->key), qs(raw->problem));
  } else {
    text = tr("%1 · %2").arg(qs(raw->key), qs(raw->type));
    const bool countable = raw->type != "string";
    if (countable)
      text += tr(" · %1 entries").arg(raw->total);
    else
      text += tr(" · %1 bytes").arg(raw->total);
    if (raw->truncated) text += tr(" (first %1 shown)").arg(raw->fields.size());
    text += tr(" · TTL %1").arg(KeyBrowserModel::ttlText(raw->ttl_ms));
    if (!raw->node.empty()) text += tr(" · shard %1").arg(qs(raw->node));
    if (raw->memory_bytes)
      text += tr(" · memory %1").arg(KeyBrowserModel::bytesText(*raw->memory_bytes));
    if (!raw->problem.empty()) text += QStringLiteral("\n") + qs(raw->problem);
  }
  m_rawStatus->setStyleSheet(raw->problem.empty() ? QString() : kErrorStyle);
  m_rawStatus->setText(text);
  emit rawShown(qs(raw->key));
}

void KeyBrowserDock::onFailed(const QString& kind, const QString& message, const QString& key) {
  m_refresh->setEnabled(m_hasTarget);
  if (!key.isEmpty()) {
    if (key != m_selected) return;
    m_raw->setRowCount(0);
    m_rawStatus->setStyleSheet(kErrorStyle);
    m_rawStatus->setText(tr("%1: %2 error: %3").arg(key, kind, message));
  } else {
    // The listing already shown stays: it is what the server said last.
    m_status->setStyleSheet(kErrorStyle);
    m_status->setText(tr("%1 error: %2 (the list shows the last good read; Refresh to retry)")
                          .arg(kind, message));
  }
  emit failureShown(kind, message);
}

}  // namespace limitscope::ui
