#include "core/dashboard/chart_export.h"

#include <charconv>

namespace limitscope {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

namespace {

std::string shortest(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("NaN");
}

}  // namespace

std::size_t write_chart_csv(std::ostream& out, const metrics::SeriesStore& store,
                            const std::vector<ChartData>& charts, std::int64_t start_ms,
                            std::int64_t end_ms) {
  out << "chart,series,time_ms,value\n";
  std::size_t rows = 0;
  for (const ChartData& chart : charts) {
    for (const ChartLine& line : chart.lines) {
      std::vector<metrics::LabelMatcher> ms;
      for (const auto& [name, value] : line.series.pairs()) {
        ms.push_back(*metrics::LabelMatcher::make(name, metrics::MatchOp::equal, value));
      }
      if (ms.empty()) continue;
      for (const auto& series : store.select(ms, start_ms, end_ms)) {
        if (!(series.labels == line.series)) continue;  // a superset of labels matched too
        const std::string prefix =
            csv_field(chart.title) + "," + csv_field(series.labels.to_string()) + ",";
        for (const auto& s : series.samples) {
          if (metrics::is_stale_marker(s.value)) continue;
          out << prefix << s.t_ms << "," << shortest(s.value) << "\n";
          ++rows;
        }
      }
    }
  }
  return rows;
}

}  // namespace limitscope
