#pragma once
// Commands for one pipeline, encoded as RESP as they are added: one growing buffer instead of
// a vector of argument vectors per command, and no formatting pass in hiredis. A refresh of
// 10,000 keys adds 10,000 commands; this keeps that to a few appends each.

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace limitscope::redis {

class CommandBatch {
 public:
  /// Appends one command (its name first). An empty argv is ignored.
  void add(std::initializer_list<std::string_view> argv);
  void add(std::span<const std::string> argv);
  void add(std::span<const std::string_view> argv);
  /// Appends every command of `other`, in order (a copy of its bytes: no encoding again).
  void append(const CommandBatch& other);

  /// Commands added so far.
  std::size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  /// Every command's RESP bytes, in order.
  std::string_view bytes() const { return buf_; }
  /// The RESP bytes of command `i` (< size()).
  std::string_view command(std::size_t i) const;
  void reserve(std::size_t commands, std::size_t bytes);
  void clear();

 private:
  void header(std::size_t args);
  void arg(std::string_view a);
  void end();

  std::string buf_;
  std::vector<std::size_t> ends_;  // end offset of each command in buf_
};

}  // namespace limitscope::redis
