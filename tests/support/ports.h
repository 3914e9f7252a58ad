#pragma once
// Free loopback ports for servers a test starts. The port is free when asked; a caller that
// loses a race retries.

namespace limitscope::test {

/// A TCP port on 127.0.0.1 that nothing listened on a moment ago.
int free_loopback_port();

/// A socket listening on 127.0.0.1 at a port the kernel chose, stored in `port`; throws when
/// it cannot be had.
int listen_on_loopback(int& port);

/// A socket connected to 127.0.0.1:port, or -1.
int connect_to_loopback(int port);

}  // namespace limitscope::test
