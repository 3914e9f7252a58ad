#pragma once
// The details pane's recent decisions of the selected key, newest first: time, model, cost,
// result (allowed, or 429 with its reason), the limit that refused a 429 (requests or
// llm_tokens; cost and remaining are that limit's), remaining, retry-after and the Retry-After
// header sent. The rows come from the source (a bounded ring per key kept in core); this model
// only shows them.

#include <vector>

#include "core/dashboard/dashboard_snapshot.h"
#include "ui/models/flat_table_model.h"

namespace limitscope::ui {

class DecisionTableModel : public FlatTableModel {
  Q_OBJECT
 public:
  enum Column {
    Time,
    Model,
    Cost,
    Result,
    Limit,
    Remaining,
    RetryAfter,
    RetryAfterSent,
    ColumnCount
  };

  explicit DecisionTableModel(QObject* parent = nullptr);

  /// Replaces the rows (newest first), keeping the view's rows when nothing changed.
  void setDecisions(std::vector<DecisionRow> rows);
  const DecisionRow* decisionAt(int row) const;

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 private:
  int rows() const override;

  std::vector<DecisionRow> m_rows;
};

}  // namespace limitscope::ui
