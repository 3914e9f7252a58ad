#include "ui/key_browser/key_browser_worker.h"
#include "ui/qt_text.h"

namespace limitscope::ui {
namespace {

// Short timeouts: a dead or stopped server costs a refresh two seconds, not a hung thread.
redis::ConnectOptions browser_timeouts() {
  redis::ConnectOptions o;
  o.connect_timeout = std::chrono::milliseconds(2000);
  o.command_timeout = std::chrono::milliseconds(5000);
  return o;
}

}  // namespace

KeyBrowserWorker::~KeyBrowserWorker() = default;

void KeyBrowserWorker::setTarget(const QString& url, const QString& profiles,
                                 const QString& match) {
  m_conn.reset();
  m_cluster.reset();
  m_browser.reset();
  m_url.reset();
  m_match = match;
  auto parsed = redis::parse_redis_url(url.toStdString());
  if (!parsed) {
    emit failed(QStringLiteral("config"), qs(parsed.error()), QString());
    return;
  }
  m_profiles.clear();
  if (!profiles.isEmpty()) {
    auto loaded = probe::load_profiles_file(profiles.toStdString());
    if (!loaded) {
      emit failed(QStringLiteral("config"), qs(loaded.error()), QString());
      return;
    }
    m_profiles = std::move(*loaded);
  }
  for (auto& p : probe::builtin_profiles()) m_profiles.push_back(std::move(p));
  m_url = std::move(*parsed);
  if (m_url->cluster()) {
    redis::ClusterOptions co;
    co.connect = browser_timeouts();
    co.reconnect.max = std::chrono::seconds(2);
    m_cluster = std::make_unique<redis::ClusterClient>(*m_url, co, SteadyClock::instance());
  }
  rebuild();
  refresh();
}

void KeyBrowserWorker::setMatch(const QString& match) {
  m_match = match;
  if (!m_url) return;
  rebuild();
  refresh();
}

void KeyBrowserWorker::rebuild() {
  probe::KeyBrowserOptions o;
  o.match = m_match.trimmed().isEmpty() ? std::string("*") : m_match.trimmed().toStdString();
  m_browser = std::make_unique<probe::KeyBrowser>(m_profiles, o);
}

redis::Connection* KeyBrowserWorker::connection(QString& error_kind, QString& error) {
  if (m_conn && m_conn->usable()) return m_conn.get();
  m_conn.reset();
  auto c = redis::Connection::open(*m_url, browser_timeouts());
  if (!c) {
    error_kind = qs(std::string(redis::to_string(c.error().kind)));
    error = qs(c.error().message);
    return nullptr;
  }
  m_conn = std::make_unique<redis::Connection>(std::move(c).value());
  return m_conn.get();
}

void KeyBrowserWorker::refresh() {
  if (!m_url || !m_browser) return;
  redis::Result<probe::KeyListing> listing = probe::KeyListing{};
  if (m_cluster) {
    listing = m_browser->refresh(*m_cluster);  // the client reconnects each master itself
  } else {
    QString kind;
    QString error;
    redis::Connection* c = connection(kind, error);
    if (c == nullptr) {
      emit failed(kind, error, QString());
      return;
    }
    listing = m_browser->refresh(*c);
  }
  if (!listing) {
    if (listing.error().breaks_connection()) m_conn.reset();
    emit failed(qs(std::string(redis::to_string(listing.error().kind))),
                qs(listing.error().message), QString());
    return;
  }
  emit listed(std::make_shared<const probe::KeyListing>(std::move(listing).value()));
}

void KeyBrowserWorker::inspect(const QString& key) {
  if (!m_url || !m_browser) return;
  const std::string k = key.toStdString();
  const probe::LimiterProfile* profile = probe::match_profile(m_browser->profiles(), k);
  redis::Result<probe::RawKey> raw = probe::RawKey{};
  if (m_cluster) {
    raw = probe::inspect_key(*m_cluster, k, profile);
  } else {
    QString kind;
    QString error;
    redis::Connection* c = connection(kind, error);
    if (c == nullptr) {
      emit failed(kind, error, key);
      return;
    }
    raw = probe::inspect_key(*c, k, profile);
  }
  if (!raw) {
    if (raw.error().breaks_connection()) m_conn.reset();
    emit failed(qs(std::string(redis::to_string(raw.error().kind))), qs(raw.error().message), key);
    return;
  }
  emit inspected(std::make_shared<const probe::RawKey>(std::move(raw).value()));
}

}  // namespace limitscope::ui
