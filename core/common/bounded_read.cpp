#include "core/common/bounded_read.h"

#include <fstream>

namespace limitscope {

Expected<std::string> read_file_bounded(const std::string& path, std::size_t max_bytes,
                                        std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot read " + std::string(what));
  std::string out;
  char chunk[65536];
  while (in) {
    in.read(chunk, sizeof chunk);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    if (out.size() + got > max_bytes) {
      return make_error(path + ": " + std::string(what) + " larger than " +
                        std::to_string(max_bytes) + " bytes (not read)");
    }
    out.append(chunk, got);
  }
  if (in.bad()) return make_error(path + ": cannot read " + std::string(what));
  return out;
}

}  // namespace limitscope
