#include "ui/result_box.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/models/result_table_model.h"

namespace limitscope::ui {

ResultBox::ResultBox(const QString& title, QWidget* parent)
    : QGroupBox(title, parent), m_baseTitle(title) {
  auto* layout = new QVBoxLayout(this);
  m_verdict = new QLabel(this);
  m_verdict->setWordWrap(true);
  m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_model = new ResultTableModel(this);
  m_view = new QTableView(this);
  m_view->setModel(m_model);
  m_view->verticalHeader()->hide();
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_view->horizontalHeader()->setStretchLastSection(true);
  m_view->setWordWrap(false);
  m_notes = new QLabel(this);
  m_notes->setWordWrap(true);
  m_notes->hide();
  layout->addWidget(m_verdict);
  layout->addWidget(m_view, 1);
  layout->addWidget(m_notes);
}

void ResultBox::setTable(ResultTable table) {
  m_problem = table.problem;
  if (!table.title.empty()) setTitle(QString::fromStdString(table.title));
  m_verdict->setText(QString::fromStdString(table.verdict));
  m_verdict->setStyleSheet(table.problem ? QStringLiteral("color: #dc322f; font-weight: bold")
                                         : QStringLiteral("color: #2aa198; font-weight: bold"));
  QStringList notes;
  for (const auto& n : table.notes) notes << QString::fromStdString(n);
  m_notes->setText(notes.join(QLatin1Char('\n')));
  m_notes->setVisible(!notes.isEmpty());
  m_model->setTable(std::move(table));
  m_view->resizeColumnsToContents();
}

void ResultBox::setMessage(const QString& text, bool error) {
  m_problem = false;
  setTitle(m_baseTitle);
  m_verdict->setText(text);
  m_verdict->setStyleSheet(error ? QStringLiteral("color: #dc322f") : QString());
  m_notes->hide();
  m_model->setTable({});
}

QString ResultBox::verdict() const {
  return m_verdict->text();
}

QString ResultBox::notesText() const {
  return m_notes->text();
}

bool ResultBox::isProblem() const {
  return m_problem;
}

}  // namespace limitscope::ui
