#include "core/gateway/decision_coalescer.h"

#include <algorithm>
#include <exception>

namespace limitscope::gateway {

DecisionCoalescer::DecisionCoalescer(CoalescerOptions options, BatchFn decide)
    : options_(options), decide_(std::move(decide)) {
  options_.max_batch = std::max<std::size_t>(1, options_.max_batch);
  options_.max_in_flight = std::max<std::size_t>(1, options_.max_in_flight);
}

DecisionCoalescer::Lane& DecisionCoalescer::lane(const std::string& rule) {
  std::lock_guard lock(lanes_mu_);
  auto& l = lanes_[rule];
  if (!l) l = std::make_unique<Lane>();
  return *l;
}

std::size_t DecisionCoalescer::queued(const std::string& rule) {
  Lane& l = lane(rule);
  std::lock_guard lock(l.mu);
  return l.queue.size();
}

void DecisionCoalescer::flush(const std::string& rule, Lane& l,
                              std::unique_lock<std::mutex>& lock) {
  const std::size_t n = std::min(l.queue.size(), options_.max_batch);
  std::vector<SlotPtr> batch(l.queue.begin(), l.queue.begin() + static_cast<std::ptrdiff_t>(n));
  l.queue.erase(l.queue.begin(), l.queue.begin() + static_cast<std::ptrdiff_t>(n));
  for (const SlotPtr& s : batch) s->taken = true;
  ++l.in_flight;
  lock.unlock();
  std::vector<const redis::DecideRequest*> requests;
  requests.reserve(n);
  for (const SlotPtr& s : batch) requests.push_back(s->request);
  std::vector<RuleOutcome> outcomes;
  std::string failure;
  try {
    outcomes = decide_(rule, requests);
  } catch (const std::exception& e) {
    failure = e.what();  // an allocation failure, say: every waiter must still be answered
  }
  lock.lock();
  --l.in_flight;
  for (std::size_t i = 0; i < n; ++i) {
    if (i < outcomes.size()) {
      batch[i]->outcome = std::move(outcomes[i]);
    } else {
      // Refused, never admitted: the batch gave no decision for this request.
      batch[i]->outcome.guarded.decision.allowed = false;
      batch[i]->outcome.guarded.decision.reason = DenyReason::backend_error;
      batch[i]->outcome.guarded.error = "rule " + rule + ": the batch gave no decision" +
                                        (failure.empty() ? std::string() : ": " + failure);
    }
    batch[i]->done = true;
  }
  // Room in flight now: the oldest waiter sends what queued meanwhile.
  SlotPtr next;
  if (l.in_flight < options_.max_in_flight && !l.queue.empty()) next = l.queue.front();
  lock.unlock();
  for (const SlotPtr& s : batch) s->cv.notify_one();
  if (next) next->cv.notify_one();
  lock.lock();
}

RuleOutcome DecisionCoalescer::decide(const std::string& rule,
                                      const redis::DecideRequest& request) {
  if (options_.window.count() <= 0) {
    auto one = decide_(rule, {&request});
    if (!one.empty()) return std::move(one.front());
    RuleOutcome none;
    none.guarded.decision.reason = DenyReason::backend_error;
    none.guarded.error = "rule " + rule + ": no decision";
    return none;
  }
  Lane& l = lane(rule);
  const SlotPtr own = std::make_shared<Slot>();
  Slot& slot = *own;
  slot.request = &request;
  slot.queued_at = Steady::now();
  std::unique_lock lock(l.mu);
  l.queue.push_back(own);
  while (!slot.done) {
    if (slot.taken) {
      // Taken into a batch in flight: its leader answers.
      slot.cv.wait(lock);
      continue;
    }
    const Steady::time_point due = l.queue.front()->queued_at + options_.window;
    if (l.in_flight < options_.max_in_flight || l.queue.size() >= options_.max_batch ||
        Steady::now() >= due) {
      flush(rule, l, lock);
      continue;
    }
    // Woken by the end of the batch in flight (when this is the oldest), or at the window.
    slot.cv.wait_until(lock, slot.queued_at + options_.window);
  }
  return std::move(slot.outcome);
}

}  // namespace limitscope::gateway
