#pragma once
// Every limitscope-cli subcommand: takes the arguments after its name, returns the exit code
// (0 success, 1 a failed check, 2 bad usage or input). Each lives in its own cmd_*.cpp.

#include <string>
#include <vector>

namespace limitscope::cli {

using CommandArgs = std::vector<std::string>;

// (one line per subcommand, added with its cmd_*.cpp)
int run_simulate(const CommandArgs& args);           // cmd_simulate.cpp
int run_parse_metrics(const CommandArgs& args);      // cmd_parse_metrics.cpp
int run_bench_parse(const CommandArgs& args);        // cmd_bench_parse.cpp
int run_test_rules(const CommandArgs& args);         // cmd_test_rules.cpp
int run_loadgen(const CommandArgs& args);            // cmd_loadgen.cpp
int run_decide(const CommandArgs& args);             // cmd_decide.cpp
int run_hammer(const CommandArgs& args);             // cmd_hammer.cpp
int run_bench_redis(const CommandArgs& args);        // cmd_bench_redis.cpp
int run_probe(const CommandArgs& args);              // cmd_probe.cpp
int run_bench_probe(const CommandArgs& args);        // cmd_bench_probe.cpp
int run_bench_session(const CommandArgs& args);      // cmd_bench_session.cpp
int run_replay(const CommandArgs& args);             // cmd_replay.cpp
int run_sweep(const CommandArgs& args);              // cmd_sweep.cpp
int run_bench_sweep(const CommandArgs& args);        // cmd_bench_sweep.cpp
int run_compare(const CommandArgs& args);            // cmd_compare.cpp
int run_config(const CommandArgs& args);             // cmd_config.cpp
int run_shadow(const CommandArgs& args);             // cmd_shadow.cpp
int run_audit(const CommandArgs& args);              // cmd_audit.cpp (dispatches subjects)
int run_audit_replicas(const CommandArgs& args);     // cmd_audit_replicas.cpp
int run_audit_clock(const CommandArgs& args);        // cmd_audit_clock.cpp
int run_audit_retry_after(const CommandArgs& args);  // cmd_audit_retry_after.cpp
int run_whatif(const CommandArgs& args);             // cmd_whatif.cpp (dispatches scenarios)
int run_whatif_outage(const CommandArgs& args);      // cmd_whatif_outage.cpp
int run_whatif_routing(const CommandArgs& args);     // cmd_whatif_routing.cpp
int run_key_names(const CommandArgs& args);          // cmd_key_names.cpp

}  // namespace limitscope::cli
