#pragma once
// Where a result came from, carried in every run's result (RunResult::provenance: `run --json`,
// the session's result_json, `export` and `merge`): the studio's version and the commit it was
// built from, the libtorch it ran on, the device (and its product name) and dtype, and which model
// exactly — the hash of its config.json and of its weights files' safetensors headers (every
// tensor's name, dtype, shape and offsets; cheap to read, unlike the weights, and any re-export or
// edit of a tensor's layout changes it), and the kernel switches set in the environment
// (kernel_switches.h), which choose the kernels that computed it. No torch here: the studio's Qt
// views include it through model_cache.h.

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace studio::model {
struct LoadedModel;
}

namespace studio::engine {

struct Provenance {
  std::string studio_version;
  std::string commit;               // common/build_commit.h
  std::string libtorch;
  std::string device;               // as loaded: "cpu", "cuda", "cuda:1"
  std::string device_name;          // the GPU's product name, or the CPU's (/proc/cpuinfo)
  std::string dtype;                // "f32", "bf16", "f16"
  std::string config_hash;          // XXH3-128 of config.json's bytes (of the config's JSON for a
                                    // model built in memory)
  std::string weights_header_hash;  // XXH3-128 over each *.safetensors file's name and header, in
                                    // name order; "none" for a model built in memory
  // The kernel switches set when the provenance was taken (kernelSwitchesSet), by name.
  std::map<std::string, std::string> kernel_switches;

  nlohmann::json toJson() const;
};

// Reads the model folder's config.json and safetensors headers, and the kernel switches set now.
// Throws studio::Error (Io, Format) naming a file that cannot be read or whose header length is
// impossible.
Provenance provenanceOf(const model::LoadedModel& model);

// `loaded` (provenanceOf a model loaded earlier) with the kernel switches set now: a run's.
Provenance provenanceNow(Provenance loaded);

}  // namespace studio::engine
