#include "core/common/duration_round.h"

#include <algorithm>

namespace limitscope {

std::int64_t whole_seconds_up(Nanos d) {
  if (d.count() <= 0) return 0;
  return (d.count() + 999'999'999) / 1'000'000'000;
}

std::int64_t whole_millis_up(Nanos d) {
  if (d.count() <= 0) return 0;
  return (d.count() + 999'999) / 1'000'000;
}

std::int64_t retry_after_seconds(Nanos wait) {
  return std::max<std::int64_t>(1, whole_seconds_up(wait));
}

}  // namespace limitscope
