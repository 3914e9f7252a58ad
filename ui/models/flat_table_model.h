#pragma once
// The part every flat table model of the GUI shares: rows without children, one column per
// title, and the titles as the horizontal header. A subclass says how many rows it holds and
// what a cell shows (data()).

#include <QAbstractTableModel>
#include <QStringList>

namespace limitscope::ui {

class FlatTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  /// The subclass's row count; 0 under a valid parent (a flat table has no children).
  int rowCount(const QModelIndex& parent = {}) const final;
  /// The number of titles; 0 under a valid parent.
  int columnCount(const QModelIndex& parent = {}) const final;
  /// The column's title for Qt::DisplayRole on the horizontal header; nothing else.
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 protected:
  /// @param titles one per column, in column order
  explicit FlatTableModel(QStringList titles, QObject* parent = nullptr);

  /// Replaces the column titles (and so the column count); call inside a model reset.
  void setTitles(QStringList titles) { m_titles = std::move(titles); }
  /// True for an index of a cell this table holds (what data() answers for).
  bool isCell(const QModelIndex& index) const;

 private:
  /// The rows held now.
  virtual int rows() const = 0;

  QStringList m_titles;
};

}  // namespace limitscope::ui
