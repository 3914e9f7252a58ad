#include "core/redis/pool.h"

namespace limitscope::redis {

ConnectionPool::Lease::Lease(ConnectionPool* pool, std::unique_ptr<Connection> conn)
    : pool_(pool), conn_(std::move(conn)) {}

ConnectionPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), conn_(std::move(other.conn_)) {
  other.pool_ = nullptr;
}

ConnectionPool::Lease::~Lease() {
  if (pool_ != nullptr && conn_) pool_->give_back(std::move(conn_));
}

ConnectionPool::ConnectionPool(RedisUrl url, PoolOptions options, const Clock& clock)
    : url_(std::move(url)),
      options_(options),
      clock_(clock),
      backoff_(options.backoff, options.seed) {
  if (options_.size == 0) options_.size = 1;
}

Result<ConnectionPool::Lease> ConnectionPool::acquire() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (!idle_.empty()) {
      auto conn = std::move(idle_.back());
      idle_.pop_back();
      ++in_use_;
      return Lease(this, std::move(conn));
    }
    if (in_use_ + opening_ < options_.size) break;
    // Every connection is leased; leases last one command, bounded by its timeout.
    returned_.wait(lock);
  }
  const Nanos now = clock_.now();
  if (last_error_ && now < next_attempt_) {
    const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(next_attempt_ - now);
    RedisError e = *last_error_;
    e.message += " (next reconnect attempt in " + std::to_string(wait_ms.count()) + " ms)";
    return e;
  }
  ++opening_;
  lock.unlock();
  auto opened = Connection::open(url_, options_.connect);
  lock.lock();
  --opening_;
  if (!opened) {
    ++stats_.open_failures_total;
    last_error_ = opened.error();
    next_attempt_ = clock_.now() + backoff_.next_delay();
    returned_.notify_one();
    return opened.error();
  }
  ++stats_.opened_total;
  backoff_.reset();
  last_error_.reset();
  ++in_use_;
  return Lease(this, std::make_unique<Connection>(std::move(opened).value()));
}

void ConnectionPool::give_back(std::unique_ptr<Connection> conn) {
  std::lock_guard lock(mu_);
  --in_use_;
  if (conn->usable()) {
    idle_.push_back(std::move(conn));
  } else {
    // A broken connection usually means the server went away or restarted: the idle ones
    // share its fate, and failing each of them once more would only delay the reconnect.
    stats_.dropped_total += 1 + idle_.size();
    idle_.clear();
  }
  returned_.notify_one();
}

PoolStats ConnectionPool::stats() const {
  std::lock_guard lock(mu_);
  PoolStats s = stats_;
  s.idle = idle_.size();
  s.in_use = in_use_;
  return s;
}

}  // namespace limitscope::redis
