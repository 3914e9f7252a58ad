#include "ui/models/key_table_model.h"

#include <QColor>
#include <algorithm>

#include "ui/amounts.h"
#include "ui/local_time.h"

namespace limitscope::ui {
namespace {

const QString kNotReported = QStringLiteral("—");

}  // namespace

KeyTableModel::KeyTableModel(QObject* parent)
    : QAbstractTableModel(parent), m_rows(std::make_shared<const std::vector<KeyRow>>()) {}

bool KeyTableModel::anyReports(const std::vector<KeyRow>& rows, Column column) {
  return std::any_of(rows.begin(), rows.end(), [column](const KeyRow& r) {
    switch (column) {
      case Shadow:
        return r.shadow_would_refuse_in_view.has_value();
      case Spend:
        return r.spend_reported;
      case QuotaBurn:
        return r.quota_reported;
      default:
        return true;
    }
  });
}

QString KeyTableModel::displayName(const KeyRow& r) {
  return QString::fromStdString(key_display_name(r));
}

namespace {

/// Calls f(first, last) for each run of consecutive positions in `positions` (ascending), from
/// the back (so removing a run keeps the positions of the runs before it valid).
template <class F>
void for_each_run_backwards(const std::vector<std::uint32_t>& positions, F f) {
  for (std::size_t i = positions.size(); i > 0;) {
    const std::size_t last = --i;
    while (i > 0 && positions[i - 1] + 1 == positions[i]) --i;
    f(static_cast<int>(positions[i]), static_cast<int>(positions[last]));
  }
}

}  // namespace

void KeyTableModel::setRows(const std::vector<KeyRow>& rows) {
  setRows(std::make_shared<const std::vector<KeyRow>>(rows), nullptr);
}

void KeyTableModel::setRows(std::shared_ptr<const std::vector<KeyRow>> rows,
                            const KeyTableUpdate* update) {
  if (!rows) rows = std::make_shared<const std::vector<KeyRow>>();
  if (update != nullptr && update->sort == m_sort && update->change.order.size() == rows->size()) {
    // The worker's order: as it is when it starts from the rows shown, else from the rows
    // shown to that order (the table missed a snapshot, or showed its own order since).
    if (update->base != 0 && update->base == m_revision) {
      apply(std::move(rows), update->change);
    } else {
      const KeyTableChange change =
          diff_key_table_to(*m_rows, m_order, *rows, update->change.order);
      apply(std::move(rows), change);
    }
    m_revision = update->revision;
    return;
  }
  const KeyTableChange change = diff_key_table(*m_rows, m_order, *rows, m_sort);
  apply(std::move(rows), change);
  m_revision = 0;
}

void KeyTableModel::apply(std::shared_ptr<const std::vector<KeyRow>> rows,
                          const KeyTableChange& change) {
  // Only what changed is published, each step leaving the model consistent for the views:
  // the rows gone (from the back), the rows kept put in their new order (one layout change,
  // only if one moved), the new rows inserted at their places (from the front), then
  // dataChanged per run of rows whose figures changed. A live refresh of 10,000 keys moves few.
  for_each_run_backwards(change.removed, [&](int first, int last) {
    beginRemoveRows({}, first, last);
    m_order.erase(m_order.begin() + first, m_order.begin() + last + 1);
    endRemoveRows();
  });
  std::vector<std::uint32_t> kept;  // the kept rows in their new order, as indexes in `rows`
  kept.reserve(change.order.size());
  for (std::size_t p = 0; p < change.order.size(); ++p) {
    if (change.before[p] >= 0) kept.push_back(change.order[p]);
  }
  if (change.moved) {
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    // Table position before → after the removals, and the kept rows' new positions.
    std::vector<int> compacted(change.removed.size() + m_order.size(), -1);
    for (std::size_t p = 0, gone = 0, now = 0; p < compacted.size(); ++p) {
      if (gone < change.removed.size() && change.removed[gone] == p) {
        ++gone;
      } else {
        compacted[p] = static_cast<int>(now++);
      }
    }
    std::vector<int> where(m_order.size());  // position after the removals → new position
    for (std::size_t p = 0, k = 0; p < change.order.size(); ++p) {
      if (change.before[p] >= 0)
        where[static_cast<std::size_t>(compacted[static_cast<std::size_t>(change.before[p])])] =
            static_cast<int>(k++);
    }
    m_rows = rows;
    m_order = std::move(kept);
    const QModelIndexList from = persistentIndexList();
    QModelIndexList to;
    to.reserve(from.size());
    for (const QModelIndex& i : from)
      to.append(index(where[static_cast<std::size_t>(i.row())], i.column()));
    changePersistentIndexList(from, to);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
  } else {
    m_rows = rows;
    m_order = std::move(kept);
  }
  for (std::size_t p = 0; p < change.order.size();) {
    if (change.before[p] >= 0) {
      ++p;
      continue;
    }
    const std::size_t first = p;
    while (p < change.order.size() && change.before[p] < 0) ++p;
    beginInsertRows({}, static_cast<int>(first), static_cast<int>(p - 1));
    m_order.insert(m_order.begin() + static_cast<std::ptrdiff_t>(first),
                   change.order.begin() + static_cast<std::ptrdiff_t>(first),
                   change.order.begin() + static_cast<std::ptrdiff_t>(p));
    endInsertRows();
  }
  m_rows = std::move(rows);
  for_each_run_backwards(change.changed, [&](int first, int last) {
    emit dataChanged(index(first, 0), index(last, ColumnCount - 1));
  });
}

void KeyTableModel::sort(int column, Qt::SortOrder order) {
  KeySort sort = m_sort;
  sort.column = column;
  sort.ascending = order == Qt::AscendingOrder;
  if (sort == m_sort) return;
  m_sort = sort;
  resort();
  emit sortChanged(m_sort);
}

void KeyTableModel::resort() {
  apply(m_rows, diff_key_table(*m_rows, m_order, *m_rows, m_sort));
  m_revision = 0;
}

void KeyFilterProxy::sort(int column, Qt::SortOrder order) {
  if (sourceModel() != nullptr) sourceModel()->sort(column, order);
}

const KeyRow* KeyTableModel::rowAt(int r) const {
  if (r < 0 || r >= rowCount()) return nullptr;
  return &row(r);
}

int KeyTableModel::findRow(const QString& api_key, const QString& model) const {
  const std::string key = api_key.toStdString(), m = model.toStdString();
  for (int r = 0; r < rowCount(); ++r) {
    if (row(r).api_key == key && row(r).model == m) return r;
  }
  return -1;
}

int KeyTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_order.size());
}

int KeyTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

void KeyTableModel::setCompact(bool compact) {
  if (compact == m_compact) return;
  m_compact = compact;
  emit headerDataChanged(Qt::Horizontal, PeakRejected, PeakRejected);
  if (!m_order.empty()) emit dataChanged(index(0, Level), index(rowCount() - 1, Shadow));
}

void KeyTableModel::setQualified(bool qualified) {
  if (qualified == m_sort.qualified) return;
  m_sort.qualified = qualified;
  if (!m_order.empty()) emit dataChanged(index(0, Key), index(rowCount() - 1, Key));
  if (m_sort.column == Key) resort();  // the name reads otherwise
  emit sortChanged(m_sort);
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
  const KeyRow& r = row(index.row());
  const int col = index.column();
  if (role == SortRole) {
    if (col == LastSeen) return QVariant::fromValue<qlonglong>(r.last_seen_ms);
    if (const auto n = key_sort_number(r, col)) return *n;
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
    if (col == Key && m_sort.qualified) {
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
      return QString::fromStdString(m_sort.qualified ? key_qualified_name(r) : key_display_name(r));
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
      return r.last_seen_ms > 0 ? local_time_text(r.last_seen_ms, QStringLiteral("HH:mm:ss"))
                                : kNotReported;
    default:
      return {};
  }
}

}  // namespace limitscope::ui
