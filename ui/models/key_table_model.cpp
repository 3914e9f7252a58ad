#include "ui/models/key_table_model.h"

#include <QColor>
#include <QDateTime>

#include <unordered_map>

#include "ui/amounts.h"

namespace limitscope::ui {
namespace {

const QString kNotReported = QStringLiteral("—");

}  // namespace

KeyTableModel::KeyTableModel(QObject* parent) : QAbstractTableModel(parent) {}

std::string KeyTableModel::identity(const KeyRow& r) {
  // The algorithm tells apart the per-tier rows of two sources ("gateway metrics", "prometheus").
  return r.api_key + '\x1f' + r.tier + '\x1f' + r.model + '\x1f' + r.limit + '\x1f' + r.node + '\x1f' + r.algorithm;
}

QString KeyTableModel::displayName(const KeyRow& r) {
  return QString::fromStdString(r.name.empty() ? r.api_key : r.name);
}

void KeyTableModel::setRows(std::vector<KeyRow> rows) {
  // Identities, the n-th of equal ones told apart by n (a source should not repeat a row, but
  // the table must not break when one does).
  const auto identities = [](const std::vector<KeyRow>& v) {
    std::unordered_map<std::string, int> seen;
    std::vector<std::string> out;
    out.reserve(v.size());
    for (const KeyRow& r : v) {
      std::string id = identity(r);
      id += '#' + std::to_string(seen[id]++);
      out.push_back(std::move(id));
    }
    return out;
  };
  const std::vector<std::string> ids = identities(rows);
  std::unordered_map<std::string, std::size_t> incoming;  // identity → index in rows
  incoming.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) incoming.emplace(ids[i], i);
  // Rows that are gone, from the back so the indexes ahead stay valid.
  const std::vector<std::string> have_ids = identities(m_rows);
  for (int i = rowCount() - 1; i >= 0; --i) {
    if (incoming.count(have_ids[static_cast<std::size_t>(i)])) continue;
    beginRemoveRows({}, i, i);
    m_rows.erase(m_rows.begin() + i);
    endRemoveRows();
  }
  // Rows still here change in place (the n-th of equal rows keeps its number: the rows
  // before it of the same identity were kept too); the rest are appended.
  const std::vector<std::string> left_ids = identities(m_rows);
  std::vector<bool> placed(rows.size(), false);
  for (std::size_t i = 0; i < m_rows.size(); ++i) {
    const std::size_t from = incoming.at(left_ids[i]);
    m_rows[i] = std::move(rows[from]);
    placed[from] = true;
  }
  if (!m_rows.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  std::vector<KeyRow> added;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!placed[i]) added.push_back(std::move(rows[i]));
  }
  if (added.empty()) return;
  beginInsertRows({}, rowCount(), rowCount() + static_cast<int>(added.size()) - 1);
  for (KeyRow& r : added) m_rows.push_back(std::move(r));
  endInsertRows();
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
  if (!m_rows.empty()) emit dataChanged(index(0, Key), index(rowCount() - 1, Level));
}

QString KeyTableModel::compactName(const KeyRow& r) {
  // The model and limit columns are hidden: the name says them, so two rows of one key read
  // apart ("acme-chat/gpt-4.1", "campus-tutor/gemini-2.5-flash/llm_tokens"); the requests
  // limit, the usual one, goes unsaid. No spaces, so a narrow cell shows more of it; the view
  // elides it in its middle ("campus-…/llm_tokens").
  QString text = displayName(r);
  if (!r.model.empty()) text += QLatin1Char('/') + QString::fromStdString(r.model);
  if (!r.limit.empty() && r.limit != "requests") text += QLatin1Char('/') + QString::fromStdString(r.limit);
  return text;
}

QString KeyTableModel::levelAmounts(const KeyRow& r) {
  // Tenths of small buckets matter; of a million-token bucket they are noise.
  return QString(format_amount(r.level * r.capacity, r.capacity >= 1000 ? 0 : 1) + QStringLiteral(" / ") +
                 format_capacity(r.capacity));
}

