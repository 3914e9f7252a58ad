#pragma once
// A finished ResultTable (core/common/result_table.h: an audit's or a what-if's rows, already
// formatted in core) as a table model: its cells as text, a flagged row tinted red, each row's
// detail (examples, explanations) as the tooltip of its cells.

#include "core/common/result_table.h"
#include "ui/models/flat_table_model.h"

namespace limitscope::ui {

class ResultTableModel : public FlatTableModel {
  Q_OBJECT
 public:
  explicit ResultTableModel(QObject* parent = nullptr);

  void setTable(ResultTable table);
  const ResultTable& table() const { return m_table; }
  /// The shown text of a cell (tests read what the operator reads).
  QString text(int row, int column) const;
  bool isFlagged(int row) const;

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 private:
  int rows() const override;

  ResultTable m_table;
};

}  // namespace limitscope::ui
