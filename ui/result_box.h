#pragma once
// One result on screen: a titled box with the verdict (red when it is a finding), the table
// (ResultTableModel) and its notes. Used by the Audits panel and the Tuner's scenarios.

#include <QGroupBox>

#include "core/common/result_table.h"

QT_BEGIN_NAMESPACE
class QLabel;
class QTableView;
QT_END_NAMESPACE

namespace limitscope::ui {

class ResultTableModel;

class ResultBox : public QGroupBox {
  Q_OBJECT
 public:
  explicit ResultBox(const QString& title, QWidget* parent = nullptr);

  void setTable(ResultTable table);
  /// No result: `text` says why (not configured, running, failed: reason).
  void setMessage(const QString& text, bool error = false);

  QString verdict() const;
  /// The notes under the table (the likely cause, what was skipped), one per line.
  QString notesText() const;
  bool isProblem() const;
  ResultTableModel* model() const { return m_model; }
  QTableView* view() const { return m_view; }

 private:
  QString m_baseTitle;
  QLabel* m_verdict = nullptr;
  QTableView* m_view = nullptr;
  QLabel* m_notes = nullptr;
  ResultTableModel* m_model = nullptr;
  bool m_problem = false;
};

}  // namespace limitscope::ui
