#pragma once
// The task and method registries a sweep config is checked against. The replay build (make check)
// registers the studio's own plugins; the torch-free libFuzzer build registers the task plugins
// and, for the methods (which need libtorch), stand-ins with their names and no parameters.

namespace studio::fuzz {

void registerTasksAndMethods();

}  // namespace studio::fuzz
