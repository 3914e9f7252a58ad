#include "ui/models/key_table_model.h"

#include <QColor>
#include <QDateTime>
#include <algorithm>
#include <numeric>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "ui/amounts.h"

namespace limitscope::ui {
namespace {

const QString kNotReported = QStringLiteral("—");

}  // namespace

KeyTableModel::KeyTableModel(QObject* parent) : QAbstractTableModel(parent) {}

namespace {

/// What tells a row apart, in one place for identity() and sameIdentity(). The algorithm tells
/// apart the per-tier rows of two sources ("gateway metrics", "prometheus").
auto identity_fields(const KeyRow& r) {
  return std::tie(r.api_key, r.tier, r.model, r.limit, r.node, r.algorithm);
}

}  // namespace

std::string KeyTableModel::identity(const KeyRow& r) {
  std::string id;
  std::apply([&](const auto&... field) { ((id += field, id += '\x1f'), ...); }, identity_fields(r));
  return id;
}

bool KeyTableModel::anyShadow(const std::vector<KeyRow>& rows) {
  return std::any_of(rows.begin(), rows.end(),
                     [](const KeyRow& r) { return r.shadow_would_refuse_in_view.has_value(); });
}

QString KeyTableModel::displayName(const KeyRow& r) {
  return QString::fromStdString(r.name.empty() ? r.api_key : r.name);
}

namespace {

/// Each row's identity. A source should not repeat a row, but the table must not break when
/// one does: the n-th repeat of an identity (n >= 1) is told apart by "#n".
std::vector<std::string> identities(const std::vector<KeyRow>& v) {
  std::vector<std::string> out;
  out.reserve(v.size());
  for (const KeyRow& r : v) out.push_back(KeyTableModel::identity(r));
  std::unordered_map<std::string_view, int> seen;
  seen.reserve(v.size());
  bool repeated = false;
  for (const std::string& id : out) repeated = !seen.emplace(id, 0).second || repeated;
  if (!repeated) return out;
  std::unordered_map<std::string, int> count;
  for (std::string& id : out) {
    const int n = count[id]++;
    if (n > 0) id += '#' + std::to_string(n);
  }
  return out;
}

/// Calls f(first, last) for each run of consecutive true entries of `marked`, from the back
/// (so removing a run keeps the indexes of the runs before it valid).
template <class F>
void for_each_run_backwards(const std::vector<bool>& marked, F f) {
  for (int i = static_cast<int>(marked.size()) - 1; i >= 0;) {
    if (!marked[static_cast<std::size_t>(i)]) {
      --i;
      continue;
    }
    const int last = i;
    while (i >= 0 && marked[static_cast<std::size_t>(i)]) --i;
    f(i + 1, last);
  }
}

}  // namespace

bool KeyTableModel::sameIdentity(const KeyRow& a, const KeyRow& b) {
  return identity_fields(a) == identity_fields(b);
}

void KeyTableModel::setRows(const std::vector<KeyRow>& rows) {
  // Only what changed is published: a row removed, a row whose figures moved (dataChanged on
  // its run of rows), a row added; then one layout change if the sort order moved. A live
  // refresh of 10,000 keys moves few of them.
  std::vector<bool> changed(m_rows.size(), false);
  bool any = false;
  bool same = rows.size() == m_source.size();
  for (std::size_t i = 0; same && i < rows.size(); ++i)
    same = sameIdentity(rows[i], m_rows[m_source[i]]);
  if (same) {
    // The usual refresh: the same rows in the same source order as the last one.
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::size_t row = m_source[i];
      if (m_rows[row] == rows[i]) continue;
      m_rows[row] = rows[i];
      changed[row] = true;
      any = true;
    }
  } else {
    any = merge(rows, changed);
  }
  for_each_run_backwards(changed, [&](int first, int last) {
    emit dataChanged(index(first, 0), index(last, ColumnCount - 1));
  });
  if (any) reorder();
}

