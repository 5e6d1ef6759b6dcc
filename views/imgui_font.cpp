#include "views/imgui_font.h"

#include <fontconfig/fontconfig.h>
#include <imgui.h>

#include <memory>

namespace studio::views {

std::string findFontFile(const char* pattern_text) {
  FcConfig* config = FcInitLoadConfigAndFonts();
  if (!config) return {};
  std::string file;
  FcPattern* pattern = FcNameParse(reinterpret_cast<const FcChar8*>(pattern_text));
  if (pattern) {
    FcConfigSubstitute(config, pattern, FcMatchPattern);
    FcDefaultSubstitute(pattern);
    FcResult result = FcResultNoMatch;
    FcPattern* match = FcFontMatch(config, pattern, &result);
    if (match) {
      FcChar8* path = nullptr;
      // ImGui's rasteriser reads TrueType/OpenType only, not Type 1 or bitmap fonts.
      FcChar8* format = nullptr;
      if (FcPatternGetString(match, FC_FILE, 0, &path) == FcResultMatch &&
          FcPatternGetString(match, FC_FONTFORMAT, 0, &format) == FcResultMatch) {
        const std::string kind(reinterpret_cast<const char*>(format));
        if (kind == "TrueType" || kind == "CFF") file = reinterpret_cast<const char*>(path);
      }
      FcPatternDestroy(match);
    }
    FcPatternDestroy(pattern);
  }
  FcConfigDestroy(config);
  return file;
}

void buildImGuiFonts(ImFontAtlas& atlas, float pixel_size, float device_pixel_ratio) {
  atlas.Clear();
  static const std::string file = findFontFile("sans-serif");
  ImFont* font = nullptr;
  if (!file.empty()) {
    ImFontConfig config;
    config.OversampleH = 2;
    config.OversampleV = 1;
    // Latin, Greek (symbols in diagnostics), arrows and the replacement character.
    static const ImWchar kRanges[] = {0x0020, 0x024F, 0x0370, 0x03FF, 0x2000, 0x22FF,
                                      0x2500, 0x25FF, 0xFFFD, 0xFFFD, 0};
    font =
        atlas.AddFontFromFileTTF(file.c_str(), pixel_size * device_pixel_ratio, &config, kRanges);
  }
  if (!font) {
    ImFontConfig config;
    config.SizePixels = 13.f * device_pixel_ratio;
    atlas.AddFontDefault(&config);
  }
}

}  // namespace studio::views
