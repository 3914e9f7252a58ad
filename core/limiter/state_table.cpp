#include "core/limiter/state_table.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <new>

namespace limitscope::detail {

namespace {
std::atomic<std::size_t> g_mapped_bytes{0};
}  // namespace

std::size_t huge_page_bytes_mapped() {
  return g_mapped_bytes.load(std::memory_order_relaxed);
}

void* map_huge_pages(std::size_t bytes) {
  // Map 2 MiB more than asked, keep a 2 MiB-aligned window, return the rest: transparent huge
  // pages only back aligned 2 MiB ranges.
  const std::size_t span = bytes + kHugePageBytes;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned =
      (start + kHugePageBytes - 1) & ~(std::uintptr_t{kHugePageBytes} - 1);
  const std::uintptr_t end = aligned + bytes;
  const std::size_t page = 4096;
  const std::uintptr_t mapped_end = (end + page - 1) & ~(std::uintptr_t{page} - 1);
  if (aligned > start) munmap(raw, aligned - start);
  if (start + span > mapped_end)
    munmap(reinterpret_cast<void*>(mapped_end), start + span - mapped_end);
  void* p = reinterpret_cast<void*>(aligned);
  // Advice only: where THP is off ("never") the pages stay 4 KiB and everything still works.
  madvise(p, bytes, MADV_HUGEPAGE);
  g_mapped_bytes.fetch_add(bytes, std::memory_order_relaxed);
  return p;
}

void unmap_huge_pages(void* p, std::size_t bytes) {
  munmap(p, bytes);
  g_mapped_bytes.fetch_sub(bytes, std::memory_order_relaxed);
}

}  // namespace limitscope::detail