bool KeyTableModel::merge(const std::vector<KeyRow>& rows, std::vector<bool>& changed) {
  const std::vector<std::string> ids = identities(rows);
  std::unordered_map<std::string_view, std::size_t> incoming;  // identity → index in rows
  incoming.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) incoming.emplace(ids[i], i);

  std::vector<bool> gone(m_rows.size(), false);
  bool any_gone = false;
  for (std::size_t i = 0; i < m_rows.size(); ++i) {
    gone[i] = !incoming.count(m_ids[i]);
    any_gone = any_gone || gone[i];
  }
  for_each_run_backwards(gone, [&](int first, int last) {
    beginRemoveRows({}, first, last);
    m_rows.erase(m_rows.begin() + first, m_rows.begin() + last + 1);
    m_ids.erase(m_ids.begin() + first, m_ids.begin() + last + 1);
    endRemoveRows();
  });
  // A repeated row is numbered again once rows before it went away.
  if (any_gone) {
    bool numbered = false;
    for (const std::string& id : m_ids) numbered = numbered || id.find('#') != std::string::npos;
    if (numbered) m_ids = identities(m_rows);
  }

  // Rows still here change in place (copied only when they changed); the rest are appended.
  bool any = any_gone;
  m_source.assign(rows.size(), 0);
  std::vector<bool> placed(rows.size(), false);
  changed.assign(m_rows.size(), false);
  for (std::size_t i = 0; i < m_rows.size(); ++i) {
    const std::size_t from = incoming.at(m_ids[i]);
    placed[from] = true;
    m_source[from] = i;
    if (m_rows[i] == rows[from]) continue;
    m_rows[i] = rows[from];
    changed[i] = true;
    any = true;
  }
  const int before = rowCount();
  int added = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) added += placed[i] ? 0 : 1;
  if (added == 0) return any;
  beginInsertRows({}, before, before + added - 1);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (placed[i]) continue;
    m_source[i] = m_rows.size();
    m_rows.push_back(rows[i]);
    m_ids.push_back(ids[i]);
  }
  endInsertRows();
  return true;
}

void KeyTableModel::sort(int column, Qt::SortOrder order) {
  m_sortColumn = column;
  m_sortOrder = order;
  reorder();
}

void KeyTableModel::reorder() {
  if (m_sortColumn < 0 || m_sortColumn >= ColumnCount || m_rows.size() < 2) return;
  const std::size_t n = m_rows.size();
  std::vector<int> order(n);  // new position → old row
  std::iota(order.begin(), order.end(), 0);
  // Figures compare as numbers (what SortRole holds); text columns by their text. Stable, so
  // equal rows keep their places and a refresh does not shuffle them.
  const auto stable_order_by = [&](const auto& key) {
    const bool ascending = m_sortOrder == Qt::AscendingOrder;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const auto& ka = key[static_cast<std::size_t>(a)];
      const auto& kb = key[static_cast<std::size_t>(b)];
      return ascending ? ka < kb : kb < ka;
    });
  };
  if (sortNumber(m_rows[0], m_sortColumn)) {
    std::vector<double> key(n);
    for (std::size_t i = 0; i < n; ++i) key[i] = *sortNumber(m_rows[i], m_sortColumn);
    stable_order_by(key);
  } else {
    std::vector<QString> key(n);
    for (std::size_t i = 0; i < n; ++i)
      key[i] = data(index(static_cast<int>(i), m_sortColumn), SortRole).toString();
    stable_order_by(key);
  }
  bool moved = false;
  for (std::size_t i = 0; i < n && !moved; ++i) moved = order[i] != static_cast<int>(i);
  if (!moved) return;
  emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
  std::vector<int> where(n);  // old row → new position
  std::vector<KeyRow> rows(n);
  std::vector<std::string> ids(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto from = static_cast<std::size_t>(order[i]);
    where[from] = static_cast<int>(i);
    rows[i] = std::move(m_rows[from]);
    ids[i] = std::move(m_ids[from]);
  }
  m_rows = std::move(rows);
  m_ids = std::move(ids);
  for (std::size_t& row : m_source) row = static_cast<std::size_t>(where[row]);
  const QModelIndexList from = persistentIndexList();
  QModelIndexList to;
  to.reserve(from.size());
  for (const QModelIndex& i : from)
    to.append(index(where[static_cast<std::size_t>(i.row())], i.column()));
  changePersistentIndexList(from, to);
  emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

