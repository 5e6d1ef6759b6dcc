// studio-cli bench attention: one layer's attention kernels at a context length, on random bf16
// tensors of a model's head shape (Qwen3-1.7B's by default): the span forward (flash), the span's
// dQ-only kernel (called directly, whatever STUDIO_SPAN_BACKWARD says) against libtorch's full
// flash backward (dQ, dK and dV) and the chunked composition's backward, next to the layer's
// whole causal prefill attention; the probe kernel for one query; and one decode step's attention
// (the query at the last position over the whole cache, decode_attention.h). On CUDA the prefill
// attention and one prefill chunk (the last --chunk queries over all keys) run on flash and on
// cuDNN each (core/model/cudnn_attention.h), cuDNN's first call of a shape timed apart since it
// plans per shape; the engine's own figure is that of the path it takes. The decode kernel runs at
// its own split size and at each of 64 to 1,024 keys a split, beside flash's one-query attention,
// so that a length just above a power of two (8,209: the rule's 65 splits of 128 keys) can be
// read against the split sizes around it. On the CPU only the chunked paths run.

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "app/cli/bench_support.h"
#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "core/model/attention_kernel.h"
#include "core/model/cudnn_attention.h"
#include "core/model/decode_attention.h"
#include "core/model/fused_attention.h"
#include "core/model/span_attention_backward.h"
#include "core/probe/probe_math.h"

