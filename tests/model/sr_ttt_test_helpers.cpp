#include "sr_ttt_test_helpers.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include "support/test_paths.h"

namespace studio::sr_ttt_test {

std::vector<ReferenceCase> readReference(const std::string& dir) {
  std::ifstream file(dir + "/reference.json");
  REQUIRE(file);
  const nlohmann::json json = nlohmann::json::parse(file);
  std::vector<ReferenceCase> cases;
  for (const auto& c : json.at("cases")) {
    ReferenceCase out;
    out.ids = c.at("ids").get<std::vector<std::int64_t>>();
    std::vector<torch::Tensor> rows;
    for (const auto& row : c.at("logits")) {
      rows.push_back(torch::tensor(row.get<std::vector<double>>(), torch::kFloat64));
    }
    out.logits = torch::stack(rows);
    for (const auto& l : c.at("layers")) {
      ReferenceCase::Layer layer;
      layer.alpha = l.at("alpha").get<double>();
      layer.loss = l.at("loss").get<std::vector<double>>();
      for (const auto& w : l.at("tau")) {
        layer.windows.push_back({w.at("window")[0].get<std::int64_t>(),
                                 w.at("window")[1].get<std::int64_t>(), w.at("p").get<double>(),
                                 w.at("tau").get<double>()});
      }
      layer.routed = l.at("routed").get<std::vector<std::int64_t>>();
      layer.cache = l.at("cache").get<std::vector<std::int64_t>>();
      layer.evictions = l.at("evictions").get<std::int64_t>();
      layer.dropped = l.at("dropped").get<std::int64_t>();
      layer.v2_total_evictions = l.at("v2_total_evictions").get<std::int64_t>();
      out.layers.push_back(std::move(layer));
    }
    cases.push_back(std::move(out));
  }
  return cases;
}

std::string convertScript() {
  return std::string(test_paths::kSourceDir) + "/scripts/convert-sr-ttt";
}

const char* const kMakeV2CheckpointPython = R"PY(import json, struct, sys
import torch

folder, out = sys.argv[1], sys.argv[2]
with open(folder + "/model.safetensors", "rb") as f:
    size = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(size))
    data = f.read()
weights = {}
for name, info in header.items():
    if name == "__metadata__":
        continue
    start, end = info["data_offsets"]
    weights[name] = torch.frombuffer(bytearray(data[start:end]), dtype=torch.float32).reshape(info["shape"])
config = json.load(open(folder + "/config.json"))
layers, d_head, cap = config["n_layers"], config["d_head"], config["cache_cap"]
sd = {"embed.weight": weights["embed.weight"]}
for i in range(layers):
    p = f"blocks.{i}."
    for name in ["gate_param", "norm1.weight", "norm1.bias", "ttt.W_fast_init", "ttt.ttt_lr",
                 "ttt.W_q.weight", "ttt.W_k.weight", "ttt.W_v.weight", "ttt.W_o.weight"]:
        sd[p + name] = weights[p + name]
    sd[p + "ttt.rope.inv_freq"] = 1.0 / (10000.0 ** (torch.arange(0, d_head, 2).float() / d_head))
    for name in ["ttt.layer_norm.weight", "ttt.layer_norm.bias", "cache_attn.W_qc.weight",
                 "cache_attn.W_kc.weight", "cache_attn.W_vc.weight", "cache_attn.W_o.weight"]:
        sd[p + name] = weights[p + name]
    sd[p + "cache.cache_h"] = torch.randn(cap, config["d_model"])
    sd[p + "cache.cache_positions"] = torch.arange(cap, dtype=torch.long)
    sd[p + "cache.cache_surprisals"] = torch.rand(cap)
    sd[p + "cache.cache_ages"] = torch.zeros(cap)
    sd[p + "cache.cache_is_needle"] = torch.zeros(cap, dtype=torch.bool)
    sd[p + "cache.count"] = torch.tensor(3)
    for name in ["norm2.weight", "norm2.bias", "ffn.w1.weight", "ffn.w2.weight", "ffn.w3.weight"]:
        sd[p + name] = weights[p + name]
sd["norm_out.weight"] = weights["norm_out.weight"]
sd["norm_out.bias"] = weights["norm_out.bias"]
sd["lm_head.weight"] = sd["embed.weight"]
keep = ["window_size", "ttt_update_chunk", "chunk_size", "max_seq_len", "dtype"]
torch.save({"model_state_dict": sd, "config": {k: config[k] for k in keep}}, out)
)PY";

}  // namespace studio::sr_ttt_test
