#pragma once
// A Redis URL as the panels show it: never its password.

#include <QString>

#include "core/redis/redis_url.h"
#include "ui/qt_text.h"

namespace limitscope::ui {

/// `url` with its password hidden (RedisUrl::redacted); as typed when it does not parse.
inline QString redactedRedisUrl(const QString& url) {
  const auto parsed = redis::parse_redis_url(url.toStdString());
  return parsed ? qs(parsed->redacted()) : url;
}

}  // namespace limitscope::ui
