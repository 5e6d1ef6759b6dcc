#include "sessions/content_hash.h"

#include <xxhash.h>

namespace studio::sessions {

std::string contentHash(std::string_view bytes) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(bytes.data(), bytes.size()));
  static const char* const kDigits = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * sizeof(canonical.digest));
  for (unsigned char byte : canonical.digest) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0x0f]);
  }
  return hex;
}

}  // namespace studio::sessions
