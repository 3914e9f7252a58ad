// classify_error_reply (declared in connection.h), apart from the connection so that what reads
// replies without one (decision_record.cpp, its fuzzer) links without hiredis.
#include "core/redis/connection.h"

namespace limitscope::redis {

ErrorKind classify_error_reply(const std::string& text) {
  if (text.starts_with("NOSCRIPT") || text.starts_with("ERR Function not found"))
    return ErrorKind::noscript;
  if (text.starts_with("WRONGPASS") || text.starts_with("NOAUTH") || text.starts_with("NOPERM")) {
    return ErrorKind::auth;
  }
  // Redis 7 reports an ACL refusal inside a script as "ERR The user executing the script
  // can't run this command ..." (or "... can't access at least one of the keys ...").
  if (text.find("The user executing the script can't") != std::string::npos) {
    return ErrorKind::auth;
  }
  return ErrorKind::reply;
}

}  // namespace limitscope::redis
