#pragma once
// The key browser's table: one row per listed limiter key (core/probe/key_inspect.h) with its
// profile, kind, level or occupancy, TTL, sampled memory and any problem reading it.

#include <vector>

#include "core/probe/key_inspect.h"
#include "ui/models/flat_table_model.h"

namespace limitscope::ui {

class KeyBrowserModel : public FlatTableModel {
  Q_OBJECT
 public:
  enum Column { Key, Profile, Kind, Level, Ttl, Memory, Problem, ColumnCount };
  /// The number behind a formatted cell, for sorting.
  static constexpr int SortRole = Qt::UserRole + 1;

  explicit KeyBrowserModel(QObject* parent = nullptr);

  void setKeys(std::vector<probe::BrowsedKey> keys);
  const probe::BrowsedKey* keyAt(int row) const;
  /// Row of a key, or -1.
  int findRow(const QString& key) const;

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

  /// "12.5 / 60 (21%)", "30 / 100 (30%)", "0.17 tokens" — what the Level column shows.
  static QString levelText(const probe::KeyReading& r);
  /// "1.2 KiB"
  static QString bytesText(std::int64_t bytes);
  /// "59.2 s", "3 min", "no TTL"
  static QString ttlText(const std::optional<std::int64_t>& ttl_ms);

 private:
  int rows() const override;

  std::vector<probe::BrowsedKey> m_keys;
};

}  // namespace limitscope::ui
