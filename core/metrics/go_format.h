#pragma once
// Go's number formatting as Prometheus's alert templates produce it, so an annotation reads
// byte for byte what Prometheus (and promtool) would print: fmt's %v for float64, printf
// verbs, and the humanize* functions of prometheus/template.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/common/expected.h"

namespace limitscope::metrics::gofmt {

/// `fmt.Sprint(v)` for a float64 (strconv 'g', precision -1): shortest round-trip digits,
/// exponent form when the decimal exponent is < -4 or >= 6
/// ("1e+06", "123456", "1.234567e+06", "0.0001", "1e-05", "NaN", "+Inf", "-Inf").
std::string format_float_v(double v);

/// strconv.FormatFloat(v, 'E', -1, 64): "1.234567E+06", "1E+00" (promtool's sample diffs).
std::string format_float_upper_e(double v);

/// Go's `%.4g` (also used by every humanize function): like C's, but NaN/±Inf spelled Go's way.
std::string format_g4(double v);

/// One printf argument: Go's dynamic types as templates see them.
using PrintfArg = std::variant<std::int64_t, double, std::string, bool>;

/// fmt.Sprintf for the verbs alert templates use: %v %s %d %f %F %e %E %g %G %x %X %q %t %%,
/// with flags (+ - # 0 space), width and precision. Mismatches render as Go does
/// ("%!d(float64=1.5)", "%!v(MISSING)", "%!(EXTRA string=x)").
std::string sprintf(std::string_view format, const std::vector<PrintfArg>& args);

/// Go's strconv.ParseFloat for template arguments given as strings ("1e3", "NaN", "+Inf").
Expected<double> parse_float(std::string_view text);

/// prometheus/template humanize: SI prefixes k M G ... or m u n ..., 4 significant digits.
std::string humanize(double v);
/// humanize1024: binary prefixes ki Mi Gi ...
std::string humanize1024(double v);
/// humanizeDuration: seconds -> "1d 2h 3m 4s", "1m 30s", "1.5s", "500ms".
std::string humanize_duration(double seconds);
/// humanizePercentage: ratio -> "12.3%".
std::string humanize_percentage(double ratio);
/// humanizeTimestamp: Unix seconds -> Go's time.Time String in UTC,
/// "1970-01-01 00:00:01.5 +0000 UTC".
std::string humanize_timestamp(double unix_seconds);

}  // namespace limitscope::metrics::gofmt
