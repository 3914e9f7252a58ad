#pragma once
// The GUI's handle on connections.json (core/connections/connections_file.h): loads it once,
// keeps the last load error, and refuses to save while the file could not be read, so a file
// with a typo is reported and kept, never replaced by an empty list.

#include <QObject>
#include <QString>

#include "core/common/expected.h"
#include "core/connections/connections_file.h"

namespace limitscope::ui {

class SavedConnections : public QObject {
  Q_OBJECT
 public:
  /// Uses connections_file_path() of the process environment (XDG_CONFIG_HOME, HOME).
  explicit SavedConnections(QObject* parent = nullptr);

  /// (Re)reads the file. @return ok, or why it could not be read (loadError() keeps it)
  Status load();
  const QString& path() const { return m_path; }
  /// Why the file could not be read at the last load (names the file, the line and the
  /// reason), or empty. Not an outcome but the state saving depends on: while it is set,
  /// save() refuses, and the dialog says so whenever it opens.
  const QString& loadError() const { return m_loadError; }
  const connections::ConnectionsDocument& document() const { return m_document; }

  /// Writes `document` and keeps it. @return ok, or why not; refused while the file on disk
  /// could not be read
  Status save(const connections::ConnectionsDocument& document);
  /// Puts `name` first in the recent list and saves (skipped, ok, after a load error or for
  /// a name not saved). @return ok, or why the list could not be saved
  Status markRecent(const QString& name);

 signals:
  void changed();

 private:
  QString m_path;
  QString m_loadError;
  connections::ConnectionsDocument m_document;
};

}  // namespace limitscope::ui
