#pragma once
// What every source adds to its key rows at snapshot time, from the store and the names it
// knows: the name an operator reads, and the highest 429/s of the key in the chart window
// (so a burst that has ended still points at its cause).

#include <vector>

#include "core/dashboard/dashboard_snapshot.h"
#include "core/dashboard/key_names.h"
#include "core/metrics/series_store.h"

namespace limitscope {

/// Sets each row's name (names->display(api_key); left empty without `names`), its
/// peak_rejected_per_s and rejected_in_view from limitscope_key_rejected_per_second{api_key,
/// tier, model} over [view.start_ms, view.end_ms] (left unset when the key has no such series
/// there), and its shadow_would_refuse_in_view from
/// limitscope_key_shadow_would_refuse_per_second the same way.
void complete_key_rows(std::vector<KeyRow>& rows, const metrics::SeriesStore& store,
                       const ChartView& view, const KeyNames* names);

}  // namespace limitscope