QVariant KeyTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == QuotaBurn) return tr("Daily quota burn: today's cost units / the daily quota");
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Key: return tr("Key");
    case Tier: return tr("Tier");
    case Model: return tr("Model");
    case Limit: return tr("Limit");
    case Algorithm: return tr("Algorithm");
    case Level: return tr("Level");
    case Occupancy: return tr("Occupancy");
    case Rejected: return tr("429/s");
    case PeakRejected: return m_compact ? tr("Peak") : tr("Peak 429/s");
    case Spend: return tr("Spend");
    case QuotaBurn: return tr("Burn");
    case LastSeen: return tr("Last seen");
    case Trend: return tr("Level trend");
    default: return {};
  }
}

QVariant KeyTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const KeyRow& r = m_rows[static_cast<std::size_t>(index.row())];
  const int col = index.column();
  if (role == SortRole) {
    // Figures a source does not report sort below every reported one.
    switch (col) {
      case Level: return r.level;
      case Occupancy: return r.occupancy.value_or(-1.0);
      case Rejected: return r.rates_reported ? r.rejected_per_s : -1.0;
      case PeakRejected: return r.peak_rejected_per_s.value_or(-1.0);
      case Spend: return r.spend_reported ? r.spend : -1.0;
      case QuotaBurn: return r.quota_reported ? r.quota_burn : -1.0;
      case LastSeen: return QVariant::fromValue<qlonglong>(r.last_seen_ms);
      default: return data(index, Qt::DisplayRole);
    }
  }
  if (role == SparklineRole && col == Trend) {
    QVariantList values;
    values.reserve(static_cast<qsizetype>(r.sparkline.size()));
    for (double v : r.sparkline) values.append(v);
    return values;
  }
  if (role == Qt::TextAlignmentRole && ((col >= Level && col <= QuotaBurn) || col == Occupancy || col == LastSeen)) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::ForegroundRole) {
    if ((col == Level && r.capacity > 0 && r.level < 0.1) ||
        (col == Rejected && r.rates_reported && r.rejected_per_s > 0.5) ||
        (col == PeakRejected && r.peak_rejected_per_s.value_or(0) > 0.5) ||
        (col == QuotaBurn && r.quota_reported && r.quota_burn > 0.8)) {
      return QColor(220, 50, 47);
    }
    return {};
  }
  if (role == Qt::ToolTipRole) {
    if (col == Key && m_compact) {
      return QStringLiteral("%1\n%2 · %3\n%4").arg(displayName(r), QString::fromStdString(r.model),
                                                 QString::fromStdString(r.limit), QString::fromStdString(r.parameters));
    }
    if (col == Key && r.name != r.api_key && !r.name.empty()) {
      return QStringLiteral("%1\n%2").arg(QString::fromStdString(r.api_key), QString::fromStdString(r.parameters));
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
    case Key: return m_compact ? compactName(r) : displayName(r);
    case Tier: return QString::fromStdString(r.tier);
    case Model: return QString::fromStdString(r.model);
    case Limit: return QString::fromStdString(r.limit);
    case Algorithm: return QString::fromStdString(r.algorithm);
    case Level:
      // Rows of gateway metrics carry rates, not levels (no capacity known).
      if (r.capacity <= 0) return kNotReported;
      if (m_compact) return QStringLiteral("%1%").arg(r.level * 100, 0, 'f', r.level < 0.1 ? 1 : 0);
      return levelAmounts(r);
    case Occupancy:
      return r.occupancy ? QStringLiteral("%1%").arg(*r.occupancy * 100, 0, 'f', 1) : kNotReported;
    case Rejected: return r.rates_reported ? QString::number(r.rejected_per_s, 'f', 1) : kNotReported;
    case PeakRejected:
      return r.peak_rejected_per_s ? QString::number(*r.peak_rejected_per_s, 'f', 1) : kNotReported;
    case Spend: return r.spend_reported ? QStringLiteral("$%1").arg(r.spend, 0, 'f', 2) : kNotReported;
    case QuotaBurn:
      return r.quota_reported ? QStringLiteral("%1%").arg(r.quota_burn * 100, 0, 'f', 1) : kNotReported;
    case LastSeen:
      return r.last_seen_ms > 0
                 ? QDateTime::fromMSecsSinceEpoch(r.last_seen_ms).toString(QStringLiteral("HH:mm:ss"))
                 : kNotReported;
    default: return {};
  }
}

}  // namespace limitscope::ui
