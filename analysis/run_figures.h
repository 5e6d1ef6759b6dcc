#pragma once
// The comparison and dilution charts as Figures built from run traces (issue 8):
//   qttt_loss       qTTT's span loss per step, one line per run that trained
//   answer_mass     the answer query's target mass per qTTT step (step 0: after the prefill)
//   answer_margin   its set margin per step, with the Lemma 2.3 required margin
//   mass_per_layer  target mass per layer before (prefill) and after (last qTTT step) the method
//   query_direction Prop. 3.1: cos(Δq, k_j* − μ) of the answer query after each qTTT step, mean
//                   over heads and layers, against 0
//   head_mass       layer × head grid of the answer query's target mass after the prefill
//   head_mass_after the same after the method (last qTTT step, else the first decode step)
//   head_mass_diff  after − before, per head
//   dilution_mass   the target set's mass against context length over runs (a sweep), with
//                   Lemma 2.2's bound for a set, |T|/(|T|+m·e^{−Δ}) (Δ = 1)
//   dilution_best_key  the best target key's own weight, with Lemma 2.2's 1/(1+m·e^{−Δ})
//   dilution_margin the set margin, with Definition 2.1's log(τ/(1−τ)) (τ = 0.9)
//   dilution_gap    the pairwise gap (best target − best other logit), with Lemma 2.3's required
//                   log((T−1)(1−ε)/ε) (ε = 0.1)
//   accuracy        accuracy against context length, per method, with 95 % Wilson intervals
//   train_loss      the trainer's loss per step
//   fast_weight_loss, refine, refine_steps, routing, routing_cache, token_heatmap:
//                   fast_weight_figures.h, refine_figures.h, routing_figures.h,
//                   token_heatmap_figure.h
// A point that averages several runs (a sweep's seeds or items of one length) carries an error
// bar: accuracy its 95 % Wilson interval, the dilution figures ± one standard error of the mean.
// The caption line says what the bars are, then names every run with its parameters and the model.

#include <string>
#include <vector>

#include "analysis/figure.h"
#include "analysis/run_trace.h"

namespace studio::analysis {

const std::vector<std::string>& runFigureNames();

// "model qwen3; #1 qttt steps=8 lr=0.001 seed=0; #2 ...": the runs a figure draws, for its caption.
std::string runsCaption(const std::vector<const RunTrace*>& runs);

// `figure` named `name`, its caption followed by the runs' (runsCaption): what makeRunFigure does
// to every figure, for one drawn with options of its own (token_heatmap's scope).
Figure withRunsCaption(const std::string& name, Figure figure,
                       const std::vector<const RunTrace*>& runs);

// Throws studio::Error (Argument) naming `--figure` and listing the names for an unknown one.
// Runs without the data a figure needs are left out of it (an empty figure says what is missing).
Figure makeRunFigure(const std::string& name, const std::vector<const RunTrace*>& runs);

}  // namespace studio::analysis
