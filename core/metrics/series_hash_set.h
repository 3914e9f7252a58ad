#pragma once
// A set of 64-bit series hashes (open addressing, linear probing). The exposition parser
// keeps one per parse to count distinct series and catch duplicates without storing label
// strings: 8 bytes per series, at most twice that in empty slots.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace limitscope::metrics {

/// splitmix64's finalizer: spreads every input bit over the whole word.
inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

class SeriesHashSet {
 public:
  /// @return true when h was not in the set before.
  bool insert(std::uint64_t h) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    h = h == 0 ? 1 : h;  // 0 marks an empty slot
    std::size_t i = static_cast<std::size_t>(h) & (slots_.size() - 1);
    while (slots_[i] != 0) {
      if (slots_[i] == h) return false;
      i = (i + 1) & (slots_.size() - 1);
    }
    slots_[i] = h;
    ++size_;
    return true;
  }

  bool contains(std::uint64_t h) const {
    if (slots_.empty()) return false;
    h = h == 0 ? 1 : h;
    std::size_t i = static_cast<std::size_t>(h) & (slots_.size() - 1);
    while (slots_[i] != 0) {
      if (slots_[i] == h) return true;
      i = (i + 1) & (slots_.size() - 1);
    }
    return false;
  }

  std::size_t size() const { return size_; }

  /// Makes room for n hashes without rehashing (on an empty set).
  void reserve(std::size_t n) {
    if (size_ != 0) return;
    std::size_t cap = 1024;
    while (cap < n * 2) cap *= 2;
    if (cap > slots_.size()) slots_.assign(cap, 0);
  }

 private:
  void grow() {
    std::vector<std::uint64_t> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, 0);
    size_ = 0;
    for (std::uint64_t h : old) {
      if (h != 0) insert(h);
    }
  }

  std::vector<std::uint64_t> slots_;  // size is a power of two
  std::size_t size_ = 0;
};

}  // namespace limitscope::metrics
