#pragma once
// Deletes a folder and everything in it, with POSIX calls rather than std::filesystem::remove_all.
// The libtorch of PyTorch's wheels exports its own statically linked copy of libstdc++'s
// std::filesystem (pytorch/pytorch#133437), so a studio built with a newer g++ against it may run a
// mix of two remove_all implementations: the likely cause (inferred from the pattern, no backtrace)
// of the trainer's SIGSEGV each time it pruned an old checkpoint on an H100. Nothing here resolves
// to those exported symbols.

#include <string>

namespace studio {

// Removes `path` (a file, or a folder with its contents; links are removed, never followed). A
// path that does not exist is not an error. Throws an Io error naming the entry that could not be
// removed.
void removeTree(const std::string& path);

}  // namespace studio
