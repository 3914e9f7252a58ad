// Verifies the one AlertState's names: the dashboard's words for all five states, and the
// ALERTS series' alertstate label, which only has pending and firing (anything else is
// inactive, as Prometheus writes no ALERTS sample for it).
#include "core/metrics/alert_state.h"

#include <gtest/gtest.h>

#include "core/dashboard/dashboard_snapshot.h"
#include "core/metrics/alert_engine.h"

namespace limitscope {
namespace {

TEST(AlertState, NamesForTheDashboardAndForAlerts) {
  EXPECT_EQ(to_string(AlertState::firing), "firing");
  EXPECT_EQ(to_string(AlertState::resolved), "resolved");
  EXPECT_EQ(to_string(AlertState::no_data), "no data");
  EXPECT_EQ(alert_state_name(AlertState::pending), "pending");
  EXPECT_EQ(alert_state_name(AlertState::firing), "firing");
  EXPECT_EQ(alert_state_name(AlertState::resolved), "inactive");
  EXPECT_EQ(alert_state_name(AlertState::no_data), "inactive");
  // The engine's alerts carry the same type the dashboard's rows do.
  metrics::Alert a;
  AlertRow row;
  row.state = a.state;
  EXPECT_EQ(row.state, AlertState::pending);
}

}  // namespace
}  // namespace limitscope
