#pragma once
// JSON from files a person (or an attacker) hands the studio: config.json, index files and
// safetensors headers. Sizes and nesting are bounded before the parser sees the text, so a hostile
// file gives a clean studio::Error instead of exhausting memory or the stack.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace studio {

// Deeper nesting than any real config or header needs; `[[[[...` beyond it is refused.
inline constexpr int kMaxJsonDepth = 64;

// Parses `text`. Throws studio::Error (Format) naming `file` when the text is not well-formed JSON
// or nests deeper than `max_depth`. With `reject_duplicate_top_level_keys`, a key repeated in the
// top-level object is an error too (nlohmann would silently keep the last one).
nlohmann::json parseBoundedJson(const std::string& text, const std::string& file,
                                int max_depth = kMaxJsonDepth,
                                bool reject_duplicate_top_level_keys = false);

// Reads a regular file of at most `max_bytes` (refusing folders, FIFOs and devices without
// blocking on them). Throws studio::Error (Io) naming `file`.
std::string readBoundedFile(const std::string& path, const std::string& file,
                            std::size_t max_bytes);

// readBoundedFile + parseBoundedJson.
nlohmann::json readBoundedJsonFile(const std::string& path, const std::string& file,
                                   std::size_t max_bytes = 64u << 20);

// A JSON value as a person reads it in an error message: its type and, when short, its text.
std::string describeJson(const nlohmann::json& value);

}  // namespace studio
