#pragma once

namespace studio::plugins {

// Registers every method and task that ships with the studio into core's registries.
// Safe to call more than once.
void registerBuiltinPlugins();

}  // namespace studio::plugins
