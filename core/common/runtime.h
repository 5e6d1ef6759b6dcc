#pragma once
// Process-wide set-up of the tensor runtime, called once by every executable before any model work.

namespace studio {

// Uses every core for torch's intra-op pool unless OMP_NUM_THREADS or STUDIO_THREADS says
// otherwise (Debian's libtorch starts with one thread).
void initTorchRuntime();

}  // namespace studio
