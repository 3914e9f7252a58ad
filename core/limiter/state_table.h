#pragma once
// A compact open-addressing table of limiter states for the keyed limiter: one 8-byte tag plus
// the algorithm's State per slot (24 bytes for the token bucket and GCRA), linear probing,
// backward-shift deletion (no tombstones), load kept below 0.8 by growing
// (to 0.3-0.4) and shrinking when a wave of one-off keys has expired.
// Not thread-safe: the keyed limiter guards each table with its shard's mutex.
//
// Tag layout (64 bits):  model index (8) | tier index (8) | fingerprint (48)
// The fingerprint is 48 bits of the 64-bit hash of (api key, model); the shard is chosen by
// the hash's top bits, which the fingerprint does not include, so a slot is identified by
// 48 + log2(shards) hash bits. Two different (key, model) pairs share a state only when
// those bits all collide: with 1,000,000 live pairs and 64 shards the chance that any pair
// collides is about n²/2^55 ≈ 3·10⁻⁵, and the effect is that the two pairs share one
// (stricter) limit, never that a limit is bypassed. Storing the key itself would cost more
// than the whole 64-byte-per-key budget.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace limitscope {

namespace detail {
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
/// mmap()s `bytes` at a 2 MiB boundary and advises transparent huge pages (state_table.cpp).
void* map_huge_pages(std::size_t bytes);
void unmap_huge_pages(void* p, std::size_t bytes);
/// Bytes currently mapped by map_huge_pages (not visible to malloc statistics).
std::size_t huge_page_bytes_mapped();
}  // namespace detail

/// Slot arrays of 2 MiB and more live on transparent huge pages: with a million keys the
/// decisions hit tens of MB at random, and with 4 KiB pages nearly every one also paid a page
/// walk whose page-table reads missed the cache (docs/benchmarks.md).
/// Smaller arrays come from the ordinary heap.
template <class T>
struct SlotAllocator {
  using value_type = T;
  SlotAllocator() = default;
  template <class U>
  SlotAllocator(const SlotAllocator<U>&) noexcept {}  // NOLINT: rebinding copy
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < detail::kHugePageBytes) return std::allocator<T>().allocate(n);
    return static_cast<T*>(detail::map_huge_pages(bytes));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < detail::kHugePageBytes) {
      std::allocator<T>().deallocate(p, n);
    } else {
      detail::unmap_huge_pages(p, bytes);
    }
  }
  friend bool operator==(const SlotAllocator&, const SlotAllocator&) { return true; }
};

template <class State>
class StateTable {
 public:
  struct Slot {
    std::uint64_t tag = 0;  // 0 = empty
    State state{};
  };

  static constexpr int kFingerprintBits = 48;
  static constexpr std::uint64_t kFingerprintMask = (std::uint64_t{1} << kFingerprintBits) - 1;
  static constexpr std::size_t kMinCapacity = 16;

  /// The 48-bit fingerprint of a 64-bit hash, never 0 (0 marks an empty slot).
  static std::uint64_t fingerprint_of(std::uint64_t hash) {
    const std::uint64_t fp = hash & kFingerprintMask;
    return fp == 0 ? 1 : fp;
  }
  static std::uint64_t make_tag(std::uint64_t fp, unsigned tier, unsigned model) {
    return fp | (std::uint64_t{tier & 0xffU} << 48) | (std::uint64_t{model & 0xffU} << 56);
  }
  static std::uint64_t fingerprint(std::uint64_t tag) { return tag & kFingerprintMask; }
  static unsigned tier(std::uint64_t tag) { return static_cast<unsigned>((tag >> 48) & 0xffU); }
  static unsigned model(std::uint64_t tag) { return static_cast<unsigned>(tag >> 56); }

