#include "core/redis/command_batch.h"

#include <charconv>

namespace limitscope::redis {

namespace {

void put_count(std::string& out, char tag, std::size_t n) {
  char buf[24];
  buf[0] = tag;
  auto [p, ec] = std::to_chars(buf + 1, buf + sizeof buf - 2, n);
  (void)ec;  // 21 digits always fit a size_t
  *p++ = '\r';
  *p++ = '\n';
  out.append(buf, p);
}

}  // namespace

void CommandBatch::header(std::size_t args) {
  put_count(buf_, '*', args);
}

void CommandBatch::arg(std::string_view a) {
  put_count(buf_, '$', a.size());
  buf_.append(a);
  buf_.append("\r\n", 2);
}

void CommandBatch::end() {
  ends_.push_back(buf_.size());
}

void CommandBatch::add(std::initializer_list<std::string_view> argv) {
  add(std::span<const std::string_view>(argv.begin(), argv.size()));
}

void CommandBatch::add(std::span<const std::string_view> argv) {
  if (argv.empty()) return;
  header(argv.size());
  for (std::string_view a : argv) arg(a);
  end();
}

void CommandBatch::add(std::span<const std::string> argv) {
  if (argv.empty()) return;
  header(argv.size());
  for (const std::string& a : argv) arg(a);
  end();
}

void CommandBatch::append(const CommandBatch& other) {
  const std::size_t base = buf_.size();
  buf_.append(other.buf_);
  ends_.reserve(ends_.size() + other.ends_.size());
  for (const std::size_t e : other.ends_) ends_.push_back(base + e);
}

std::string_view CommandBatch::command(std::size_t i) const {
  const std::size_t from = i == 0 ? 0 : ends_[i - 1];
  return std::string_view(buf_).substr(from, ends_[i] - from);
}

void CommandBatch::reserve(std::size_t commands, std::size_t bytes) {
  ends_.reserve(commands);
  buf_.reserve(bytes);
}

void CommandBatch::clear() {
  buf_.clear();
  ends_.clear();
}

}  // namespace limitscope::redis
