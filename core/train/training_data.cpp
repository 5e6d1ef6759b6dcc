#include "core/train/training_data.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/common/error.h"
#include "core/common/param_spec.h"
#include "core/common/utf8.h"
#include "core/engine/prepared_prompt.h"
#include "core/engine/prompt_template.h"
#include "core/task/seeded_rng.h"
#include "core/task/task.h"

namespace studio::train {

namespace {

constexpr int kMaxAttempts = 16;

std::uint64_t exampleStreamSeed(std::uint64_t seed, std::int64_t step, std::int64_t slot) {
  return task::mixSeed(task::mixSeed(task::mixSeed(seed) ^ static_cast<std::uint64_t>(step)) ^
                       static_cast<std::uint64_t>(slot));
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throwError(ErrorKind::Io, path, "", "cannot open the training text");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Tokens per example of a text source.
std::int64_t textWindow(const MixtureSource& source, std::int64_t seq_len) {
  return source.window > 0 ? source.window : seq_len;
}

// Whether the generator takes an Int "chars" and a Float "depth" (the curriculum's items).
bool hasNeedleDepth(const task::TaskGenerator& generator) {
  bool chars = false, depth = false;
  for (const ParamSpec& spec : generator.params()) {
    chars = chars || (spec.name == "chars" && spec.type == ParamSpec::Type::Int);
    depth = depth || (spec.name == "depth" && spec.type == ParamSpec::Type::Float);
  }
  return chars && depth;
}

// The evidence tokens of `item` in the prompt `encoding` whose context starts at byte
// `context_offset`, and the copy pairs of the answer that follows at `answer_from`.
void markEvidence(const task::TaskItem& item, const tokenizer::Encoding& encoding,
                  std::size_t context_offset, TrainingExample& example) {
  const utf8::OffsetMap offsets(item.context);
  const auto at = static_cast<std::int64_t>(context_offset);
  for (const Span& target : item.targets) {
    const Span bytes{at + static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(target.start))),
                     at + static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(target.end)))};
    std::vector<std::int64_t> span;  // the tokens holding the target's bytes
    for (const Span& tokens : engine::tokensCovering(encoding.byte_offsets, {bytes})) {
      for (std::int64_t t = tokens.start; t < tokens.end; ++t) span.push_back(t);
    }
    example.evidence.insert(example.evidence.end(), span.begin(), span.end());
    const auto answer_tokens = static_cast<std::int64_t>(example.ids.size()) - example.answer_from;
    if (!example.copy_queries.empty() || span.empty() ||
        static_cast<std::int64_t>(span.size()) > answer_tokens) {
      continue;
    }
    bool verbatim = true;
    for (std::size_t i = 0; i < span.size() && verbatim; ++i) {
      verbatim = example.ids[static_cast<std::size_t>(span[i])] ==
                 example.ids[static_cast<std::size_t>(example.answer_from) + i];
    }
    if (!verbatim) continue;
    for (std::size_t i = 0; i < span.size(); ++i) {
      example.copy_queries.push_back(example.answer_from - 1 + static_cast<std::int64_t>(i));
      example.copy_sources.push_back(span[i]);
    }
  }
  std::sort(example.evidence.begin(), example.evidence.end());
  example.evidence.erase(std::unique(example.evidence.begin(), example.evidence.end()),
                         example.evidence.end());
}

}  // namespace

std::optional<double> NeedleGapCurriculum::depth(std::int64_t step, std::int64_t chars,
                                                 double u_mix, double u_scale) const {
  if (!on || chars <= 0 || u_mix < random_fraction) return std::nullopt;
  const auto anneal = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(anneal_fraction * static_cast<double>(steps)));
  const double f = std::min(1.0, static_cast<double>(step + 1) / static_cast<double>(anneal));
  // v2: gap = int(min_gap + f·(max − min_gap)), then int(gap · U(0.8, 1.2)).
  const std::int64_t base =
      static_cast<std::int64_t>(static_cast<double>(min_gap) + f * static_cast<double>(chars - min_gap));
  const auto gap = static_cast<std::int64_t>(static_cast<double>(base) * (0.8 + 0.4 * u_scale));
  return std::clamp(1.0 - static_cast<double>(gap) / static_cast<double>(chars), 0.0, 1.0);
}

