#pragma once
// Long loads report how far they are and can be stopped between chunks (ImHex's task style): the
// UI shows the fraction and drops a load a newer one replaced.

#include <cstdint>
#include <functional>

namespace studio::document {

// Called with the bytes (or files) done and the total; returning false stops the load, which then
// throws studio::Error of kind Cancelled.
using LoadProgress = std::function<bool(std::uint64_t done, std::uint64_t total)>;

}  // namespace studio::document
