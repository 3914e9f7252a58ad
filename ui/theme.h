#pragma once
// Light and dark palettes for the whole application (Fusion style, so both look the same on
// every desktop). Charts switch their own QChart theme alongside.

namespace limitscope::ui {

/// True when the desktop's current palette is dark (Qt 6.4 has no color-scheme API).
bool systemPrefersDark();
/// Applies the light or dark palette to the application.
void applyPalette(bool dark);

}  // namespace limitscope::ui
