#pragma once
// Reading a whole file that someone else may control, with a size bound: /dev/zero, a FIFO or
// a huge file is refused with an error naming it once `max_bytes` are exceeded, never read
// until memory runs out.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/common/expected.h"

namespace limitscope {

/// The whole file, or "PATH: cannot read WHAT" / "PATH: WHAT larger than N bytes (not read)".
/// Reads at most max_bytes + 1 bytes.
Expected<std::string> read_file_bounded(const std::string& path, std::size_t max_bytes,
                                        std::string_view what);

}  // namespace limitscope
