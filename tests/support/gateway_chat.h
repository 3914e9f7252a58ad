#pragma once
// Chat completions sent to a limitscope-gateway a test started (over real HTTP on loopback).

#include <httplib.h>

#include <string>

#include "support/child_process.h"

namespace limitscope::test {

/// POSTs `body` to /v1/chat/completions of `gw`, with `key` as the bearer token.
inline httplib::Result post_chat(const GatewayProcess& gw, const std::string& key,
                                 const std::string& body, time_t read_timeout_s = 10) {
  httplib::Client c(gw.url());
  c.set_read_timeout(read_timeout_s);
  return c.Post("/v1/chat/completions", {{"Authorization", "Bearer " + key}}, body,
                "application/json");
}

}  // namespace limitscope::test