std::optional<double> KeyTableModel::sortNumber(const KeyRow& r, int column) {
  // Figures a source does not report sort below every reported one.
  switch (column) {
    case Level:
      return r.level;
    case Occupancy:
      return r.occupancy.value_or(-1.0);
    case Rejected:
      return r.rates_reported ? r.rejected_per_s : -1.0;
    case PeakRejected:
      return r.peak_rejected_per_s.value_or(-1.0);
    case Shadow:
      return r.shadow_would_refuse_in_view.value_or(-1.0);
    case Spend:
      return r.spend_reported ? r.spend : -1.0;
    case QuotaBurn:
      return r.quota_reported ? r.quota_burn : -1.0;
    case LastSeen:
      return static_cast<double>(r.last_seen_ms);
    default:
      return std::nullopt;
  }
}

void KeyFilterProxy::sort(int column, Qt::SortOrder order) {
  if (sourceModel() != nullptr) sourceModel()->sort(column, order);
}

const KeyRow* KeyTableModel::rowAt(int row) const {
  if (row < 0 || row >= rowCount()) return nullptr;
  return &m_rows[static_cast<std::size_t>(row)];
}

int KeyTableModel::findRow(const QString& api_key, const QString& model) const {
  for (std::size_t i = 0; i < m_rows.size(); ++i) {
    if (QString::fromStdString(m_rows[i].api_key) == api_key &&
        QString::fromStdString(m_rows[i].model) == model) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int KeyTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int KeyTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

void KeyTableModel::setCompact(bool compact) {
  if (compact == m_compact) return;
  m_compact = compact;
  emit headerDataChanged(Qt::Horizontal, PeakRejected, PeakRejected);
  if (!m_rows.empty()) emit dataChanged(index(0, Key), index(rowCount() - 1, Shadow));
  reorder();  // the name and level read otherwise
}

QString KeyTableModel::compactName(const KeyRow& r) {
  // The model and limit columns are hidden: the name says them, so two rows of one key read
  // apart ("acme-chat/gpt-4.1", "campus-tutor/gemini-2.5-flash/llm_tokens"); the requests
  // limit, the usual one, goes unsaid. No spaces, so a narrow cell shows more of it; the view
  // elides it in its middle ("campus-…/llm_tokens").
  QString text = displayName(r);
  if (!r.model.empty()) text += QLatin1Char('/') + QString::fromStdString(r.model);
  if (!r.limit.empty() && r.limit != "requests")
    text += QLatin1Char('/') + QString::fromStdString(r.limit);
  return text;
}

QString KeyTableModel::levelAmounts(const KeyRow& r) {
  // Tenths of small buckets matter; of a million-token bucket they are noise.
  return QString(format_amount(r.level * r.capacity, r.capacity >= 1000 ? 0 : 1) +
                 QStringLiteral(" / ") + format_capacity(r.capacity));
}

QVariant KeyTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == QuotaBurn)
    return tr("Daily quota burn: today's cost units / the daily quota");
  if (role == Qt::ToolTipRole && section == Shadow) {
    return tr(
        "The rule's shadow config (never enforced): this key's requests in the chart window that "
        "the live "
        "config admitted and the shadow would refuse");
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Key:
      return tr("Key");
    case Tier:
      return tr("Tier");
    case Model:
      return tr("Model");
    case Limit:
      return tr("Limit");
    case Algorithm:
      return tr("Algorithm");
    case Level:
      return tr("Level");
    case Occupancy:
      return tr("Occupancy");
    case Rejected:
      return tr("429/s");
    case PeakRejected:
      return m_compact ? tr("Peak") : tr("Peak 429/s");
    case Shadow:
      return tr("Shadow");
    case Spend:
      return tr("Spend");
    case QuotaBurn:
      return tr("Burn");
    case LastSeen:
      return tr("Last seen");
    case Trend:
      return tr("Level trend");
    default:
      return {};
  }
}

