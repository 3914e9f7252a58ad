#include "ui/event_log_panel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/models/event_log_model.h"

namespace limitscope::ui {

EventLogPanel::EventLogPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("eventLog"));
  m_model = new EventLogModel(this);

  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("eventSummary"));
  m_clear = new QPushButton(tr("Clear"), this);
  m_clear->setObjectName(QStringLiteral("clearEvents"));
  m_clear->setToolTip(tr("Hide the events shown so far; only events that arrive later are listed"));
  connect(m_clear, &QPushButton::clicked, this, &EventLogPanel::clearShown);

  m_view = new QTableView(this);
  m_view->setObjectName(QStringLiteral("eventTable"));
  m_view->setModel(m_model);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_view->setWordWrap(false);
  m_view->setShowGrid(false);
  m_view->setAlternatingRowColors(true);
  m_view->verticalHeader()->hide();
  m_view->verticalHeader()->setDefaultSectionSize(20);
  m_view->horizontalHeader()->hide();  // two self-explaining columns: the rows need the room
  m_view->horizontalHeader()->setSectionResizeMode(EventLogModel::Time,
                                                   QHeaderView::ResizeToContents);
  m_view->horizontalHeader()->setStretchLastSection(true);
  m_view->installEventFilter(this);
  auto* copy = new QAction(tr("Copy"), m_view);
  copy->setShortcut(QKeySequence::Copy);
  copy->setShortcutContext(Qt::WidgetShortcut);
  connect(copy, &QAction::triggered, this, &EventLogPanel::copySelection);
  auto* selectAll = new QAction(tr("Select all"), m_view);
  connect(selectAll, &QAction::triggered, m_view, &QTableView::selectAll);
  m_view->addActions({copy, selectAll});
  m_view->setContextMenuPolicy(Qt::ActionsContextMenu);

  // Follow the newest row only while the operator is at the bottom: scrolling up to read
  // stops it, scrolling back down resumes it. A range change (rows appended, the dock resized
  // or shown again) keeps a following view at the bottom.
  QScrollBar* bar = m_view->verticalScrollBar();
  connect(bar, &QScrollBar::valueChanged, this,
          [this, bar](int value) { m_follow = value >= bar->maximum(); });
  connect(bar, &QScrollBar::rangeChanged, this, [this, bar](int, int max) {
    if (m_follow) bar->setValue(max);
  });

  m_placeholder = new QLabel(this);
  m_placeholder->setObjectName(QStringLiteral("eventPlaceholder"));
  m_placeholder->setWordWrap(true);
  m_placeholder->setAlignment(Qt::AlignCenter);
  m_placeholder->setForegroundRole(QPalette::PlaceholderText);
  // A wrapped label asks for the height of its narrowest layout; the dock may be short.
  m_placeholder->setMinimumSize(1, 1);

  m_stack = new QStackedWidget(this);
  m_stack->addWidget(m_placeholder);
  m_stack->addWidget(m_view);

  auto* top = new QHBoxLayout;
  top->setContentsMargins(0, 0, 0, 0);
  top->addWidget(m_summary, 1);
  top->addWidget(m_clear);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(2);
  layout->addLayout(top);
  layout->addWidget(m_stack, 1);
  refreshChrome();
}

void EventLogPanel::setEvents(const std::vector<SourceEvent>& events) {
  const bool hadSource = m_model->hasSource();
  const int added = m_model->update(events);
  if (added == 0 && hadSource == m_model->hasSource()) return;  // nothing changed on screen
  if (!m_model->hasSource()) m_clearedAt.clear();
  refreshChrome();
  if (added > 0 && m_follow) m_view->scrollToBottom();
}

void EventLogPanel::clearShown() {
  if (m_model->rowCount() == 0) return;
  m_model->clearShown();
  m_clearedAt = QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss"));
  m_follow = true;
  refreshChrome();
}

QString EventLogPanel::selectedText() const {
  QList<int> rows;
  for (const QModelIndex& idx : m_view->selectionModel()->selectedRows()) rows << idx.row();
  std::sort(rows.begin(), rows.end());
  QStringList lines;
  for (int r : std::as_const(rows)) lines << m_model->lineAt(r);
  return lines.join(QLatin1Char('\n'));
}

void EventLogPanel::copySelection() const {
  const QString text = selectedText();
  if (!text.isEmpty()) QApplication::clipboard()->setText(text);
}

QString EventLogPanel::title() const {
  const int rows = m_model->eventCount();
  return rows == 0 ? tr("Events") : tr("Events (%1)").arg(rows);
}

bool EventLogPanel::showsPlaceholder() const {
  return m_stack->currentWidget() == m_placeholder;
}

QString EventLogPanel::placeholderText() const {
  return m_placeholder->text();
}

bool EventLogPanel::eventFilter(QObject* watched, QEvent* event) {
  // The table's own Ctrl+C copies one cell; the operator wants whole rows (the shortcut of the
  // context menu's Copy does this too, when the table has focus in an active window).
  if (watched == m_view && event->type() == QEvent::KeyPress &&
      static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) {
    copySelection();
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

void EventLogPanel::refreshChrome() {
  const int rows = m_model->rowCount();
  const int failures = m_model->failureCount();
  if (!m_model->hasSource()) {
    m_placeholder->setText(
        tr("No events: the event log belongs to live sources (Redis, /metrics, Prometheus)."));
  } else if (rows == 0) {
    m_placeholder->setText(tr("Cleared at %1. New events will show here.").arg(m_clearedAt));
  }
  m_stack->setCurrentWidget(rows == 0 ? static_cast<QWidget*>(m_placeholder) : m_view);
  const int shown = m_model->eventCount();
  if (rows == 0) {
    m_summary->setText(tr("No new events"));
  } else {
    QString text = shown == 1 ? tr("1 event") : tr("%1 events").arg(shown);
    if (failures > 0) text += failures == 1 ? tr(", 1 failure") : tr(", %1 failures").arg(failures);
    m_summary->setText(text + tr(", newest at the bottom"));
  }
  m_clear->setEnabled(rows > 0);
  // Without an event log the placeholder says it all; the count and Clear would only repeat it.
  m_summary->setVisible(m_model->hasSource());
  m_clear->setVisible(m_model->hasSource());
  emit titleChanged(title());
}

}  // namespace limitscope::ui
