#pragma once
// bench-probe --cluster: the dashboard run of bench-probe --own on a private 3-master Redis
// Cluster. N own-schema token-bucket states spread over three rules, one per master; keys
// emptied at random moments by decisions on their rule's shard (which list them in that shard's
// pressure index); the dashboard's live source on the cluster URL. Reports what the dashboard
// run reports (time to seen, dashboard CPU, the three servers' CPU); the timed refresh against
// a plain reader stays a single-server measurement.

#include <string>

namespace limitscope::cli {

struct ClusterProbeBench {
  long long keys = 10000;
  double seconds = 30;
  int emptied = 20;
  unsigned seed = 1;
  bool pressure_index = true;
  bool json = false;
};

/// @return the exit code (0, or 2 when the cluster could not be started or seeded)
int bench_probe_cluster(const ClusterProbeBench& b);

}  // namespace limitscope::cli
