#include "core/engine/provenance.h"

#include <torch/version.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/common/build_commit.h"
#include "core/common/error.h"
#include "core/common/file_fingerprint.h"
#include "core/model/kernel_switches.h"
#include "core/model/model_loader.h"
#include "studio/build_info.h"

#if STUDIO_HAVE_CUDA_KERNELS
#include "kernels/device_info.h"
#endif

namespace studio::engine {

namespace {

// A safetensors header is at most this long (the format's own reader refuses larger ones).
constexpr std::uint64_t kMaxHeaderBytes = 100u << 20;

// The file's 8-byte little-endian header length and its header.
std::string safetensorsHeader(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char length_bytes[8] = {};
  if (!in.read(reinterpret_cast<char*>(length_bytes), 8)) {
    throwError(ErrorKind::Io, path.string(), "header", "cannot be read to fingerprint it");
  }
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | length_bytes[i];
  if (length > kMaxHeaderBytes) {
    throwError(ErrorKind::Format, path.string(), "header",
               "declares a header of " + std::to_string(length) + " bytes");
  }
  std::string header(static_cast<std::size_t>(length), '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(length))) {
    throwError(ErrorKind::Format, path.string(), "header", "ends inside its header");
  }
  return std::string(reinterpret_cast<const char*>(length_bytes), 8) + header;
}

// The first "model name" of /proc/cpuinfo (Linux), or "unknown".
std::string cpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto first = line.find_first_not_of(" \t", colon + 1);
    if (first != std::string::npos) return line.substr(first);
  }
  return "unknown";
}

std::string deviceNameOf(const c10::Device& device) {
  if (!device.is_cuda()) return cpuModelName();
#if STUDIO_HAVE_CUDA_KERNELS
  return kernels::cudaDeviceName(device.has_index() ? device.index() : -1);
#else
  return "unknown (this build has no CUDA kernels)";
#endif
}

}  // namespace

nlohmann::json Provenance::toJson() const {
  return {{"studio_version", studio_version}, {"commit", commit},
          {"libtorch", libtorch},             {"device", device},
          {"device_name", device_name},       {"dtype", dtype},
          {"config_hash", config_hash},
          {"weights_header_hash", weights_header_hash},
          {"kernel_switches", kernel_switches}};
}

Provenance provenanceNow(Provenance loaded) {
  loaded.kernel_switches = model::kernelSwitchesSet();
  return loaded;
}

Provenance provenanceOf(const model::LoadedModel& loaded) {
  Provenance out;
  out.studio_version = STUDIO_VERSION_STRING;
  out.commit = buildCommit();
  out.libtorch = TORCH_VERSION;
  out.device = loaded.device.str();
  out.device_name = deviceNameOf(loaded.device);
  out.dtype = model::dtypeName(loaded.dtype);
  out.kernel_switches = model::kernelSwitchesSet();
  namespace fs = std::filesystem;
  const fs::path dir(loaded.dir);
  if (loaded.dir.empty() || !fs::exists(dir / "config.json")) {
    out.config_hash = bytesFingerprint({loaded.config.toJson().dump()});
    out.weights_header_hash = "none";
    return out;
  }
  out.config_hash = filesFingerprint({(dir / "config.json").string()});
  std::vector<fs::path> weights;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".safetensors") {
      weights.push_back(entry.path());
    }
  }
  std::sort(weights.begin(), weights.end());
  std::vector<std::string> parts;
  for (const fs::path& file : weights) {
    parts.push_back(file.filename().string());
    parts.push_back(safetensorsHeader(file));
  }
  out.weights_header_hash = weights.empty() ? "none" : bytesFingerprint(parts);
  return out;
}

}  // namespace studio::engine
