#pragma once
// Process-wide set-up of the tensor runtime, called once by every executable before any model work.

#include <string>

namespace studio {

// Sets the allocator and OpenMP variables that CPU tensor work needs and, when it had to set any,
// re-executes the program once with them (both libraries read them only at start-up). Call it
// first thing in main(), before any thread exists. Variables a person has set are left alone;
// setting STUDIO_RUNTIME_TUNED (to anything) beforehand turns the whole thing off. With argv null
// it only sets them, for the processes this one starts. Returns on every path where it does not
// exec.
//
// Why: glibc hands every freed block above its mmap threshold back to the kernel, so each forward
// pass page-faults its activations in again, and libgomp's idle threads spin on the cores that
// OpenBLAS's threads are doing the matmuls on. Measured on a 2-core machine (bench prefill, 23M
// parameters, 2048 tokens): 4.6 s before, 1.5 s after.
void tuneProcessEnvironment(char** argv);

// The variables above as they are in this process ("NAME=value" or "NAME unset", comma-separated),
// for `studio-cli version` and the About box.
std::string runtimeTuning();

// Uses every core for torch's intra-op pool unless OMP_NUM_THREADS or STUDIO_THREADS says
// otherwise (Debian's libtorch starts with one thread).
void initTorchRuntime();

}  // namespace studio
