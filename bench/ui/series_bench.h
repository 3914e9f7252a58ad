#pragma once
// limitscope-bench-ui --series (bench/ui/series_bench.cpp): one chart's lines through QtCharts,
// QtCharts with OpenGL, and the dashboard's TimeChart.

namespace limitscope::bench {

/// Prints the figures; needs a QApplication. @return the process's exit code
int run_series_bench();

}  // namespace limitscope::bench
