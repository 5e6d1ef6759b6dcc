// The benchmark commands run end to end on a tiny model and print their figures (their speed is
// measured by running them, not asserted here): comma-separated length lists, the qTTT bench's JSON
// with times and peak heap per phase, the prefill/decode benches' JSON lines with the matmul FLOP
// count, MFU and bytes per token checked against the model's shape, bad option values, and the
// sessions bench on a small event count.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "support/run_cli.h"
#include "support/scoped_environment.h"
#include "support/temp_dir.h"
#include "support/tiny_model_folder.h"

using nlohmann::json;
using studio::test::TinyModelFolder;
using studio::test::runCli;

TEST_CASE("bench probe takes a comma-separated length list and prints one line per length",
          "[cli][bench]") {
  TinyModelFolder model("bench-probe");
  const auto run = runCli("bench probe --model '" + model.path() + "' --lengths 64,128");
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("T=64:") != std::string::npos);
  CHECK(run.out.find("T=128:") != std::string::npos);
  CHECK(run.out.find("% of the prefill") != std::string::npos);
  CHECK(run.out.find("matmul") != std::string::npos);
  const auto bad = runCli("bench probe --model '" + model.path() + "' --lengths 8");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--lengths") != std::string::npos);
}

TEST_CASE("bench qttt reports times, their ratio and peak heap per phase as JSON", "[cli][bench]") {
  TinyModelFolder model("bench-qttt");
  const auto run = runCli("bench qttt --model '" + model.path() +
                          "' --lengths 96,192 --span 16 --steps 2 --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  CHECK(out["provenance"]["device"] == "cpu");  // where the figures were measured
  CHECK(out["provenance"]["libtorch"].is_string());
  const json& rows = out.at("lengths");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["context"] == 96);
  CHECK(rows[1]["context"] == 192);
  // A sanitizer build's allocator is not glibc's: it says so, and reads no heap.
  const bool heap_read = out["memory"].get<std::string>().rfind("none:", 0) != 0;
  for (const auto& row : rows) {
    // The prefill's KV cache stays allocated, so its peak is above the level before it; the steps'
    // buffers are transient and may fall between two samples on a model this small.
    if (heap_read) CHECK(row["prefill_peak_bytes"].get<double>() > 0);
    CHECK(row["qttt_step_peak_bytes"].is_number());
    CHECK(row["naive_step_peak_bytes"].is_number());
    CHECK(std::isfinite(row["speedup"].get<double>()));
    CHECK(row["speedup"].get<double>() > 0);
    // The aten calls of one step, counted in a step of their own: the projections' matmuls among
    // them, most called first, and none that only makes a view or allocates.
    const auto ops = row["host_ops_per_step"].get<std::int64_t>();
    CHECK(ops > 100);
    std::int64_t listed = 0, previous = ops;
    bool matmul = false;
    for (const auto& entry : row["host_ops_top"]) {
      const auto name = entry[0].get<std::string>();
      const auto count = entry[1].get<std::int64_t>();
      CHECK(name.rfind("aten::", 0) == 0);
      CHECK(name != "aten::view");
      CHECK(name != "aten::empty");
      CHECK(count <= previous);
      previous = count;
      listed += count;
      matmul = matmul || name == "aten::mm";
    }
    CHECK(listed <= ops);
    CHECK(matmul);
    // Nothing is captured on the CPU, and no capture failed.
    CHECK(row["graph_replays"] == 0);
    CHECK(row["graph_failure"] == "");
  }
}

TEST_CASE("bench sessions writes the events it is asked for and reopens the session",
          "[cli][bench]") {
  const auto run = runCli("bench sessions --events 2000 --runs 2");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("events/s") != std::string::npos);
  CHECK(run.out.find("list 2 runs") != std::string::npos);
}

namespace {

// The JSON objects of a --json bench run, one per line.
std::vector<json> jsonLines(const std::string& out) {
  std::vector<json> lines;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    if (!line.empty()) lines.push_back(json::parse(line));
    start = end + 1;
  }
  return lines;
}

double approx(double expected, double actual) {
  return std::abs(actual - expected) / std::max(1.0, std::abs(expected));
}

}  // namespace

