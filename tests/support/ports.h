#pragma once
// Free loopback ports for servers a test starts. The port is free when asked; a caller that
// loses a race retries.

namespace limitscope::test {

/// A TCP port on 127.0.0.1 that nothing listened on a moment ago.
int free_loopback_port();

}  // namespace limitscope::test
