#include "core/trace/trace_file_load.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <istream>
#include <streambuf>
#include <vector>

namespace limitscope::trace {

namespace {

constexpr std::size_t kBlock = 64 * 1024;  // bytes read between cancel checks
constexpr double kCountShare = 0.1;        // the counting pass's share of the progress

bool cancelled(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

// A read buffer over the file that reports progress and turns a cancel into end of file.
class ProgressBuf : public std::streambuf {
 public:
  ProgressBuf(std::ifstream& in, std::uintmax_t size, const std::atomic<bool>* cancel,
              const std::function<void(double)>& progress)
      : in_(in), size_(size), cancel_(cancel), progress_(progress), buf_(kBlock) {}
  bool was_cancelled() const { return cancelled_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (cancelled(cancel_)) {
      cancelled_ = true;
      return traits_type::eof();
    }
    in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    const auto n = in_.gcount();
    if (n <= 0) return traits_type::eof();
    read_ += static_cast<std::uintmax_t>(n);
    if (progress_ && size_ > 0) {
      progress_(kCountShare +
                (1 - kCountShare) * static_cast<double>(read_) / static_cast<double>(size_));
    }
    setg(buf_.data(), buf_.data(), buf_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::ifstream& in_;
  std::uintmax_t size_;
  std::uintmax_t read_ = 0;
  const std::atomic<bool>* cancel_;
  const std::function<void(double)>& progress_;
  std::vector<char> buf_;
  bool cancelled_ = false;
};

std::string megabytes(std::size_t bytes) {
  return std::to_string((bytes + 500'000) / 1'000'000) + " MB";
}

}  // namespace

Expected<TraceLoad> load_trace_file_bounded(const std::string& path,
                                            const BoundedLoadOptions& options,
                                            const std::atomic<bool>* cancel,
                                            const std::function<void(double)>& progress) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("trace " + path + ": cannot be read");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uintmax_t>(std::max<std::streamoff>(0, in.tellg()));
  in.seekg(0);

  // Pass 1: lines (an upper bound on events) and the first non-blank character.
  std::size_t lines = 0;
  char first = 0;
  char last = '\n';
  std::uintmax_t read = 0;
  std::vector<char> block(kBlock);
  while (in) {
    if (cancelled(cancel)) return make_error(kLoadCancelled);
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    for (std::size_t i = 0; i < n; ++i) {
      if (block[i] == '\n') ++lines;
      if (first == 0 && std::isspace(static_cast<unsigned char>(block[i])) == 0) first = block[i];
    }
    if (n > 0) last = block[n - 1];
    read += n;
    if (progress && size > 0)
      progress(kCountShare * static_cast<double>(read) / static_cast<double>(size));
  }
  if (last != '\n') ++lines;  // a last line without its newline
  const bool jsonl = first == '{';
  // A CSV header line is not an event.
  const std::size_t most_events = jsonl || lines == 0 ? lines : lines - 1;
  if (most_events > options.max_events) {
    return make_error("trace " + path + ": " + std::to_string(most_events) +
                      " lines, more than the cap of " + std::to_string(options.max_events) +
                      " events (" + megabytes(trace_event_bytes(options.max_events)) +
                      " of memory); split the file or sample it");
  }

  // Pass 2: parse, with exactly the events reserved.
  in.clear();
  in.seekg(0);
  TraceOptions to;
  to.max_errors = options.max_errors;
  to.max_keys = options.max_keys;
  to.reserve_events = most_events;
  ProgressBuf buf(in, size, cancel, progress);
  std::istream stream(&buf);
  TraceLoad load = jsonl ? parse_trace_jsonl(stream, to) : parse_trace_csv(stream, to);
  if (buf.was_cancelled()) return make_error(kLoadCancelled);
  if (progress) progress(1.0);
  return load;
}

}  // namespace limitscope::trace