namespace studio::cli {

namespace {

struct BenchAttentionOptions {
  std::string device = "cuda";
  std::vector<std::int64_t> lengths{8192, 32768};
  std::int64_t span = 128;
  std::int64_t chunk = 8192;
  std::int64_t heads = 16, kv_heads = 8, dim = 128;
  int repeats = 5;
};

// The best of `repeats` timings of body() after `prepare()` (untimed) each time.
double bestSeconds(const torch::Device& device, int repeats, const std::function<void()>& prepare,
                   const std::function<void()>& body) {
  double best = 1e30;
  for (int r = 0; r < repeats + 1; ++r) {  // the first run warms up
    prepare();
    const double s = timeSeconds(device, body);
    if (r > 0) best = std::min(best, s);
  }
  return best;
}

// Runs body() with STUDIO_ATTENTION set to `choice` (nullptr: unset), as fusedAttention reads it.
void withAttentionChoice(const char* choice, const std::function<void()>& body) {
  const char* before = std::getenv("STUDIO_ATTENTION");
  const std::string saved = before ? before : "";
  if (choice) ::setenv("STUDIO_ATTENTION", choice, 1); else ::unsetenv("STUDIO_ATTENTION");
  body();
  if (before) ::setenv("STUDIO_ATTENTION", saved.c_str(), 1); else ::unsetenv("STUDIO_ATTENTION");
}

// The prefill attention (T queries from position 0) and one chunk (the last `chunk` queries over
// all T keys) on flash and on cuDNN; the first cuDNN call of each shape timed on its own.
void prefillPaths(nlohmann::json& row, const BenchAttentionOptions& o, const torch::Device& device,
                  const torch::Tensor& keys, const torch::Tensor& values, double scale) {
  torch::NoGradGuard no_grad;
  const std::int64_t T = keys.size(2), chunk = std::min(o.chunk, T);
  const auto q_all = torch::randn({1, o.heads, T, o.dim}, keys.options());
  const auto q_chunk = q_all.narrow(2, T - chunk, chunk);
  row["chunk"] = chunk;
  row["prefill_path"] = model::attentionPathName(q_all, keys, values, 0);
  row["chunk_path"] = model::attentionPathName(q_chunk, keys, values, T - chunk);
  const auto noop = [] {};
  const auto attend = [&](const torch::Tensor& q, std::int64_t start) {
    if (!model::fusedAttention(q, keys, values, start, scale)) {
      throwError(ErrorKind::Internal, "bench attention", "", "the fused path did not apply");
    }
  };
  withAttentionChoice("flash", [&] {
    row["prefill_attention_flash_s"] = bestSeconds(device, o.repeats, noop, [&] { attend(q_all, 0); });
    row["chunk_attention_flash_s"] = bestSeconds(device, o.repeats, noop, [&] { attend(q_chunk, T - chunk); });
  });
  if (!model::cudnnAttentionBuilt()) return;
  withAttentionChoice("cudnn", [&] {
    row["prefill_attention_cudnn_first_s"] = timeSeconds(device, [&] { attend(q_all, 0); });
    row["prefill_attention_cudnn_s"] = bestSeconds(device, o.repeats, noop, [&] { attend(q_all, 0); });
    row["chunk_attention_cudnn_first_s"] = timeSeconds(device, [&] { attend(q_chunk, T - chunk); });
    row["chunk_attention_cudnn_s"] =
        bestSeconds(device, o.repeats, noop, [&] { attend(q_chunk, T - chunk); });
  });
}

// One decode step's attention: a query at position T − 1 over the T cached keys, one segment, the
// count on the device as the decode graph keeps it. The cache's bandwidth counts its keys and
// values read once.
void decodeAttentionTimes(nlohmann::json& row, const BenchAttentionOptions& o,
                          const torch::Device& device, const torch::Tensor& keys,
                          const torch::Tensor& values, double scale) {
  torch::NoGradGuard no_grad;
  const std::int64_t T = keys.size(2);
  const auto q = torch::randn({1, o.heads, 1, o.dim}, keys.options());  // [1, Hq, 1, D]
  const std::vector<std::pair<torch::Tensor, torch::Tensor>> segments{{keys, values}};
  const auto count = torch::full({1}, T, torch::TensorOptions(torch::kInt64).device(device));
  const bool kernel =
      model::decodeAttentionKernelRefusal(device, keys.scalar_type(), o.dim, 1).empty();
  const auto noop = [] {};
  const auto decodeSeconds = [&](int split_keys) {
    return bestSeconds(device, o.repeats, noop,
                       [&] { model::decodeAttention(q, segments, count, scale, split_keys); });
  };
  const double cache_bytes = 2.0 * static_cast<double>(keys.numel() * keys.element_size());
  const double seconds = decodeSeconds(0);
  row["decode_path"] = kernel ? "kernel" : "chunked";
  row["decode_attention_s"] = seconds;
  row["decode_cache_gbps"] = cache_bytes / seconds / 1e9;
  if (!kernel) return;
  row["decode_split_keys"] = model::decodeAttentionDefaultSplitKeys(T);
  nlohmann::json by_split = nlohmann::json::object();
  for (int split_keys = 64; split_keys <= 1024; split_keys *= 2) {
    by_split[std::to_string(split_keys)] = decodeSeconds(split_keys);
  }
  row["decode_attention_by_split_s"] = by_split;
  withAttentionChoice("flash", [&] {
    if (!model::fusedAttention(q, keys, values, T - 1, scale)) return;
    row["decode_flash_s"] = bestSeconds(
        device, o.repeats, noop, [&] { model::fusedAttention(q, keys, values, T - 1, scale); });
  });
}

nlohmann::json attentionAtLength(const BenchAttentionOptions& o, const torch::Device& device, std::int64_t T) {
  const auto bf16 = torch::TensorOptions(torch::kBFloat16).device(device);
  const std::int64_t k = std::min(o.span, T), start = T - k;
  const double scale = 1 / std::sqrt(static_cast<double>(o.dim));
  const auto q = torch::randn({1, o.heads, k, o.dim}, bf16);
  const auto keys = torch::randn({1, o.kv_heads, T, o.dim}, bf16);
  const auto values = torch::randn({1, o.kv_heads, T, o.dim}, bf16);
  const auto d_out = torch::randn({1, o.heads, k, o.dim}, bf16);
  const auto positions = torch::arange(start, T, torch::TensorOptions(torch::kInt64).device(device));
  const auto noop = [] {};
  nlohmann::json row = {{"tokens", T}, {"span", k}, {"heads", o.heads}, {"kv_heads", o.kv_heads},
                        {"dim", o.dim}};
  const bool fused = model::fusedAttention(q, keys, values, start, scale).has_value();
  row["path"] = model::attentionPathName(q, keys, values, start);

  // The layer's whole prefill attention (T queries over T keys), the yardstick: each fused path
  // first (so that cuDNN's first call is its first), the engine's figure the one it takes.
  if (fused) {
    prefillPaths(row, o, device, keys, values, scale);
    row["prefill_attention_s"] = row[row["prefill_path"] == "cudnn" ? "prefill_attention_cudnn_s"
                                                                     : "prefill_attention_flash_s"];
  } else {
    torch::NoGradGuard no_grad;
    const auto q_all = torch::randn({1, o.heads, T, o.dim}, bf16);
    const auto all_positions = torch::arange(T, positions.options());
    row["prefill_attention_s"] = bestSeconds(device, o.repeats, noop, [&] {
      model::causalAttention(q_all, keys, values, all_positions, scale);
    });
  }
  // Span forward.
  model::AttentionOutput forward;
  {
    torch::NoGradGuard no_grad;
    row["span_forward_s"] = bestSeconds(device, o.repeats, noop, [&] {
      auto f = model::fusedAttention(q, keys, values, start, scale);
      forward = f ? *f : model::causalAttention(q, keys, values, positions, scale);
    });
  }
  // Backwards: the chunked composition's (dQ only), flash's full one, the dQ kernel.
  {
    torch::Tensor q_leaf;
    model::AttentionOutput out;
    row["chunked_backward_dq_s"] = bestSeconds(
        device, o.repeats,
        [&] {
          q_leaf = q.detach().requires_grad_(true);
          out = model::causalAttention(q_leaf, keys, values, positions, scale);
        },
        [&] { out.out.backward(d_out); });
  }
  if (fused) {
    torch::Tensor q_leaf, k_leaf, v_leaf;
    model::AttentionOutput out;
    row["flash_full_backward_s"] = bestSeconds(
        device, o.repeats,
        [&] {
          q_leaf = q.detach().requires_grad_(true);
          k_leaf = keys.detach().requires_grad_(true);
          v_leaf = values.detach().requires_grad_(true);
          out = *model::fusedAttention(q_leaf, k_leaf, v_leaf, start, scale);
        },
        [&] { out.out.backward(d_out); });
  }
  if (model::spanBackwardAvailable(q, keys)) {
    row["span_dq_kernel_s"] = bestSeconds(device, o.repeats, noop, [&] {
      model::spanAttentionDq(q, keys, values, forward.out, forward.lse, d_out, positions, scale);
    });
  }
  // The probe of the last query against one target span, all heads of the layer.
  {
    const auto q_probe = torch::randn({o.heads, 1, o.dim}, bf16);
    const auto lse = torch::zeros({o.heads, 1}, torch::kFloat64) + std::log(static_cast<double>(T));
    const std::vector<torch::Tensor> segments{keys[0]};
    row["probe_one_query_s"] = bestSeconds(device, o.repeats, noop, [&] {
      probe::queryStats(q_probe, lse, segments, {T - 1}, {{T / 3, T / 3 + 16}}, scale, probe::ProbeOptions{});
    });
  }
  decodeAttentionTimes(row, o, device, keys, values, scale);
  return row;
}

void runBenchAttention(const BenchAttentionOptions& o) {
  if (o.span < 1) throwArgument("--span", "must be at least 1");
  if (o.chunk < 1) throwArgument("--chunk", "must be at least 1");
  if (o.heads < 1 || o.kv_heads < 1 || o.heads % o.kv_heads != 0) {
    throwArgument("--heads", "query heads must be a positive multiple of --kv-heads");
  }
  const torch::Device device(o.device);
  for (const std::int64_t T : o.lengths) {
    if (T < 2) throwArgument("--lengths", "each length must be at least 2");
    std::cout << attentionAtLength(o, device, T).dump() << std::endl;
  }
}

void addBenchAttentionCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<BenchAttentionOptions>();
  auto* command =
      benchCommand(app).add_subcommand("attention",
                                       "One layer's attention kernels: span forward and dQ "
                                       "backward, prefill, probe, decode (JSON lines)");
  command->add_option("--device", options->device, "cuda or cpu")->capture_default_str();
  command->add_option("--lengths", options->lengths, "Context lengths")->delimiter(',')->capture_default_str();
  command->add_option("--span", options->span, "k: span queries")->capture_default_str();
  command->add_option("--chunk", options->chunk, "Queries of the timed prefill chunk (CUDA)")
      ->capture_default_str();
  command->add_option("--heads", options->heads, "Query heads")->capture_default_str();
  command->add_option("--kv-heads", options->kv_heads, "Key/value heads")->capture_default_str();
  command->add_option("--dim", options->dim, "Head dimension")->capture_default_str();
  command->add_option("--repeats", options->repeats, "Timed repetitions (the best counts)")->capture_default_str();
  setCommandAction(command, exit_code, [options] { runBenchAttention(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(167, addBenchAttentionCommand);

}  // namespace studio::cli