TrainingExample answerExample(const tokenizer::Tokenizer& tokenizer, const task::TaskItem& item,
                              std::int64_t end_of_text, double context_loss_weight,
                              const std::string& source) {
  if (item.answers.empty()) {
    throwError(ErrorKind::Config, "recipe", source, "its items carry no reference answer");
  }
  engine::PromptParts parts;
  parts.task_description = item.task_description;
  parts.context = item.context;
  parts.question = item.question;
  TrainingExample example;
  example.source = source;
  const engine::BuiltPrompt prompt = engine::answerPrompt(parts);
  const tokenizer::Encoding encoding = tokenizer.encode(prompt.text);
  example.ids = encoding.ids;
  const std::size_t answer_from = example.ids.size();
  const std::vector<std::int64_t> answer = tokenizer.encode(item.answers.front() + "\n").ids;
  example.ids.insert(example.ids.end(), answer.begin(), answer.end());
  example.ids.push_back(end_of_text);
  example.weights.assign(example.ids.size(), static_cast<float>(context_loss_weight));
  example.weights[0] = 0.0f;
  std::fill(example.weights.begin() + static_cast<std::ptrdiff_t>(answer_from),
            example.weights.end(), 1.0f);
  example.answer_from = static_cast<std::int64_t>(answer_from);
  markEvidence(item, encoding, prompt.context_offset, example);
  return example;
}

std::uint64_t trainingItemSeed(std::uint64_t recipe_seed, std::int64_t step, std::int64_t slot,
                               int attempt) {
  const std::uint64_t mixed =
      task::mixSeed(exampleStreamSeed(recipe_seed, step, slot) ^ static_cast<std::uint64_t>(attempt));
  return (mixed & ((1ULL << 62) - 1)) | (1ULL << 62);
}

TrainingData::TrainingData(const DataRecipe& recipe,
                           std::shared_ptr<const tokenizer::Tokenizer> tokenizer,
                           std::int64_t end_of_text_id, std::uint64_t seed,
                           NeedleGapCurriculum curriculum)
    : m_recipe(recipe), m_tokenizer(std::move(tokenizer)), m_end_of_text(end_of_text_id),
      m_seed(seed), m_curriculum(curriculum) {
  double total = 0;
  for (std::size_t i = 0; i < recipe.mixture.size(); ++i) {
    const MixtureSource& r = recipe.mixture[i];
    const std::string field = "data.mixture[" + std::to_string(i) + "]";
    Source source;
    source.recipe = r;
    if (!r.task.empty()) {
      source.generator = task::TaskRegistry::instance().generator(r.task);
      if (!source.generator) {
        std::string known;
        for (const auto* g : task::TaskRegistry::instance().generators()) {
          known += (known.empty() ? "" : ", ") + g->name();
        }
        throwError(ErrorKind::Config, "recipe", field + ".task",
                   "no task generator named '" + r.task + "' (known: " + known + ")");
      }
      // Resolve once with the ranges' lower ends, so a bad parameter fails now, not at step k.
      nlohmann::json probe = r.params;
      for (const ParamSpec& spec : source.generator->params()) {
        const auto range = r.ranges.find(spec.name);
        if (range == r.ranges.end()) continue;
        probe[spec.name] = spec.type == ParamSpec::Type::Int
                               ? nlohmann::json(static_cast<std::int64_t>(range->second.first))
                               : nlohmann::json(range->second.first);
      }
      for (const auto& [name, range] : r.ranges) {
        if (!probe.contains(name)) {
          throwError(ErrorKind::Config, "recipe", field + ".ranges." + name,
                     "is not a parameter of " + r.task);
        }
      }
      try {
        resolveParams(r.task, source.generator->params(), probe);
      } catch (const Error& error) {
        throwError(ErrorKind::Config, "recipe", field + ".params", error.what());
      }
    } else {
      const std::int64_t window = textWindow(r, recipe.seq_len);
      for (const std::string& path : r.text_files) {
        std::vector<std::int64_t> ids = m_tokenizer->encode(readFile(path)).ids;
        if (static_cast<std::int64_t>(ids.size()) < window + 1) {
          throwError(ErrorKind::Io, path, "",
                     "has " + std::to_string(ids.size()) + " tokens, fewer than the window + 1 (" +
                         std::to_string(window + 1) + ")");
        }
        source.texts.push_back(std::move(ids));
      }
    }
    total += r.weight;
    m_sources.push_back(std::move(source));
  }
  double running = 0;
  for (const Source& source : m_sources) {
    running += source.recipe.weight / total;
    m_cumulative.push_back(running);
  }
  m_cumulative.back() = 1.0;
}

TrainingExample TrainingData::example(std::int64_t step, std::int64_t slot) const {
  const std::int64_t source_slot = m_recipe.same_source_per_batch ? 0 : slot;
  task::SeededRng rng =
      task::SeededRng::stream(exampleStreamSeed(m_seed, step, source_slot), "source");
  const double u = rng.uniform01();
  const std::size_t index = static_cast<std::size_t>(
      std::upper_bound(m_cumulative.begin(), m_cumulative.end(), u) - m_cumulative.begin());
  const Source& source = m_sources[std::min(index, m_sources.size() - 1)];
  return source.generator ? taskExample(source, step, slot) : textExample(source, step, slot);
}

