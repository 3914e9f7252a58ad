#pragma once
// The GUI's handle on connections.json (core/connections/connections_file.h): loads it once,
// keeps the last load error, and refuses to save while the file could not be read, so a file
// with a typo is reported and kept, never replaced by an empty list.

#include <QObject>
#include <QString>

#include "core/connections/connections_file.h"

namespace limitscope::ui {

class SavedConnections : public QObject {
  Q_OBJECT
 public:
  /// Uses connections_file_path() of the process environment (XDG_CONFIG_HOME, HOME).
  explicit SavedConnections(QObject* parent = nullptr);

  /// (Re)reads the file. @return false when it could not be read (see loadError())
  bool load();
  const QString& path() const { return m_path; }
  /// Empty when the last load worked. Names the file, the line and the reason.
  const QString& loadError() const { return m_loadError; }
  const connections::ConnectionsDocument& document() const { return m_document; }

  /// Writes `document` and keeps it. @return an error (empty on success); refused while the
  /// file on disk could not be read
  QString save(const connections::ConnectionsDocument& document);
  /// Puts `name` first in the recent list and saves (silently skipped after a load error).
  void markRecent(const QString& name);

 signals:
  void changed();

 private:
  QString m_path;
  QString m_loadError;
  connections::ConnectionsDocument m_document;
};

}  // namespace limitscope::ui