TEST_CASE("bench prefill runs every length of --tokens and gives MFU against --peak-tflops",
          "[cli][bench]") {
  TinyModelFolder model("bench-prefill");
  const auto run = runCli("bench prefill --model '" + model.path() +
                          "' --tokens 32,64 --peak-tflops 2 --peak-gbps 5 --json");
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const auto rows = jsonLines(run.out);
  REQUIRE(rows.size() == 2);
  const auto& c = model.config();
  const double L = c.num_hidden_layers, d = c.hidden_size, hd = c.head_dim;
  const double H = c.num_attention_heads, KV = c.num_key_value_heads;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    const double T = i == 0 ? 32 : 64;
    CHECK(row["bench"] == "prefill");
    CHECK(row["provenance"]["device"] == "cpu");
    CHECK(row["provenance"]["device_name"].is_string());
    CHECK(row["tokens"] == static_cast<int>(T));
    // Projections and MLP for every token, causal QKᵀ and PV, the LM head for one row.
    const double expected = 2 * T * L * (d * hd * (2 * H + 2 * KV) + 3 * d * c.intermediate_size) +
                            L * H * 4 * hd * T * (T + 1) / 2 + 2.0 * c.vocab_size * d;
    CHECK(approx(expected, row["prefill_flops"].get<double>()) < 1e-12);
    CHECK(row["flop_count"].get<std::string>().find("causal QK^T and PV") != std::string::npos);
    const double tflops = row["prefill_flops"].get<double>() / row["prefill_seconds"].get<double>() / 1e12;
    CHECK(approx(tflops, row["prefill_tflops_per_s"].get<double>()) < 1e-9);
    CHECK(row["peak_tflops"] == 2);
    CHECK(approx(tflops / 2, row["mfu"].get<double>()) < 1e-9);
    // No device figures on the CPU, and the JSON says so.
    CHECK(row["prefill_peak_device_bytes"].is_null());
    CHECK(row["memory"].get<std::string>().find("CPU") != std::string::npos);
    CHECK(row["kv_cache_bytes"].get<double>() == L * 2 * KV * hd * 4 * T);
  }
  // Without a peak, no MFU; the human line names the count.
  const auto human = runCli("bench prefill --model '" + model.path() + "' --tokens 32");
  INFO(human.err);
  REQUIRE(human.exit_code == 0);
  CHECK(human.out.find("prefill 32 tokens:") != std::string::npos);
  CHECK(human.out.find("TFLOP/s of matmul FLOPs") != std::string::npos);
  CHECK(human.out.find(", MFU") == std::string::npos);
}

TEST_CASE("bench prefill --trace writes libtorch's profiler trace, or refuses before timing",
          "[cli][bench]") {
  TinyModelFolder model("bench-trace");
  studio::test::TempDir dir("bench-trace");
  const std::string trace = (dir.path() / "trace.json").string();
  const auto run = runCli("bench prefill --model '" + model.path() + "' --tokens 32 --json --trace '" +
                          trace + "'");
  INFO(run.out << run.err);
  if (run.exit_code == 0) {  // a libtorch with Kineto: the timed prefill's aten ops are in the trace
    const auto rows = jsonLines(run.out);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0]["traced"] == trace);
    std::ifstream in(trace);
    const json events = json::parse(in)["traceEvents"];
    CHECK(std::any_of(events.begin(), events.end(), [](const json& e) {
      return e.value("name", "").find("aten::") == 0;
    }));
  } else {  // Debian's libtorch has no Kineto: refused, naming the option, before any row
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("--trace") != std::string::npos);
    CHECK(run.err.find("Kineto") != std::string::npos);
    CHECK(jsonLines(run.out).empty());
  }
  const auto missing = runCli("bench prefill --model '" + model.path() +
                              "' --tokens 32 --trace '" + (dir.path() / "no/such/trace.json").string() + "'");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("--trace: its folder does not exist") != std::string::npos);
}

