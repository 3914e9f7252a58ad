#pragma once
// The Tuner's what-if scenarios page: a Redis outage (its window and the gateway replicas
// sharing the limit) and a cost-aware routing rule (requests under N tokens to another model),
// each run on the loaded trace with the current setting, and their results side by side. It
// only binds: the tab computes the scenarios on its worker (core/tuner/outage_whatif.h,
// routing_whatif.h) and shows core's tables here.

#include <QScrollArea>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLineEdit;
class QSpinBox;
QT_END_NAMESPACE

namespace limitscope::ui {

class ResultBox;

class ScenarioPanel : public QScrollArea {
  Q_OBJECT
 public:
  explicit ScenarioPanel(QWidget* parent = nullptr);

  /// The outage as typed: "10m@14:00" (UTC) or "90s@+5m" (from the trace's start).
  QString outage() const;
  int replicas() const;
  void setOutage(const QString& outage, int replicas);
  int routeUnder() const;
  QString routeModel() const;
  void setRouting(int under_tokens, const QString& model);
  ResultBox* outageBox() const { return m_outageBox; }
  ResultBox* routingBox() const { return m_routingBox; }

 signals:
  void outageClicked();
  void routingClicked();

 private:
  QLineEdit* m_outage = nullptr;
  QSpinBox* m_outageReplicas = nullptr;
  QSpinBox* m_routeUnder = nullptr;
  QComboBox* m_routeModel = nullptr;
  ResultBox* m_outageBox = nullptr;
  ResultBox* m_routingBox = nullptr;
};

}  // namespace limitscope::ui
