#include "core/common/clock.h"

namespace limitscope {

void CancelToken::cancel() {
  cancelled_.store(true, std::memory_order_release);
  std::lock_guard lock(mu_);
  if (waiter_ != nullptr) {
    // Take the waiter's mutex so the notify cannot slip between its check and its wait.
    std::lock_guard wl(*waiter_mu_);
    waiter_->notify_all();
  }
}

namespace {
// Registers a waiter's condition variable with the token for the duration of a wait.
class WaiterRegistration {
 public:
  WaiterRegistration(CancelToken& token, std::condition_variable& cv, std::mutex& mu,
                     std::mutex& token_mu, std::condition_variable*& slot, std::mutex*& slot_mu)
      : token_mu_(token_mu), slot_(slot), slot_mu_(slot_mu) {
    (void)token;
    std::lock_guard lock(token_mu_);
    slot_ = &cv;
    slot_mu_ = &mu;
  }
  ~WaiterRegistration() {
    std::lock_guard lock(token_mu_);
    slot_ = nullptr;
    slot_mu_ = nullptr;
  }
  WaiterRegistration(const WaiterRegistration&) = delete;
  WaiterRegistration& operator=(const WaiterRegistration&) = delete;

 private:
  std::mutex& token_mu_;
  std::condition_variable*& slot_;
  std::mutex*& slot_mu_;
};
}  // namespace

Nanos SteadyClock::now() const {
  return std::chrono::duration_cast<Nanos>(std::chrono::steady_clock::now().time_since_epoch());
}

Nanos SteadyClock::wall() const {
  return std::chrono::duration_cast<Nanos>(std::chrono::system_clock::now().time_since_epoch());
}

bool SteadyClock::wait_until(Nanos deadline, CancelToken& cancel) {
  std::mutex mu;
  std::condition_variable cv;
  WaiterRegistration reg(cancel, cv, mu, cancel.mu_, cancel.waiter_, cancel.waiter_mu_);
  std::unique_lock lock(mu);
  const auto until = std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(deadline));
  while (!cancel.cancelled()) {
    if (cv.wait_until(lock, until) == std::cv_status::timeout) {
      return !cancel.cancelled();
    }
  }
  return false;
}

SteadyClock& SteadyClock::instance() {
  static SteadyClock clock;
  return clock;
}

bool ManualClock::wait_until(Nanos deadline, CancelToken& cancel) {
  // Register before locking mu_: cancel() locks the token, then mu_; we must never hold mu_
  // while taking the token's mutex.
  WaiterRegistration reg(cancel, cv_, mu_, cancel.mu_, cancel.waiter_, cancel.waiter_mu_);
  std::unique_lock lock(mu_);
  waiters_.fetch_add(1, std::memory_order_acq_rel);
  cv_.wait(lock, [&] { return cancel.cancelled() || now() >= deadline; });
  waiters_.fetch_sub(1, std::memory_order_acq_rel);
  return !cancel.cancelled();
}

void ManualClock::advance(Nanos d) {
  {
    std::lock_guard lock(mu_);
    now_.fetch_add(d.count(), std::memory_order_acq_rel);
  }
  cv_.notify_all();
}

void ManualClock::set(Nanos t) {
  {
    std::lock_guard lock(mu_);
    if (t.count() > now_.load(std::memory_order_acquire)) {
      now_.store(t.count(), std::memory_order_release);
    }
  }
  cv_.notify_all();
}

}  // namespace limitscope
