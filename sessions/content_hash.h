#pragma once
// Content hashes that identify documents and model configurations inside a session.

#include <string>
#include <string_view>

namespace studio::sessions {

// XXH3 128-bit of `bytes` in its canonical (big-endian) form: 32 lowercase hex digits.
std::string contentHash(std::string_view bytes);

}  // namespace studio::sessions