TEST_CASE("bench decode gives bytes per token and the fraction of --peak-gbps", "[cli][bench]") {
  TinyModelFolder model("bench-decode");
  const auto run = runCli("bench decode --model '" + model.path() +
                          "' --tokens 40,80 --decode-tokens 4 --peak-gbps 10 --json");
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const auto rows = jsonLines(run.out);
  REQUIRE(rows.size() == 2);
  const auto& c = model.config();
  const double kv_per_position =
      static_cast<double>(c.num_hidden_layers) * 2 * c.num_key_value_heads * c.head_dim * 4;
  double weights = static_cast<double>(c.parameterCount()) * 4;
  if (!c.tie_word_embeddings) weights -= static_cast<double>(c.vocab_size - 1) * c.hidden_size * 4;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    const double T = i == 0 ? 40 : 80;
    CHECK(row["bench"] == "decode");
    CHECK(row["tokens"] == static_cast<int>(T));
    CHECK(row["decode_tokens"] == 4);
    // Two untimed steps (the second would capture a graph), then 4 timed ones attending over
    // T+3 … T+6 keys.
    CHECK(row["decode_mean_context"].get<double>() == T + 4.5);
    CHECK(row["weight_bytes_per_token"].get<double>() == weights);
    CHECK(row["kv_bytes_per_position"].get<double>() == kv_per_position);
    CHECK(row["bytes_per_token"].get<double>() == weights + kv_per_position * (T + 4.5));
    const double gbps = row["bytes_per_token"].get<double>() * row["decode_tokens_per_s"].get<double>() / 1e9;
    CHECK(approx(gbps, row["decode_gbps"].get<double>()) < 1e-9);
    CHECK(approx(gbps / 10, row["bandwidth_fraction"].get<double>()) < 1e-9);
    CHECK(row["prefill_seconds"].get<double>() > 0);
    // Which decode path ran, and why not the CUDA graph (decode_graph.h); generate()'s steps
    // queued ahead of the host's reads (generation.h).
    CHECK(row["decode_path"] == "eager: the model is not on CUDA; next step queued ahead");
    CHECK(row["decode_queued_ahead"] == true);
    CHECK(row["decode_replayed_steps"] == 0);
  }
  const auto human = runCli("bench decode --model '" + model.path() +
                            "' --tokens 40 --decode-tokens 2 --peak-gbps 10");
  INFO(human.err);
  REQUIRE(human.exit_code == 0);
  CHECK(human.out.find("decode 2 tokens after 40 [eager: the model is not on CUDA; next step "
                       "queued ahead]:") != std::string::npos);
  CHECK(human.out.find("% of 10 GB/s") != std::string::npos);

  const auto eager = runCli("bench decode --model '" + model.path() +
                            "' --tokens 40 --decode-tokens 2 --decode-path eager --json");
  REQUIRE(eager.exit_code == 0);
  CHECK(jsonLines(eager.out).at(0)["decode_path"] ==
        "eager: --decode-path eager; next step queued ahead");
  {
    const studio::test::ScopedEnvironment one_step("STUDIO_DECODE_LOOKAHEAD", "off");
    const auto waited =
        runCli("bench decode --model '" + model.path() + "' --tokens 40 --decode-tokens 2 --json");
    REQUIRE(waited.exit_code == 0);
    const json row = jsonLines(waited.out).at(0);
    CHECK(row["decode_path"] ==
          "eager: the model is not on CUDA; one step at a time: STUDIO_DECODE_LOOKAHEAD=off");
    CHECK(row["decode_queued_ahead"] == false);
  }
  // Every step probed, as a thinking run's: one step at a time, and said so.
  const auto probed = runCli("bench decode --model '" + model.path() +
                             "' --tokens 40 --decode-tokens 3 --probe-steps --json");
  REQUIRE(probed.exit_code == 0);
  const json probed_row = jsonLines(probed.out).at(0);
  CHECK(probed_row["decode_probed"] == true);
  CHECK(probed_row["decode_queued_ahead"] == false);
  CHECK(probed_row["decode_path"].get<std::string>().find("per-step hooks") != std::string::npos);
  CHECK(probed_row["decode_tokens_per_s"].get<double>() > 0);
  // Tokens drawn with the thinking settings: on the host, one step at a time, and said so.
  const auto sampled = runCli("bench decode --model '" + model.path() +
                              "' --tokens 40 --decode-tokens 3 --sampling thinking --json");
  REQUIRE(sampled.exit_code == 0);
  const json sampled_row = jsonLines(sampled.out).at(0);
  CHECK(sampled_row["decode_sampling"] == "thinking");
  CHECK(sampled_row["decode_queued_ahead"] == false);
  CHECK(sampled_row["decode_path"] ==
        "eager: the model is not on CUDA; one step at a time: the sampler draws (temperature > 0) "
        "on the host");
  CHECK(probed_row["decode_sampling"] == "greedy");
  const auto bad = runCli("bench decode --model '" + model.path() + "' --decode-path fast");
  CHECK(bad.exit_code != 0);
  CHECK(bad.err.find("--decode-path") != std::string::npos);
  const auto bad_sampling = runCli("bench decode --model '" + model.path() + "' --sampling hot");
  CHECK(bad_sampling.exit_code != 0);
  CHECK(bad_sampling.err.find("--sampling") != std::string::npos);
}

