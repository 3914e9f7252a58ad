#include "support/ports.h"

#include <stdexcept>

#include "core/redis/local_server.h"

namespace limitscope::test {

int free_loopback_port() {
  auto port = redis::free_loopback_port();
  if (!port) throw std::runtime_error(port.error());
  return *port;
}

}  // namespace limitscope::test
