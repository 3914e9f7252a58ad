#pragma once
// The key browser's I/O, on its own thread: a redis::Endpoint (one connection to the server,
// or one per master of a redis+cluster:// URL, reopened after a failure), a KeyBrowser for
// the listing (budgeted SCAN, pipelined reads, sampled MEMORY USAGE) and raw reads of one key.
// Results go back as queued signals; nothing here touches a widget.

#include <QObject>
#include <QString>
#include <memory>

#include "core/probe/key_inspect.h"
#include "core/redis/connection.h"
#include "core/redis/endpoint.h"

namespace limitscope::ui {

using KeyListingPtr = std::shared_ptr<const probe::KeyListing>;
using RawKeyPtr = std::shared_ptr<const probe::RawKey>;

class KeyBrowserWorker : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  ~KeyBrowserWorker() override;

 public slots:
  /// A new server (URL with its password, as MainWindow::openRedis gets it), profiles file
  /// (empty: built-in only) and SCAN MATCH pattern; then a refresh.
  void setTarget(const QString& url, const QString& profiles, const QString& match);
  /// Another SCAN MATCH pattern on the same server; then a refresh.
  void setMatch(const QString& match);
  /// One budgeted discovery step and a read of every listed key.
  void refresh();
  /// The raw contents of one key.
  void inspect(const QString& key);

 signals:
  void listed(limitscope::ui::KeyListingPtr listing);
  void inspected(limitscope::ui::RawKeyPtr raw);
  /// kind: io, timeout, auth, reply, ... (core/redis/redis_error.h), or "config" for a URL or
  /// profiles file that cannot be used; `key` is set when the failure was an inspect.
  void failed(const QString& kind, const QString& message, const QString& key);

 private:
  void rebuild();

  std::vector<probe::LimiterProfile> m_profiles;
  QString m_match;
  std::unique_ptr<probe::KeyBrowser> m_browser;
  std::unique_ptr<redis::Endpoint> m_endpoint;  ///< null until a target is set
};

}  // namespace limitscope::ui

Q_DECLARE_METATYPE(limitscope::ui::KeyListingPtr)
Q_DECLARE_METATYPE(limitscope::ui::RawKeyPtr)
