#pragma once
// Fonts for ImGui panels: the system's sans-serif (found through fontconfig, as Qt finds its own)
// at the pixel size of the Qt UI font, rasterised at the device pixel ratio so text stays sharp
// on high-DPI screens. Falls back to ImGui's built-in font when no TrueType file is found.

#include <string>

struct ImFontAtlas;

namespace studio::views {

// The file fontconfig picks for `pattern` ("sans-serif", "monospace"), or "" when none.
std::string findFontFile(const char* pattern);

// Fills `atlas` (cleared first) with the UI font at `pixel_size` × `device_pixel_ratio`.
void buildImGuiFonts(ImFontAtlas& atlas, float pixel_size, float device_pixel_ratio);

}  // namespace studio::views
