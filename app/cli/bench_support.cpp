#include "app/cli/bench_support.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "app/cli/device_memory.h"
#include "core/common/error.h"
#include "core/common/torch_compat.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"

namespace studio::cli {

namespace {

const char* const kShapes = "small, 20m, 20m-ttt-linear, 20m-ttt-mlp, 1.7b, 4b";

std::int64_t heapBytesInUse() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<std::int64_t>(info.uordblks + info.hblkhd);
}

model::ModelConfig shapeConfig(const std::string& shape) {
  nlohmann::json json = {{"model_type", "qwen3"}, {"rms_norm_eps", 1e-6},
                         {"rope_theta", 1000000.0}, {"max_position_embeddings", 40960},
                         {"torch_dtype", "bfloat16"}, {"eos_token_id", 0}};
  if (shape == "20m") {
    json.update({{"vocab_size", 8192}, {"hidden_size", 512}, {"intermediate_size", 1536},
                 {"num_hidden_layers", 6}, {"num_attention_heads", 8},
                 {"num_key_value_heads", 4}, {"head_dim", 64}, {"tie_word_embeddings", true}});
  } else if (shape == "1.7b") {
    json.update({{"vocab_size", 151936}, {"hidden_size", 2048}, {"intermediate_size", 6144},
                 {"num_hidden_layers", 28}, {"num_attention_heads", 16},
                 {"num_key_value_heads", 8}, {"head_dim", 128}, {"tie_word_embeddings", true}});
  } else if (shape == "4b") {
    json.update({{"vocab_size", 151936}, {"hidden_size", 2560}, {"intermediate_size", 9728},
                 {"num_hidden_layers", 36}, {"num_attention_heads", 32},
                 {"num_key_value_heads", 8}, {"head_dim", 128}, {"tie_word_embeddings", true}});
  } else if (shape == "small") {
    // bench qttt's default: runs 16k tokens on a CPU in seconds (~3.4M parameters).
    json.update({{"vocab_size", 1024}, {"hidden_size", 256}, {"intermediate_size", 768},
                 {"num_hidden_layers", 4}, {"num_attention_heads", 4},
                 {"num_key_value_heads", 2}, {"head_dim", 64}, {"tie_word_embeddings", true},
                 {"max_position_embeddings", 65536}, {"torch_dtype", "float32"}});
  } else if (shape == "20m-ttt-linear" || shape == "20m-ttt-mlp") {
    // The 20m shape's width and depth with TTT layers (ttt-lm-pytorch's layout).
    json = {{"model_type", "ttt"}, {"vocab_size", 8192}, {"hidden_size", 512},
            {"intermediate_size", 1536}, {"num_hidden_layers", 6}, {"num_attention_heads", 8},
            {"rms_norm_eps", 1e-6}, {"rope_theta", 10000.0}, {"max_position_embeddings", 40960},
            {"tie_word_embeddings", true}, {"torch_dtype", "bfloat16"}, {"eos_token_id", 0},
            {"ttt_layer_type", shape == "20m-ttt-mlp" ? "mlp" : "linear"},
            {"ttt_base_lr", shape == "20m-ttt-mlp" ? 0.1 : 1.0}, {"mini_batch_size", 16}};
  } else {
    throwArgument("--shape", "unknown shape '" + shape + "' (known: " + kShapes + ")");
  }
  return model::ModelConfig::fromJson(json);
}

}  // namespace

void warmUpPrefills(model::CausalLMImpl& lm, const std::vector<std::int64_t>& lengths,
                    const torch::Device& device) {
  const std::int64_t shortest = *std::min_element(lengths.begin(), lengths.end());
  std::vector<std::int64_t> warm{std::min<std::int64_t>(1024, shortest)};
  if (device.is_cuda()) warm.insert(warm.end(), lengths.begin(), lengths.end());
  torch::NoGradGuard no_grad;
  for (const std::int64_t length : warm) {
    model::ModelState cache(lm.numLayers());
    model::prefill(lm, cache, std::vector<std::int64_t>(static_cast<std::size_t>(length), 1));
  }
}

double timeSeconds(const torch::Device& device, const std::function<void()>& body) {
  compat::synchronize(device);
  const auto start = std::chrono::steady_clock::now();
  body();
  compat::synchronize(device);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double matmulGflops(const torch::Device& device, std::int64_t n) {
  torch::NoGradGuard no_grad;
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  const torch::Tensor a = torch::randn({n, n}, options);
  const torch::Tensor b = torch::randn({n, n}, options);
  torch::matmul(a, b);  // warm-up
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    best = std::min(best, timeSeconds(device, [&] { torch::matmul(a, b); }));
  }
  return 2.0 * static_cast<double>(n) * n * n / best / 1e9;
}

