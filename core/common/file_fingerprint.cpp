#include "core/common/file_fingerprint.h"

#include <xxhash.h>

#include <cstdint>
#include <fstream>
#include <memory>

#include "core/common/error.h"

namespace studio {

namespace {

using HashState = std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)>;

HashState newState() {
  HashState state(XXH3_createState(), &XXH3_freeState);
  XXH3_128bits_reset(state.get());
  return state;
}

std::string hexDigest(XXH3_state_t* state) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state));
  static const char* const kDigits = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : canonical.digest) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0x0f]);
  }
  return hex;
}

}  // namespace

std::string filesFingerprint(const std::vector<std::string>& paths) {
  const HashState state = newState();
  std::vector<char> buffer(1 << 20);
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throwError(ErrorKind::Io, path, "", "cannot be read to fingerprint it");
    const auto size = static_cast<std::uint64_t>(in.tellg());
    XXH3_128bits_update(state.get(), &size, sizeof size);  // moving bytes between files shows
    in.seekg(0);
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      XXH3_128bits_update(state.get(), buffer.data(), static_cast<std::size_t>(in.gcount()));
    }
  }
  return hexDigest(state.get());
}

std::string bytesFingerprint(const std::vector<std::string>& parts) {
  const HashState state = newState();
  for (const std::string& part : parts) {
    const auto size = static_cast<std::uint64_t>(part.size());
    XXH3_128bits_update(state.get(), &size, sizeof size);
    XXH3_128bits_update(state.get(), part.data(), part.size());
  }
  return hexDigest(state.get());
}

}  // namespace studio
