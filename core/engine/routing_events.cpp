#include "core/engine/routing_events.h"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

namespace studio::engine {

namespace {

// The bytes of prompt token `position` in the prompt's text; nothing without a prompt or token.
std::optional<Span> promptToken(const PreparedPrompt* prompt, std::int64_t position) {
  if (!prompt || position < 0 || position >= static_cast<std::int64_t>(prompt->token_bytes.size())) {
    return std::nullopt;
  }
  return prompt->token_bytes[static_cast<std::size_t>(position)];
}

// The bytes of prompt token `position` that lie in the document, relative to its start.
Span documentBytes(const PreparedPrompt* prompt, std::int64_t position) {
  const Span none{-1, -1};
  const std::optional<Span> bytes = promptToken(prompt, position);
  if (!bytes) return none;
  const Span token = *bytes;
  const auto begin = static_cast<std::int64_t>(prompt->context_offset);
  const std::int64_t end = begin + static_cast<std::int64_t>(prompt->context_bytes);
  const std::int64_t from = std::max(token.start, begin);
  const std::int64_t to = std::min(token.end, end);
  if (from >= to) return none;
  return {from - begin, to - begin};
}

// The prompt's text of token `position` (whole characters: a token's bytes cover them), "" when
// there is no prompt or no such token.
std::string tokenText(const PreparedPrompt* prompt, std::int64_t position) {
  const std::optional<Span> token = promptToken(prompt, position);
  if (!token || token->start < 0 || token->end > static_cast<std::int64_t>(prompt->text.size())) {
    return "";
  }
  return prompt->text.substr(static_cast<std::size_t>(token->start),
                             static_cast<std::size_t>(token->size()));
}

bool contains(const std::vector<std::int64_t>& sorted, std::int64_t position) {
  return std::binary_search(sorted.begin(), sorted.end(), position);
}

}  // namespace

std::vector<RoutingEvent> routingEvents(const model::RoutingTrace& trace,
                                        const PreparedPrompt* prompt) {
  std::vector<RoutingEvent> events;
  for (std::size_t layer = 0; layer < trace.layers.size(); ++layer) {
    const model::RoutingTrace::Layer& l = trace.layers[layer];
    for (const model::RoutingTrace::Window& w : l.windows) {
      for (std::int64_t position = w.start; position < w.end; ++position) {
        RoutingEvent e;
        e.layer = static_cast<int>(layer);
        e.position = position;
        e.loss = w.losses[static_cast<std::size_t>(position - w.start)];
        e.threshold = w.tau;
        e.routed = contains(w.routed, position);
        e.cache_occupancy = w.occupancy;
        e.evictions = w.evictions;
        e.window_start = w.start;
        e.window_end = w.end;
        e.percentile = w.percentile_value;
        e.inserted = contains(w.inserted, position);
        e.alpha = l.alpha;
        if (position == w.start) e.evicted = w.evicted;
        e.open = w.open;
        const Span bytes = documentBytes(prompt, position);
        e.document_start = bytes.start;
        e.document_end = bytes.end;
        events.push_back(std::move(e));
      }
    }
  }
  return events;
}

std::vector<ArtifactEvent> cacheReadArtifacts(const model::RoutingTrace& trace,
                                              const PreparedPrompt* prompt) {
  std::vector<ArtifactEvent> artifacts;
  for (std::size_t layer = 0; layer < trace.layers.size(); ++layer) {
    const model::RoutingTrace::Layer& l = trace.layers[layer];
    for (const model::RoutingTrace::Read& read : l.reads) {
      ArtifactEvent a;
      a.name = "cache_read";
      a.kind = "cache_read";
      a.shape = {static_cast<std::int64_t>(read.cached.size())};
      a.data.assign(read.weights.begin(), read.weights.end());
      nlohmann::json bytes = nlohmann::json::array(), texts = nlohmann::json::array();
      for (const std::int64_t position : read.cached) {
        const Span b = documentBytes(prompt, position);
        bytes.push_back({b.start, b.end});
        texts.push_back(tokenText(prompt, position));
      }
      a.meta_json = nlohmann::json{{"layer", layer},
                                   {"position", read.position},
                                   {"alpha", l.alpha},
                                   {"cache_norm", read.cache_norm},
                                   {"ttt_norm", read.ttt_norm},
                                   {"cached", read.cached},
                                   {"cached_bytes", bytes},
                                   {"cached_text", texts}}
                        .dump();
      artifacts.push_back(std::move(a));
    }
  }
  return artifacts;
}

}  // namespace studio::engine
