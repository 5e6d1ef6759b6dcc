#pragma once
// What an attention probe measures (SPEC §1), per layer, per query head and per query position.
// Plain data: the engine emits it in ProbeEvents, the session stores it, views draw it.

#include <cstdint>
#include <vector>

namespace studio::probe {

struct QueryStats {
  std::int64_t pos = 0;        // the query's token position
  double lse = 0;              // log Σ_{j≤pos} exp(z_j)
  double mass = 0;             // Σ_{τ∈T, τ≤pos} α_τ
  double margin = 0;           // set margin: log Σ_τ e^{z_τ} − log Σ_{j∉T} e^{z_j}
  double margin_best = 0;      // single-target margin of the highest-logit target
  double max_target_logit = 0; // max_τ z_τ (−inf when no target is visible to this query)
  // Lemma 2.3's pairwise gap: max_τ z_τ − max_{j∉T} z_j, in the units of `margin` (+inf when
  // every visible key is a target, −inf when none is; NaN in sessions older than schema 5).
  double min_gap = 0;
  std::int64_t target_keys = 0;   // |T|: target keys visible to the query (−1: not recorded)
  double best_target_weight = 0;  // α_{j*}: the weight of the highest-logit target key
  std::vector<std::int64_t> near_ties;  // m(Δ) for each Δ of ProbeResult::deltas
  std::vector<double> dilution_bound;   // 1 / (1 + m(Δ)·e^{−Δ}) for each Δ: bounds α_{j*} (Lemma 2.2)
  std::vector<double> set_bound;        // |T| / (|T| + m(Δ)·e^{−Δ}) for each Δ: bounds `mass`
};

struct HeadStats {
  int layer = 0;
  int head = 0;  // query head; it reads KV head head / (num_heads / num_kv_heads)
  std::vector<QueryStats> queries;
};

struct ProbeResult {
  std::vector<double> deltas;          // the Δ values of near_ties, default {0.5, 1, 2}
  double epsilon = 0.1;                // ε of the Lemma 2.3 margin
  std::int64_t context_length = 0;     // T: keys visible to the last query
  double required_margin = 0;          // log((T−1)(1−ε)/ε) (Lemma 2.3)
  int num_layers = 0;
  int num_heads = 0;
  std::vector<HeadStats> heads;        // layer-major: index layer * num_heads + head
  // The paper's averages: over layers and heads, and over the query positions (answer steps).
  double mean_mass = 0;
  double mean_margin = 0;
  std::vector<double> mean_mass_per_layer;    // over heads and queries
};

}  // namespace studio::probe