QVariant KeyTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const KeyRow& r = m_rows[static_cast<std::size_t>(index.row())];
  const int col = index.column();
  if (role == SortRole) {
    if (col == LastSeen) return QVariant::fromValue<qlonglong>(r.last_seen_ms);
    if (const auto n = sortNumber(r, col)) return *n;
    return data(index, Qt::DisplayRole);
  }
  if (role == SparklineRole && col == Trend) {
    QVariantList values;
    values.reserve(static_cast<qsizetype>(r.sparkline.size()));
    for (double v : r.sparkline) values.append(v);
    return values;
  }
  if (role == Qt::TextAlignmentRole &&
      ((col >= Level && col <= QuotaBurn) || col == Occupancy || col == LastSeen)) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::ForegroundRole) {
    if ((col == Level && r.capacity > 0 && r.level < 0.1) ||
        (col == Rejected && r.rates_reported && r.rejected_per_s > 0.5) ||
        (col == PeakRejected && r.peak_rejected_per_s.value_or(0) > 0.5) ||
        (col == Shadow && r.shadow_would_refuse_in_view.value_or(0) > 0) ||
        (col == QuotaBurn && r.quota_reported && r.quota_burn > 0.8)) {
      return QColor(220, 50, 47);
    }
    return {};
  }
  if (role == Qt::ToolTipRole) {
    if (col == Key && m_compact) {
      return QStringLiteral("%1\n%2 · %3\n%4")
          .arg(displayName(r), QString::fromStdString(r.model), QString::fromStdString(r.limit),
               QString::fromStdString(r.parameters));
    }
    if (col == Key && r.name != r.api_key && !r.name.empty()) {
      return QStringLiteral("%1\n%2").arg(QString::fromStdString(r.api_key),
                                          QString::fromStdString(r.parameters));
    }
    if (col == Shadow) {
      if (!r.shadow_would_refuse_in_view)
        return tr("No decision of this key in view evaluated a shadow config");
      return tr("%1 of %2's requests in view: the live config admitted them, the shadow config "
                "would refuse them")
          .arg(*r.shadow_would_refuse_in_view, 0, 'f', 0)
          .arg(displayName(r));
    }
    if ((col == Rejected && !r.rates_reported) || (col == Spend && !r.spend_reported) ||
        (col == QuotaBurn && !r.quota_reported)) {
      return tr("Not reported by this source");
    }
    if (col == Level && m_compact && r.capacity > 0) return levelAmounts(r);
    return QString::fromStdString(r.parameters);
  }
  if (role != Qt::DisplayRole) return {};
  switch (col) {
    case Key:
      return m_compact ? compactName(r) : displayName(r);
    case Tier:
      return QString::fromStdString(r.tier);
    case Model:
      return QString::fromStdString(r.model);
    case Limit:
      return QString::fromStdString(r.limit);
    case Algorithm:
      return QString::fromStdString(r.algorithm);
    case Level:
      // Rows of gateway metrics carry rates, not levels (no capacity known).
      if (r.capacity <= 0) return kNotReported;
      if (m_compact) return QStringLiteral("%1%").arg(r.level * 100, 0, 'f', r.level < 0.1 ? 1 : 0);
      return levelAmounts(r);
    case Occupancy:
      return r.occupancy ? QStringLiteral("%1%").arg(*r.occupancy * 100, 0, 'f', 1) : kNotReported;
    case Rejected:
      return r.rates_reported ? QString::number(r.rejected_per_s, 'f', 1) : kNotReported;
    case PeakRejected:
      return r.peak_rejected_per_s ? QString::number(*r.peak_rejected_per_s, 'f', 1) : kNotReported;
    case Shadow:
      // "would refuse 12": a tenant the candidate would start refusing; "0": it agrees.
      if (!r.shadow_would_refuse_in_view) return kNotReported;
      if (*r.shadow_would_refuse_in_view <= 0) return QStringLiteral("0");
      // Compact: the count alone, red (the tooltip says what it counts), so nothing scrolls.
      if (m_compact) return QString::number(*r.shadow_would_refuse_in_view, 'f', 0);
      return tr("would refuse %1").arg(*r.shadow_would_refuse_in_view, 0, 'f', 0);
    case Spend:
      return r.spend_reported ? QStringLiteral("$%1").arg(r.spend, 0, 'f', 2) : kNotReported;
    case QuotaBurn:
      return r.quota_reported ? QStringLiteral("%1%").arg(r.quota_burn * 100, 0, 'f', 1)
                              : kNotReported;
    case LastSeen:
      return r.last_seen_ms > 0 ? QDateTime::fromMSecsSinceEpoch(r.last_seen_ms)
                                      .toString(QStringLiteral("HH:mm:ss"))
                                : kNotReported;
    default:
      return {};
  }
}

}  // namespace limitscope::ui
