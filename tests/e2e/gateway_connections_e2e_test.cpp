// Verifies the gateway's connection front on a real process with raw sockets: pipelined
// requests are all answered, in order; slow clients (an unfinished head) and idle keep-alive
// connections hold no worker, so with --threads 2 a request is answered while 60 of them stay
// open; an unfinished head gets 408 after --header-timeout and the connection is closed.

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/process.h"
#include "support/raw_http.h"

namespace limitscope::test {
namespace {

std::string chat_request(const std::string& key, const std::string& extra_headers = "") {
  const std::string body = R"({"model":"gpt-4.1","messages":[{"content":"hi"}],"max_tokens":5})";
  return "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key +
         "\r\nContent-Type: application/json\r\n" + extra_headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::unique_ptr<GatewayProcess> gateway(std::vector<std::string> extra) {
  std::vector<std::string> args = {
      "--policy", write_temp("connections_policy.json", e2e_policy_json()), "--mock-upstream"};
  args.insert(args.end(), extra.begin(), extra.end());
  return std::make_unique<GatewayProcess>(args);
}

TEST(GatewayConnectionsE2E, PipelinedRequestsAreAllAnsweredInOrder) {
  auto gw = gateway({});
  ASSERT_TRUE(gw->running());
  RawConnection c(gw->port());
  ASSERT_TRUE(c.connected());
  // Three requests in one write: a chat, a health check, a chat that is refused (no key).
  c.send(chat_request("pro-key") + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" +
         chat_request("nobody-listed"));
  const std::string got = c.read_answers(3);
  ASSERT_EQ(count_responses(got), 3) << got;
  const auto first = got.find("HTTP/1.1 200");
  const auto health = got.find("\r\n\r\nok\n");
  const auto refused = got.find("HTTP/1.1 403");
  EXPECT_EQ(first, 0u) << got;
  EXPECT_LT(first, health);
  EXPECT_LT(health, refused) << got;
  EXPECT_FALSE(c.closed_by_server());  // keep-alive holds after pipelining
}

TEST(GatewayConnectionsE2E, SlowAndIdleConnectionsHoldNoWorker) {
  auto gw = gateway({"--threads", "2"});
  ASSERT_TRUE(gw->running());
  std::vector<std::unique_ptr<RawConnection>> held;
  // 40 slow clients: a head that never ends (the slowloris shape).
  for (int i = 0; i < 40; ++i) {
    held.push_back(std::make_unique<RawConnection>(gw->port()));
    held.back()->send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Slow: ");
  }
  // 20 idle keep-alive clients: one answered request each, then nothing.
  for (int i = 0; i < 20; ++i) {
    held.push_back(std::make_unique<RawConnection>(gw->port()));
    held.back()->send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_EQ(count_responses(held.back()->read_answers(1)), 1) << "idle client " << i;
  }
  // With a thread per connection, two workers would be held by the first two slow clients.
  RawConnection legit(gw->port());
  legit.send(chat_request("pro-key"));
  const std::string answer = legit.read_answers(1);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
  // ... answered while every slow and idle connection is still open (none timed out first).
  int open = 0;
  for (auto& c : held) open += c->closed_by_server() ? 0 : 1;
  EXPECT_EQ(open, 60);
}

TEST(GatewayConnectionsE2E, AChunkedBodyDrippedInPiecesIsReadWhole) {
  auto gw = gateway({});
  ASSERT_TRUE(gw->running());
  const std::string body = R"({"model":"gpt-4.1","messages":[{"content":"hi"}],"max_tokens":5})";
  std::ostringstream chunked;
  for (std::size_t at = 0; at < body.size(); at += 7) {
    const std::string piece = body.substr(at, 7);
    chunked << std::hex << piece.size() << "\r\n" << piece << "\r\n";
  }
  chunked << "0\r\n\r\n";
  RawConnection c(gw->port());
  c.send(
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer pro-key\r\n"
      "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
  for (char ch : chunked.str()) c.send(std::string(1, ch));  // one segment per byte, at once
  const RawExchange x = c.read_until_close(std::chrono::seconds(10));
  EXPECT_EQ(x.received.rfind("HTTP/1.1 200", 0), 0u) << x.received;
  EXPECT_NE(x.received.find("chat.completion"), std::string::npos) << x.received;
}

TEST(GatewayConnectionsE2E, AnswersToHeadHaveNoBodyAndFreeTheirWorker) {
  auto gw = gateway({"--threads", "2"});
  ASSERT_TRUE(gw->running());
  // An answer to HEAD says Content-Length: 3 and sends nothing: a worker waiting for those 3
  // bytes would be held for good, and two such requests would take both workers.
  for (int i = 0; i < 3; ++i) {
    RawConnection c(gw->port());
    c.send(
        "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const std::string got = c.read_until_close(std::chrono::seconds(10)).received;
    ASSERT_EQ(count_responses(got), 2) << got;
    EXPECT_EQ(got.find("ok\n"), got.size() - 3) << got;  // only the GET has a body
  }
}

TEST(GatewayConnectionsE2E, AnUnfinishedHeadIs408AfterTheHeaderTimeout) {
  auto gw = gateway({"--header-timeout", "1s"});
  ASSERT_TRUE(gw->running());
  RawConnection slow(gw->port());
  slow.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n");
  // The gateway's own deadline (1 s) is what this waits for; 10 s is the safety net.
  const RawExchange x = slow.read_until_close(std::chrono::seconds(10));
  EXPECT_TRUE(x.closed);
  EXPECT_EQ(x.received.rfind("HTTP/1.1 408", 0), 0u) << x.received;
  EXPECT_NE(x.received.find("request_timeout"), std::string::npos) << x.received;
}

}  // namespace
}  // namespace limitscope::test