double peakHeapBytesDuring(const std::function<void()>& body) {
  const std::int64_t before = heapBytesInUse();
  std::atomic<std::int64_t> peak{before};
  std::atomic<bool> done{false};
  std::thread sampler([&] {
    while (!done.load()) {
      const std::int64_t now = heapBytesInUse();
      if (now > peak.load()) peak.store(now);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  // Stops and joins the sampler however `body` ends, a throw included.
  struct StopSampler {
    std::atomic<bool>& done;
    std::thread& sampler;
    ~StopSampler() {
      done = true;
      sampler.join();
    }
  };
  {
    const StopSampler stop{done, sampler};
    body();
  }
  return static_cast<double>(std::max(peak.load(), heapBytesInUse()) - before);
}

void addBenchModelOptions(CLI::App* command, BenchModelOptions& options) {
  command->add_option("--model", options.model.model,
                      "Model folder; without it, random weights of --shape");
  command->add_option("--shape", options.shape,
                      std::string("Random model shape (without --model): ") + kShapes +
                          " (1.7b and 4b: Qwen3-1.7B's and Qwen3-4B's shapes)")
      ->capture_default_str();
  command->add_option("--device", options.model.device, "Device to run on")
      ->check(deviceSpelling())
      ->capture_default_str();
  command->add_option("--dtype", options.model.dtype, "f32, bf16 or f16")
      ->transform(dtypeSpelling());
}

std::shared_ptr<model::LoadedModel> loadBenchModel(const BenchModelOptions& options,
                                                   std::uint64_t seed) {
  model::LoadOptions load;
  load.device = options.model.device;
  load.dtype = options.model.dtype;
  if (!options.model.model.empty()) return model::loadModel(options.model.model, load);
  const model::ModelConfig config = shapeConfig(options.shape);
  // Drawn where the model will live, in its dtype: a 4B model drawn in float32 on the CPU and
  // converted would take 16 GB and about a minute before a GPU bench could start.
  const torch::Device device = model::parseDevice(load.device);
  const torch::Dtype dtype = model::parseDtype(load.dtype, device);
  return model::buildModel(config, model::randomTensors(config, seed, dtype, device), load);
}

std::string benchModelName(const BenchModelOptions& options) {
  return options.model.model.empty() ? "random " + options.shape : options.model.model;
}

std::vector<std::int64_t> checkedLengths(const std::vector<std::int64_t>& lengths,
                                         const std::string& option, std::int64_t minimum) {
  if (lengths.empty()) throwArgument(option, "give at least one length");
  for (const std::int64_t length : lengths) {
    if (length < minimum) {
      throwArgument(option, "each length must be at least " + std::to_string(minimum) + " (got " +
                                std::to_string(length) + ")");
    }
  }
  return lengths;
}

PhaseMemory measurePhase(const torch::Device& device, const std::function<void()>& timed,
                         const std::function<void()>& untimed) {
  PhaseMemory memory;
  if (device.is_cuda()) {
    if (const auto peak = devicePeakDuring(device, timed)) {
      memory.extra_bytes = static_cast<double>(peak->extra());
      memory.device_peak_bytes = static_cast<double>(peak->peak_bytes);
    }
    return memory;
  }
  timed();
  if (untimed) memory.extra_bytes = peakHeapBytesDuring(untimed);
  return memory;
}

std::string memorySource(const torch::Device& device) {
  if (!device.is_cuda()) {
#if defined(__SANITIZE_ADDRESS__)
    return "none: on the CPU of a sanitizer build, AddressSanitizer's allocator is not glibc's, "
           "whose mallinfo2 the host figures read; *_peak_bytes read 0";
#else
    return "host heap (glibc) above the level before each phase, from an untimed run; no device "
           "figures on the CPU";
#endif
  }
  const std::string missing = devicePeakUnavailableReason(device);
  if (!missing.empty()) return "none: " + missing;
  return "CUDA caching allocator (bytes held by live tensors, not its cache): *_peak_bytes above "
         "the level before each phase, *_peak_device_bytes in all, weights included";
}

nlohmann::json jsonNumber(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::string formatBytes(const std::optional<double>& bytes) {
  if (!bytes) return "n/a";
  char text[32];
  if (*bytes >= 1024.0 * 1048576) {
    std::snprintf(text, sizeof(text), "%.2f GiB", *bytes / (1024.0 * 1048576));
  } else {
    std::snprintf(text, sizeof(text), "%.1f MiB", *bytes / 1048576);
  }
  return text;
}

}  // namespace studio::cli
