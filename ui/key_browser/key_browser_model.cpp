#include "ui/key_browser/key_browser_model.h"

#include <QBrush>
#include <QColor>
#include <limits>

#include "ui/qt_text.h"

namespace limitscope::ui {
namespace {

QString number(double v) {
  return QString::number(v, 'g', 6);
}

// "4 / 10 (40%)": a value out of its bound, and the ratio between them.
QString outOf(double value, double bound, double ratio) {
  return QStringLiteral("%1 / %2 (%3%)")
      .arg(number(value), number(bound))
      .arg(ratio * 100, 0, 'f', 0);
}

}  // namespace

KeyBrowserModel::KeyBrowserModel(QObject* parent)
    : FlatTableModel({tr("Key"), tr("Profile"), tr("Kind"), tr("Level / window"), tr("TTL"),
                      tr("Memory"), tr("Problem")},
                     parent) {}

void KeyBrowserModel::setKeys(std::vector<probe::BrowsedKey> keys) {
  beginResetModel();
  m_keys = std::move(keys);
  endResetModel();
}

const probe::BrowsedKey* KeyBrowserModel::keyAt(int row) const {
  if (row < 0 || row >= static_cast<int>(m_keys.size())) return nullptr;
  return &m_keys[static_cast<std::size_t>(row)];
}

int KeyBrowserModel::findRow(const QString& key) const {
  const std::string k = key.toStdString();
  for (std::size_t i = 0; i < m_keys.size(); ++i) {
    if (m_keys[i].reading.key == k) return static_cast<int>(i);
  }
  return -1;
}

QString KeyBrowserModel::levelText(const probe::KeyReading& r) {
  if (!r.error.empty()) return QStringLiteral("—");
  if (r.level) {
    if (r.capacity && r.fill) return outOf(*r.level, *r.capacity, *r.fill);
    return QObject::tr("%1 tokens").arg(number(*r.level));
  }
  if (r.count) {
    if (r.limit && r.occupancy) return outOf(*r.count, *r.limit, *r.occupancy);
    return QObject::tr("%1 used").arg(number(*r.count));
  }
  return QStringLiteral("—");
}

QString KeyBrowserModel::bytesText(std::int64_t bytes) {
  if (bytes < 1024) return QObject::tr("%1 B").arg(bytes);
  if (bytes < 1024 * 1024)
    return QObject::tr("%1 KiB").arg(static_cast<double>(bytes) / 1024, 0, 'f', 1);
  return QObject::tr("%1 MiB").arg(static_cast<double>(bytes) / (1024 * 1024), 0, 'f', 1);
}

QString KeyBrowserModel::ttlText(const std::optional<std::int64_t>& ttl_ms) {
  if (!ttl_ms) return QObject::tr("no TTL");
  const double s = static_cast<double>(*ttl_ms) / 1000;
  if (s < 120) return QObject::tr("%1 s").arg(s, 0, 'f', 1);
  if (s < 7200) return QObject::tr("%1 min").arg(s / 60, 0, 'f', 0);
  return QObject::tr("%1 h").arg(s / 3600, 0, 'f', 1);
}

int KeyBrowserModel::rows() const {
  return static_cast<int>(m_keys.size());
}

QVariant KeyBrowserModel::data(const QModelIndex& index, int role) const {
  const probe::BrowsedKey* k = keyAt(index.row());
  if (k == nullptr) return {};
  const probe::KeyReading& r = k->reading;
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
    switch (index.column()) {
      case Key:
        // A cluster key's tooltip names its shard.
        if (role == Qt::ToolTipRole && !r.node.empty())
          return tr("%1\non shard %2").arg(qs(r.key), qs(r.node));
        return qs(r.key);
      case Profile:
        return qs(r.profile);
      case Kind:
        return qs(std::string(probe::to_string(r.kind)));
      case Level:
        return levelText(r);
      case Ttl:
        return ttlText(r.ttl_ms);
      case Memory:
        return k->memory_bytes
                   ? bytesText(*k->memory_bytes)
                   : (role == Qt::ToolTipRole ? tr("not sampled yet (a few keys per refresh)")
                                              : QStringLiteral("…"));
      case Problem:
        return qs(r.error);
      default:
        return {};
    }
  }
  if (role == SortRole) {
    switch (index.column()) {
      case Level:
        return r.pressure() ? QVariant(*r.pressure()) : QVariant(-1.0);
      case Ttl:
        return r.ttl_ms ? QVariant(static_cast<qlonglong>(*r.ttl_ms))
                        : QVariant(std::numeric_limits<qlonglong>::max());
      case Memory:
        return k->memory_bytes ? QVariant(static_cast<qlonglong>(*k->memory_bytes))
                               : QVariant(-1LL);
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::ForegroundRole && !r.error.empty()) return QBrush(QColor(0xdc, 0x32, 0x2f));
  if (role == Qt::TextAlignmentRole &&
      (index.column() == Level || index.column() == Ttl || index.column() == Memory)) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  return {};
}

}  // namespace limitscope::ui
