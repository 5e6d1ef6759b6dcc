// A safetensors file's header and tensor table (core/model/safetensors_header.h): the whole input
// is the file.

#include "core/common/error.h"
#include "core/model/safetensors_header.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  try {
    const model::SafetensorsHeader header =
        model::parseSafetensorsHeader(data, size, "model.safetensors");
    // What the parser promises: every tensor's bytes inside the data section, none overlapping.
    std::uint64_t previous_end = 0;
    for (const std::string& name : header.names) {
      const model::SafetensorsTensorInfo& info = header.infos.at(name);
      if (info.end > size - header.data_start || info.begin > info.end) __builtin_trap();
      if (info.begin != info.end) {
        if (info.begin < previous_end) __builtin_trap();
        previous_end = info.end;
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