namespace {

struct BadOption {
  std::string arguments;
  std::string option;  // the error must name it
};

void checkRefused(const std::vector<BadOption>& cases) {
  for (const auto& c : cases) {
    INFO(c.arguments);
    const auto run = runCli(c.arguments);
    INFO(run.out << run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(c.option) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("bench prefill and decode refuse bad lengths and peaks, naming the option",
          "[cli][bench]") {
  // Checked before any model is built: no --model needed.
  checkRefused({{"bench prefill --tokens 0", "--tokens"},
                {"bench prefill --tokens 32,-5", "--tokens"},
                {"bench prefill --tokens 32,abc", "--tokens"},
                {"bench prefill --peak-tflops -1", "--peak-tflops"},
                {"bench prefill --peak-tflops fast", "--peak-tflops"},
                {"bench decode --tokens 32 --decode-tokens 0", "--decode-tokens"},
                {"bench decode --tokens 32 --peak-gbps -3", "--peak-gbps"}});
}

TEST_CASE("bench probe and qttt refuse bad lengths and counts, and every bench an unknown shape",
          "[cli][bench]") {
  checkRefused({{"bench prefill --shape 7b --tokens 32", "--shape"},
                {"bench probe --lengths 128,8", "--lengths"},
                {"bench qttt --lengths 64 --naive-steps -1", "--naive-steps"},
                {"bench qttt --lengths 1", "--lengths"}});
}

TEST_CASE("bench probe prints one JSON object per length with the window and memory figures",
          "[cli][bench]") {
  TinyModelFolder model("bench-probe-json");
  const auto run = runCli("bench probe --model '" + model.path() + "' --lengths 64,600 --json");
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const auto rows = jsonLines(run.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["context"] == 64);
  CHECK(rows[1]["context"] == 600);
  for (const auto& row : rows) {
    CHECK(row["probe_over_prefill"].get<double>() > 0);
    // Shorter than 1,024 keys: the whole context, and at most 512 queries.
    CHECK(row["window_keys"] == row["context"]);
    CHECK(row["window_queries"] == std::min<int>(512, row["context"].get<int>()));
    CHECK(row["probe_peak_bytes"].is_number());
    CHECK(row["probe_peak_device_bytes"].is_null());
    CHECK(row["kv_cache_bytes"].get<double>() > 0);
  }
}

TEST_CASE("bench qttt takes the bench shapes and can leave the naive baseline out",
          "[cli][bench]") {
  const auto run = runCli("bench qttt --shape 20m --lengths 96 --span 16 --steps 1 "
                          "--naive-steps 0 --json");
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  CHECK(out["model"] == "random 20m");
  const json& row = out.at("lengths").at(0);
  CHECK(row["context"] == 96);
  CHECK(row["naive_step_seconds"].is_null());
  CHECK(row["speedup"].is_null());
  CHECK(row["naive_step_note"] == "not run (--naive-steps 0)");
  CHECK(row["step_over_prefill"].get<double>() > 0);
  CHECK(row["qttt_step_peak_device_bytes"].is_null());
}

TEST_CASE("bench attention on the CPU times the chunked paths and refuses bad shapes", "[cli][bench]") {
  const auto run = runCli("bench attention --device cpu --lengths 64,97 --span 8 --heads 4 "
                          "--kv-heads 2 --dim 16 --repeats 1");
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const auto rows = jsonLines(run.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1]["tokens"] == 97);
  for (const json& row : rows) {
    CHECK(row["path"] == "chunked");
    CHECK(row["span"] == 8);
    for (const char* key : {"prefill_attention_s", "span_forward_s", "chunked_backward_dq_s",
                            "probe_one_query_s"}) {
      CHECK(row[key].get<double>() > 0);
    }
    // One decode step's attention through the composition: no splits to compare.
    CHECK(row["decode_path"] == "chunked");
    CHECK(row["decode_attention_s"].get<double>() > 0);
    CHECK(row["decode_cache_gbps"].get<double>() > 0);
    CHECK_FALSE(row.contains("decode_attention_by_split_s"));
    // Flash, cuDNN and the dQ kernel are CUDA's; nothing of theirs on the CPU.
    CHECK_FALSE(row.contains("decode_flash_s"));
    CHECK_FALSE(row.contains("flash_full_backward_s"));
    CHECK_FALSE(row.contains("chunk_attention_flash_s"));
    CHECK_FALSE(row.contains("prefill_attention_cudnn_s"));
  }
  for (const auto& [args, option] : std::vector<std::pair<std::string, std::string>>{
           {"--chunk 0", "--chunk"}, {"--span 0", "--span"}, {"--heads 6 --kv-heads 4", "--heads"},
           {"--lengths 1", "--lengths"}}) {
    const auto bad = runCli("bench attention --device cpu --repeats 1 " + args);
    INFO(args << ": " << bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find(option) != std::string::npos);
  }
}
