#include "ui/models/event_log_model.h"

#include <QApplication>
#include <QColor>
#include <QDateTime>
#include <QIcon>
#include <QPixmap>
#include <QStyle>
#include <algorithm>

namespace limitscope::ui {
namespace {

bool sameEvent(const SourceEvent& a, const SourceEvent& b) {
  return a.t_ms == b.t_ms && a.text == b.text;
}

// The longest k such that the last k events of `seen` are the first k of `incoming`: the part
// of the new list already shown. Both lists are windows on the source's one growing log, so
// the incoming one starts at or after the seen one's start. When equal events repeat, the
// longest overlap wins (a repeated identical event may then be missed, never duplicated).
std::size_t overlap(const std::vector<SourceEvent>& seen,
                    const std::vector<SourceEvent>& incoming) {
  for (std::size_t k = std::min(seen.size(), incoming.size()); k > 0; --k) {
    if (std::equal(seen.end() - static_cast<std::ptrdiff_t>(k), seen.end(), incoming.begin(),
                   sameEvent))
      return k;
  }
  return 0;
}

}  // namespace

bool looksLikeFailure(QStringView text) {
  static const QLatin1String kAnyCase[] = {
      QLatin1String("failed"),      QLatin1String("cannot"),   QLatin1String("did not answer"),
      QLatin1String("error"),       QLatin1String("refused"),  QLatin1String("timed out"),
      QLatin1String("unreachable"), QLatin1String("HTTP 401"), QLatin1String("HTTP 403"),
  };
  // Redis error replies as the server words them ("ERR unknown command", "NOAUTH ..."); in
  // any case "err" would match words like "deferred".
  static const QLatin1String kRedisReplies[] = {
      QLatin1String("ERR "),
      QLatin1String("NOAUTH"),
      QLatin1String("WRONGPASS"),
      QLatin1String("NOPERM"),
  };
  return std::any_of(std::begin(kAnyCase), std::end(kAnyCase),
                     [text](QLatin1String m) { return text.contains(m, Qt::CaseInsensitive); }) ||
         std::any_of(std::begin(kRedisReplies), std::end(kRedisReplies),
                     [text](QLatin1String m) { return text.contains(m, Qt::CaseSensitive); });
}

EventLogModel::EventLogModel(QObject* parent) : FlatTableModel({tr("Time"), tr("Event")}, parent) {}

int EventLogModel::update(const std::vector<SourceEvent>& events) {
  if (events.empty()) {
    m_seen.clear();
    removeAll();
    return 0;
  }
  // Numbered events (live sources number their log): what is new is what follows the last
  // number seen, and a jump in the numbers is events this view never received.
  std::size_t known = 0;
  std::uint64_t missed = 0;
  if (events.front().seq > 0) {
    if (!m_seen.empty() && events.back().seq < m_seen.back().seq) {
      m_seen.clear();  // numbers went back: another source's log, shown from its start
      removeAll();
    }
    const std::uint64_t last = m_seen.empty() ? 0 : m_seen.back().seq;
    while (known < events.size() && events[known].seq <= last) ++known;
    if (known < events.size() && events[known].seq > last + 1)
      missed = events[known].seq - last - 1;
  } else {
    known = overlap(m_seen, events);
  }
  if (known == events.size() && known == m_seen.size()) return 0;  // the usual case: nothing new
  const auto added = static_cast<int>(events.size() - known) + (missed > 0 ? 1 : 0);
  if (added > 0) {
    // Make room first, so the insertion below is one contiguous append.
    const int drop = std::max(0, rowCount() + std::min(added, kMaxRows) - kMaxRows);
    if (drop > 0) {
      beginRemoveRows({}, 0, drop - 1);
      for (int i = 0; i < drop; ++i) {
        m_failures -= m_rows[static_cast<std::size_t>(i)].failure ? 1 : 0;
        m_gaps -= m_rows[static_cast<std::size_t>(i)].gap ? 1 : 0;
      }
      m_rows.erase(m_rows.begin(), m_rows.begin() + drop);
      endRemoveRows();
    }
    const std::size_t from =
        events.size() - static_cast<std::size_t>(std::min(added, kMaxRows) - (missed > 0 ? 1 : 0));
    const int first = rowCount();
    beginInsertRows({}, first,
                    first + static_cast<int>(events.size() - from) - 1 + (missed > 0 ? 1 : 0));
    if (missed > 0) {
      Row gap;
      gap.t_ms = events[from].t_ms;
      gap.time = QDateTime::fromMSecsSinceEpoch(gap.t_ms).toString(QStringLiteral("HH:mm:ss"));
      gap.text =
          (missed == 1 ? tr("… 1 earlier event not shown")
                       : tr("… %1 earlier events not shown").arg(static_cast<qulonglong>(missed))) +
          tr(": more arrived between two updates than one carries");
      gap.gap = true;
      ++m_gaps;
      m_rows.push_back(std::move(gap));
    }
    for (std::size_t i = from; i < events.size(); ++i) {
      Row r;
      r.t_ms = events[i].t_ms;
      r.time = QDateTime::fromMSecsSinceEpoch(r.t_ms).toString(QStringLiteral("HH:mm:ss"));
      r.text = QString::fromStdString(events[i].text);
      r.failure = looksLikeFailure(r.text);
      m_failures += r.failure ? 1 : 0;
      m_rows.push_back(std::move(r));
    }
    endInsertRows();
  }
  m_seen = events;
  return added;
}

void EventLogModel::clearShown() {
  removeAll();
}

void EventLogModel::removeAll() {
  if (m_rows.empty()) return;
  beginRemoveRows({}, 0, rowCount() - 1);
  m_rows.clear();
  m_failures = 0;
  m_gaps = 0;
  endRemoveRows();
}

QString EventLogModel::lineAt(int row) const {
  if (row < 0 || row >= rowCount()) return {};
  const Row& r = m_rows[static_cast<std::size_t>(row)];
  return r.time + QLatin1String("  ") + r.text;
}

int EventLogModel::rows() const {
  return static_cast<int>(m_rows.size());
}

QVariant EventLogModel::data(const QModelIndex& index, int role) const {
  if (!isCell(index)) return {};
  const Row& r = m_rows[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return index.column() == Time ? r.time : r.text;
    case Qt::ToolTipRole:
      // The full instant (the row shows only the time of day), and long texts whole.
      return index.column() == Time ? QDateTime::fromMSecsSinceEpoch(r.t_ms).toString(
                                          QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"))
                                    : r.text;
    case Qt::ForegroundRole:
      // The same red as the status bar's error and the 429 results; a gap is greyed.
      if (r.gap) return QVariant(QColor(128, 128, 128));
      return r.failure ? QVariant(QColor(220, 50, 47)) : QVariant();
    case Qt::DecorationRole: {
      if (index.column() != Time) return {};
      if (r.failure) return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
      // A blank icon of the same size keeps every row's time at the same x.
      static const QIcon blank = [] {
        QPixmap p(16, 16);
        p.fill(Qt::transparent);
        return QIcon(p);
      }();
      return blank;
    }
    case FailureRole:
      return r.failure;
    default:
      return {};
  }
}

}  // namespace limitscope::ui