TrainingExample TrainingData::taskExample(const Source& source, std::int64_t step,
                                          std::int64_t slot) const {
  const MixtureSource& r = source.recipe;
  std::size_t shortest = SIZE_MAX;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const std::uint64_t item_seed = trainingItemSeed(m_seed, step, slot, attempt);
    task::SeededRng rng = task::SeededRng::stream(item_seed, "train-params");
    nlohmann::json given = r.params;
    for (const ParamSpec& spec : source.generator->params()) {
      const auto range = r.ranges.find(spec.name);
      if (range == r.ranges.end()) continue;
      const auto [lo, hi] = range->second;
      if (spec.type == ParamSpec::Type::Int) {
        given[spec.name] = rng.uniformInt(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
      } else {
        given[spec.name] = lo + (hi - lo) * rng.uniform01();
      }
    }
    if (m_curriculum.on && hasNeedleDepth(*source.generator)) {
      task::SeededRng draw = task::SeededRng::stream(item_seed, "train-curriculum");
      const double u_mix = draw.uniform01();
      const double u_scale = draw.uniform01();
      const nlohmann::json chars =
          resolveParams(r.task, source.generator->params(), given).at("chars");
      if (const auto depth = m_curriculum.depth(step, chars.get<std::int64_t>(), u_mix, u_scale)) {
        given["depth"] = *depth;
      }
    }
    const task::TaskItem item =
        source.generator->generate(resolveParams(r.task, source.generator->params(), given), item_seed);
    TrainingExample example = answerExample(*m_tokenizer, item, m_end_of_text,
                                            m_recipe.context_loss_weight, r.label());
    shortest = std::min(shortest, example.ids.size());
    if (static_cast<std::int64_t>(example.ids.size()) > m_recipe.seq_len) continue;
    return example;
  }
  std::ostringstream what;
  what << kMaxAttempts << " items in a row were longer than data.seq_len (" << m_recipe.seq_len
       << " tokens; the shortest had " << shortest
       << "): lower the length parameters or raise seq_len";
  throwError(ErrorKind::Config, "recipe", r.task, what.str());
}

TrainingExample TrainingData::textExample(const Source& source, std::int64_t step,
                                          std::int64_t slot) const {
  task::SeededRng rng = task::SeededRng::stream(exampleStreamSeed(m_seed, step, slot), "text");
  const auto& ids = source.texts[static_cast<std::size_t>(
      rng.uniformInt(0, static_cast<std::int64_t>(source.texts.size()) - 1))];
  const std::int64_t length = textWindow(source.recipe, m_recipe.seq_len);
  const std::int64_t start = rng.uniformInt(0, static_cast<std::int64_t>(ids.size()) - length);
  TrainingExample example;
  example.source = source.recipe.label();
  example.ids.assign(ids.begin() + start, ids.begin() + start + length);
  example.weights.assign(static_cast<std::size_t>(length), 1.0f);
  example.weights[0] = 0.0f;
  example.answer_from = 1;
  return example;
}

TrainingBatch TrainingData::batch(std::int64_t step, std::int64_t batch_size) const {
  std::vector<TrainingExample> examples;
  std::int64_t longest = 2;
  for (std::int64_t slot = 0; slot < batch_size; ++slot) {
    examples.push_back(example(step, slot));
    longest = std::max<std::int64_t>(longest, static_cast<std::int64_t>(examples.back().ids.size()));
  }
  const std::int64_t T = longest - 1;
  TrainingBatch batch;
  batch.inputs = torch::full({batch_size, T}, m_end_of_text, torch::kInt64);
  batch.targets = torch::full({batch_size, T}, m_end_of_text, torch::kInt64);
  batch.weights = torch::zeros({batch_size, T}, torch::kFloat32);
  batch.answer_mask = torch::zeros({batch_size, T}, torch::kBool);
  auto inputs = batch.inputs.accessor<std::int64_t, 2>();
  auto targets = batch.targets.accessor<std::int64_t, 2>();
  auto weights = batch.weights.accessor<float, 2>();
  auto answer = batch.answer_mask.accessor<bool, 2>();
  for (std::int64_t b = 0; b < batch_size; ++b) {
    const TrainingExample& e = examples[static_cast<std::size_t>(b)];
    ++batch.sources[e.source];
    batch.tokens += static_cast<std::int64_t>(e.ids.size()) - 1;
    for (std::size_t i = 0; i + 1 < e.ids.size(); ++i) {
      const auto t = static_cast<std::int64_t>(i);
      inputs[b][t] = e.ids[i];
      targets[b][t] = e.ids[i + 1];
      weights[b][t] = e.weights[i + 1];
      answer[b][t] = t + 1 >= e.answer_from;
    }
  }
  batch.examples = std::move(examples);
  return batch;
}

}  // namespace studio::train
