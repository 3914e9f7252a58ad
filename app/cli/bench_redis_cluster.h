#pragma once
// bench-redis --cluster: the limiter's decisions on a private 3-master Redis Cluster beside a
// private single server, in the same run, with the same clients, pipeline, keys and rules.
// On a 2-core machine a cluster cannot scale, so the figure that matters is decisions per
// second of server CPU (INFO cpu, summed over the masters): routing must not waste server time.

#include <chrono>

#include "core/common/clock.h"
#include "core/redis/key_schema.h"

namespace limitscope::cli {

struct ClusterBenchSettings {
  redis::KeySchema schema;
  long long keys = 1000;
  long long clients = 50;
  long long pipeline = 16;
  long long per_call = 16;
  Nanos duration = std::chrono::seconds(10);
  bool json = false;
};

/// Runs the comparison and prints it. @return 0 when every phase ran without errors, 1 when
/// some decisions failed, 2 when a server or the cluster could not be started
int bench_redis_cluster(const ClusterBenchSettings& settings);

}  // namespace limitscope::cli
