#include "ui/connections/saved_connections.h"

namespace limitscope::ui {

SavedConnections::SavedConnections(QObject* parent) : QObject(parent) {
  auto path = connections::connections_file_path(connections::process_env());
  if (path) {
    m_path = QString::fromStdString(path->string());
  } else {
    m_loadError = QString::fromStdString(path.error());
  }
  (void)load();  // a failure is loadError(), which the dialog shows when it opens
}

Status SavedConnections::load() {
  if (m_path.isEmpty()) return make_error(m_loadError.toStdString());
  auto doc = connections::load_connections_file(m_path.toStdString());
  if (!doc) {
    m_loadError = QString::fromStdString(doc.error());
    m_document = {};
    emit changed();
    return make_error(doc.error());
  }
  m_loadError.clear();
  m_document = std::move(*doc);
  emit changed();
  return {};
}

Status SavedConnections::save(const connections::ConnectionsDocument& document) {
  if (!m_loadError.isEmpty()) {
    return make_error(
        tr("not saved: %1 could not be read, and is left as it is until it is fixed (%2)")
            .arg(m_path.isEmpty() ? QStringLiteral("connections.json") : m_path, m_loadError)
            .toStdString());
  }
  if (Status saved = connections::save_connections_file(m_path.toStdString(), document);
      !saved.ok())
    return saved;
  m_document = document;
  emit changed();
  return {};
}

Status SavedConnections::markRecent(const QString& name) {
  if (!m_loadError.isEmpty() || m_document.find(name.toStdString()) == nullptr) return {};
  connections::ConnectionsDocument d = m_document;
  connections::touch_recent(d, name.toStdString());
  return save(d);
}

}  // namespace limitscope::ui