  /// @return the slot holding fingerprint fp, or nullptr.
  Slot* find(std::uint64_t fp) {
    if (slots_.empty()) return nullptr;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = fp & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.tag == 0) return nullptr;
      if (fingerprint(s.tag) == fp) return &s;
    }
  }

  /// Asks the CPU to start loading the slot where a lookup of fp begins, without taking the
  /// table's lock: the slot array and mask are read from relaxed atomic copies that
  /// resize_for() publishes. A copy that is stale (a resize in another thread) or torn only
  /// prefetches the wrong line; a prefetch never faults and changes nothing.
  void prefetch(std::uint64_t fp) const {
    const Slot* slots = hint_slots_.load(std::memory_order_relaxed);
    if (slots == nullptr) return;
    // Integer arithmetic: a stale mask may point past the array, which a pointer may not.
    const std::uintptr_t slot = reinterpret_cast<std::uintptr_t>(slots) +
                                (fp & hint_mask_.load(std::memory_order_relaxed)) * sizeof(Slot);
    // The probe run from there (a few slots at loads of 0.4-0.8) often crosses into the
    // next cache line: load both.
    __builtin_prefetch(reinterpret_cast<const void*>(slot), /*rw=*/1);
    __builtin_prefetch(reinterpret_cast<const void*>(slot + 64), /*rw=*/1);
  }

  /// True when one more insert would push the load above 0.8.
  bool full() const { return (size_ + 1) * 5 > slots_.size() * 4; }

  /// Inserts a state whose fingerprint is not present. Requires !full().
  /// @return the new slot (valid until the next insert, erase or resize).
  Slot* insert(std::uint64_t tag, State state) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = fingerprint(tag) & mask;
    while (slots_[i].tag != 0) i = (i + 1) & mask;
    slots_[i].tag = tag;
    slots_[i].state = std::move(state);
    ++size_;
    return &slots_[i];
  }

  /// Removes the state with fingerprint fp. @return true when there was one.
  bool erase(std::uint64_t fp) {
    Slot* s = find(fp);
    if (s == nullptr) return false;
    erase_at(static_cast<std::size_t>(s - slots_.data()));
    return true;
  }

  /// Removes the slot at index i, shifting later members of its probe run back so lookups
  /// never need tombstones.
  void erase_at(std::size_t i) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & mask; slots_[j].tag != 0; j = (j + 1) & mask) {
      const std::size_t home = fingerprint(slots_[j].tag) & mask;
      // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
      const bool home_after_hole =
          hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!home_after_hole) {
        slots_[hole] = std::move(slots_[j]);
        hole = j;
      }
    }
    slots_[hole] = Slot{};  // also releases whatever the state owned
    --size_;
  }

  /// Visits up to `count` slots starting at `cursor` (wrapping) and erases those for which
  /// drop(slot) is true. drop must give the same answer when asked twice about one slot
  /// (a backward shift can move an entry onto a slot visited already).
  /// @return the number erased; cursor moves past the visited slots.
  template <class Drop>
  std::size_t sweep(std::size_t& cursor, std::size_t count, Drop&& drop) {
    if (slots_.empty()) return 0;
    const std::size_t mask = slots_.size() - 1;
    std::size_t removed = 0;
    cursor &= mask;
    for (std::size_t n = 0; n < count && size_ > 0; ++n) {
      // Re-examine the same index after an erase: a later entry may have shifted into it.
      while (slots_[cursor].tag != 0 && drop(slots_[cursor])) {
        erase_at(cursor);
        ++removed;
      }
      cursor = (cursor + 1) & mask;
    }
    return removed;
  }

  /// Calls f(slot) for every occupied slot.
  template <class F>
  void for_each(F&& f) {
    for (Slot& s : slots_) {
      if (s.tag != 0) f(s);
    }
  }

  /// Rehashes into the smallest power-of-two capacity (>= kMinCapacity) that holds
  /// `entries` at a load of at most 0.5: growing from 0.6-0.8 doubles the capacity.
  void resize_for(std::size_t entries) {
    std::size_t cap = kMinCapacity;
    while (entries * 2 > cap) cap *= 2;
    if (cap == slots_.size()) return;
    std::vector<Slot, SlotAllocator<Slot>> old(cap);
    old.swap(slots_);
    hint_slots_.store(slots_.data(), std::memory_order_relaxed);
    hint_mask_.store(cap - 1, std::memory_order_relaxed);
    size_ = 0;
    for (Slot& s : old) {
      if (s.tag != 0) insert(s.tag, std::move(s.state));
    }
  }

  /// Grows when occupied beyond 60% of capacity, else keeps the capacity (the caller has
  /// just swept idle states out, so growth happens only for live ones).
  void make_room() {
    if (slots_.empty() || (size_ + 1) * 5 > slots_.size() * 3) resize_for(size_ + 1);
  }

  /// Shrinks when less than 10% is occupied (after a wave of one-off keys expired).
  void shrink_if_sparse() {
    if (slots_.size() > kMinCapacity && size_ * 10 < slots_.size()) resize_for(size_);
  }

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }
  /// Bytes held by the slot array (states that own heap memory, like the sliding log, hold more).
  std::size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  std::vector<Slot, SlotAllocator<Slot>> slots_;  // size is 0 or a power of two
  std::size_t size_ = 0;
  // slots_.data() and capacity − 1 for prefetch(), readable without the shard's lock.
  std::atomic<const Slot*> hint_slots_{nullptr};
  std::atomic<std::size_t> hint_mask_{0};
};

}  // namespace limitscope
