#pragma once
// View ▸ Theme (issue 31 §3): the system's palette, or a light or dark one chosen in the window. The charts follow
// the application palette (ChartTheme::fromPalette), so a switch recolours every view; exported slides stay white.

#include <QPalette>
#include <QString>

#include <optional>

namespace trainmem {

enum class ThemeChoice { System, Light, Dark };

/// "system", "light", "dark" (settings and tests).
QString themeName(ThemeChoice t);
std::optional<ThemeChoice> parseThemeName(const QString& name);

/// The palette of a choice: System is the palette the platform gave the application before any choice was applied.
QPalette themePalette(ThemeChoice t);

/// Sets the application's palette (and, for Light and Dark, the Fusion style, which draws with any palette; System
/// restores the platform's style). Every widget gets a PaletteChange and the charts recolour themselves.
void applyTheme(ThemeChoice t);

} // namespace trainmem
