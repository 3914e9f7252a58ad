// limitscope-cli parse-metrics FILE: parses a Prometheus 0.0.4 / OpenMetrics exposition and
// reports counts, line-numbered errors and the parse speed. Exit 0 clean, 1 with errors,
// 2 when the file cannot be read or the usage is wrong.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/options/args.h"
#include "core/common/expected.h"
#include "core/metrics/exposition_parser.h"

namespace limitscope::cli {

namespace {

// Counts samples and keeps the first errors; the parser itself does the rest.
class CountingVisitor final : public metrics::ExpositionVisitor {
 public:
  explicit CountingVisitor(std::size_t max_errors) : max_errors_(max_errors) {}
  void on_sample(const metrics::SampleView&) override {}
  void on_error(const metrics::ParseError& e) override {
    if (errors.size() < max_errors_) errors.push_back(e);
  }
  std::vector<metrics::ParseError> errors;

 private:
  std::size_t max_errors_;
};

constexpr std::size_t kMaxErrorsShown = 1000;

// The file's bytes: a read-only mapping for regular files (no copy, pages faulted in before
// the timer starts), else read into memory (pipes, /dev/stdin).
class FileText {
 public:
  FileText() = default;
  FileText(const FileText&) = delete;  // owns a mapping
  FileText& operator=(const FileText&) = delete;
  ~FileText() {
    if (map_ != nullptr) munmap(map_, size_);
  }
  /// @return ok, or the reason
  Status open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return make_error(std::strerror(errno));
    struct stat st {};
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
      ::close(fd);
      return make_error("is a directory");
    }
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
      size_ = static_cast<std::size_t>(st.st_size);
      void* m = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (m != MAP_FAILED) {
        map_ = m;
        ::close(fd);
        return {};
      }
    }
    ::close(fd);
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error("cannot open for reading");
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) return make_error("read failed");
    owned_ = std::move(buf).str();
    return {};
  }
  std::string_view view() const {
    return map_ != nullptr ? std::string_view(static_cast<const char*>(map_), size_) : owned_;
  }

 private:
  void* map_ = nullptr;
  std::size_t size_ = 0;
  std::string owned_;
};

}  // namespace

int run_parse_metrics(const CommandArgs& argv) {
  const Expected<Args> command_line =
      Args::parse("parse-metrics FILE",
                  "Parse a Prometheus text (0.0.4) or OpenMetrics exposition and report series,\n"
                  "samples, families, line-numbered errors and the parse speed.\n"
                  "Exit 0 when clean, 1 when the file has errors, 2 when unreadable or bad usage.",
                  {{"json", "", "print one JSON object instead of text"},
                   {"format", "auto|prometheus|openmetrics", "exposition format (default auto)"}},
                  argv, /*allow_positional=*/true);
  if (const auto exit = early_exit(command_line, "parse-metrics")) return *exit;
  const Args& args = *command_line;
  if (args.positional().size() != 1) {
    return usage_error("parse-metrics", "expects exactly one FILE");
  }
  metrics::ParseOptions options;
  if (auto f = args.get("format")) {
    auto parsed = metrics::parse_format_name(*f);
    if (!parsed) {
      return usage_error("parse-metrics",
                         "--format \"" + *f + "\": expected auto, prometheus or openmetrics");
    }
    options.format = *parsed;
  }
  const std::string& path = args.positional()[0];
  FileText file;
  if (Status opened = file.open(path); !opened.ok())
    return usage_error("parse-metrics", path + ": " + opened.error());
  const std::string_view text = file.view();

  CountingVisitor visitor(kMaxErrorsShown);
  const auto start = std::chrono::steady_clock::now();
  const metrics::ParseReport report = metrics::parse_exposition(text, visitor, options);
  const auto stop = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(stop - start).count();
  const double ms = seconds * 1000.0;
  const double mb_per_s = seconds > 0 ? static_cast<double>(text.size()) / 1e6 / seconds : 0.0;

  if (args.has("json")) {
    nlohmann::json j;
    j["file"] = path;
    j["format"] = std::string(metrics::format_name(report.format));
    j["bytes"] = report.bytes;
    j["lines"] = report.lines;
    j["families"] = report.families.size();
    j["series"] = report.series;
    j["samples"] = report.samples;
    j["error_count"] = report.errors;
    nlohmann::json errs = nlohmann::json::array();
    for (const auto& e : visitor.errors) errs.push_back({{"line", e.line}, {"message", e.message}});
    j["errors"] = std::move(errs);
    j["parse_ms"] = ms;
    j["mb_per_s"] = mb_per_s;
    std::cout << json_text(j, 2) << "\n";
  } else {
    std::cout << path << ": " << metrics::format_name(report.format) << ", " << report.bytes
              << " bytes, " << report.lines << " lines\n"
              << "families " << report.families.size() << "\n"
              << "series   " << report.series << "\n"
              << "samples  " << report.samples << "\n"
              << "errors   " << report.errors << "\n";
    for (const auto& e : visitor.errors)
      std::cout << "  line " << e.line << ": " << e.message << "\n";
    if (report.errors > visitor.errors.size()) {
      std::cout << "  ... " << report.errors - visitor.errors.size() << " more\n";
    }
    std::cout << std::fixed << std::setprecision(3) << "parse    " << ms << " ms, "
              << std::setprecision(1) << mb_per_s << " MB/s\n";
  }
  return report.errors == 0 ? 0 : 1;
}

}  // namespace limitscope::cli
