#include "ui/key_browser/key_browser_worker.h"

#include "core/redis/client_options.h"
#include "ui/qt_text.h"

namespace limitscope::ui {

KeyBrowserWorker::~KeyBrowserWorker() = default;

void KeyBrowserWorker::setTarget(const QString& url, const QString& profiles,
                                 const QString& match) {
  m_endpoint.reset();
  m_browser.reset();
  m_match = match;
  // The shared Redis options (core/redis/client_options.h): the URL as given (its password
  // already resolved by the connection), the one default timeout.
  redis::ClientOptionText given;
  given.url = redis::GivenOption{"Redis URL", url.toStdString()};
  auto parsed = redis::parse_client_options(given, nullptr, true);
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
  redis::EndpointOptions eo = redis::EndpointOptions::with(parsed->connect);
  eo.reconnect.max = std::chrono::seconds(2);
  m_endpoint = std::make_unique<redis::Endpoint>(parsed->url, eo, SteadyClock::instance());
  rebuild();
  refresh();
}

void KeyBrowserWorker::setMatch(const QString& match) {
  m_match = match;
  if (!m_endpoint) return;
  rebuild();
  refresh();
}

void KeyBrowserWorker::rebuild() {
  probe::KeyBrowserOptions o;
  o.match = m_match.trimmed().isEmpty() ? std::string("*") : m_match.trimmed().toStdString();
  m_browser = std::make_unique<probe::KeyBrowser>(m_profiles, o);
}

void KeyBrowserWorker::refresh() {
  if (!m_endpoint || !m_browser) return;
  auto listing = m_browser->refresh(*m_endpoint);  // the endpoint reconnects itself
  if (!listing) {
    emit failed(qs(std::string(redis::to_string(listing.error().kind))),
                qs(listing.error().message), QString());
    return;
  }
  emit listed(std::make_shared<const probe::KeyListing>(std::move(listing).value()));
}

void KeyBrowserWorker::inspect(const QString& key) {
  if (!m_endpoint || !m_browser) return;
  const std::string k = key.toStdString();
  const probe::LimiterProfile* profile = probe::match_profile(m_browser->profiles(), k);
  auto raw = probe::inspect_key(*m_endpoint, k, profile);
  if (!raw) {
    emit failed(qs(std::string(redis::to_string(raw.error().kind))), qs(raw.error().message), key);
    return;
  }
  emit inspected(std::make_shared<const probe::RawKey>(std::move(raw).value()));
}

}  // namespace limitscope::ui
