// Replays the fuzz harnesses over files and folders of inputs (their corpora and the reproducers
// of what they once found) with the normal compiler, so that `make check` keeps every finding
// fixed without libFuzzer: `fuzz_replay HARNESS PATH...`. Each harness's LLVMFuzzerTestOneInput
// is compiled under the name studio_fuzz_<harness> (CMakeLists.txt). Prints each input before
// running it, so a failure names its file.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define STUDIO_FUZZ_HARNESS(name) \
  extern "C" int studio_fuzz_##name(const std::uint8_t* data, std::size_t size);
#include "fuzz_harnesses.inc"
#undef STUDIO_FUZZ_HARNESS

namespace {

using Harness = int (*)(const std::uint8_t*, std::size_t);

struct Named {
  const char* name;
  Harness harness;
};

#define STUDIO_FUZZ_HARNESS(name) {#name, studio_fuzz_##name},
const Named kHarnesses[] = {
#include "fuzz_harnesses.inc"
};
#undef STUDIO_FUZZ_HARNESS

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  Harness harness = nullptr;
  for (const Named& named : kHarnesses) {
    if (argc > 1 && std::string(argv[1]) == named.name) harness = named.harness;
  }
  if (!harness) {
    std::fprintf(stderr, "usage: fuzz_replay HARNESS PATH... (harnesses:");
    for (const Named& named : kHarnesses) std::fprintf(stderr, " %s", named.name);
    std::fprintf(stderr, ")\n");
    return 2;
  }
  std::vector<fs::path> inputs;
  for (int i = 2; i < argc; ++i) {
    const fs::path path(argv[i]);
    if (fs::is_directory(path)) {
      for (const auto& entry : fs::recursive_directory_iterator(path)) {
        if (entry.is_regular_file()) inputs.push_back(entry.path());
      }
    } else {
      inputs.push_back(path);
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no inputs in the paths given\n");
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
  for (const fs::path& path : inputs) {
    std::fprintf(stderr, "replay: %s\n", path.c_str());
    std::ifstream file(path, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                  std::istreambuf_iterator<char>());
    harness(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::fprintf(stderr, "replay: %zu inputs, no finding\n", inputs.size());
  return 0;
}
