// The head inspector's query × key window: pooling that never loses a sharp key, zoom and pan
// limits on both axes, the phases and their difference, colours, bad input refused, and its
// export (the picture and the safetensors beside it).

#include <catch2/catch.hpp>

#include <QApplication>
#include <QFile>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <cstring>

#include "core/common/error.h"
#include "gui/trace_helpers.h"
#include "views/attention_window_view.h"
#include "views/figure_export_dialog.h"
#include "views/head_inspector_panel.h"
#include "views/max_pool.h"

using namespace studio;
using namespace studio::views;

namespace {

// queries × keys weights of `phases` phases, all 1e-4 but for what the test sets.
AttentionWindowData windowData(std::int64_t queries, std::int64_t keys, int phases) {
  AttentionWindowData d;
  d.title = "layer 1 · head 2";
  d.queries = queries;
  d.keys = keys;
  d.first_query = 1000;
  d.first_key = 10;
  for (int p = 0; p < phases; ++p) {
    d.phase_names.push_back(p == 0 ? "after prefill" : "after qTTT");
    d.weights.emplace_back(static_cast<std::size_t>(queries * keys), 1e-4f);
  }
  for (std::int64_t q = 0; q < queries; ++q) d.query_tokens.push_back("q" + std::to_string(q));
  for (std::int64_t k = 0; k < keys; ++k) d.key_tokens.push_back("k" + std::to_string(k));
  return d;
}

float& at(AttentionWindowData& d, int phase, std::int64_t q, std::int64_t k) {
  return d.weights[static_cast<std::size_t>(phase)][static_cast<std::size_t>(q * d.keys + k)];
}

}  // namespace

TEST_CASE("max-magnitude pooling keeps a single sharp cell and its sign", "[gui]") {
  std::vector<float> values(200 * 3000, 0.001f);
  values[137 * 3000 + 2222] = 0.9f;
  values[10 * 3000 + 5] = -0.5f;
  const auto pooled = maxMagnitudePool(values, 3000, {0, 200}, {0, 3000}, 20, 30);
  REQUIRE(pooled.size() == 600);
  CHECK(pooled[13 * 30 + 22] == Approx(0.9f));
  CHECK(pooled[1 * 30 + 0] == Approx(-0.5f));
  CHECK(pooled[0] == Approx(0.001f));
  // More pixels than cells: each cell repeats.
  const auto close = maxMagnitudePool(values, 3000, {137, 138}, {2221, 2223}, 2, 4);
  CHECK(close == std::vector<float>{0.001f, 0.001f, 0.9f, 0.9f, 0.001f, 0.001f, 0.9f, 0.9f});
  CHECK(maxMagnitudePool(values, 3000, {0, 0}, {0, 10}, 3, 3) == std::vector<float>(9, 0.f));
  // One row, as the strip draws it: 10000 tokens in 100 columns keep the needle.
  std::vector<float> row(10000, 1e-5f);
  row[4321] = 0.6f;
  const auto columns = maxMagnitudePool(row, 10000, {0, 1}, {0, 10000}, 1, 100);
  CHECK(columns[43] == Approx(0.6f));
  CHECK(columns[0] == Approx(1e-5f));
}

TEST_CASE("the window's zoom and pan stay inside it on both axes", "[gui]") {
  AttentionWindowView view;
  view.setWindow(windowData(256, 2000, 1));
  CHECK(view.visibleQueries() == Span{0, 256});
  CHECK(view.visibleKeys() == Span{0, 2000});
  view.zoom(0.5, 128, 1000);
  CHECK(view.visibleQueries() == Span{64, 192});
  CHECK(view.visibleKeys() == Span{500, 1500});
  view.setVisible({-20, 108}, {1800, 2800});  // panned past the top and the right
  CHECK(view.visibleQueries() == Span{0, 128});
  CHECK(view.visibleKeys() == Span{1000, 2000});
  view.zoom(1e-6, 10, 1990);  // never fewer than 4 cells a side
  CHECK(view.visibleQueries().size() == 4);
  CHECK(view.visibleKeys().size() == 4);
  view.zoom(1e6, 0, 0);  // never more than the window
  CHECK(view.visibleQueries() == Span{0, 256});
  CHECK(view.visibleKeys() == Span{0, 2000});
}

TEST_CASE("the window draws a phase or the difference, linear or log", "[gui]") {
  AttentionWindowData d = windowData(8, 16, 2);
  at(d, 0, 7, 3) = 0.8f;  // before: the last query looks at key 3
  at(d, 1, 7, 12) = 0.8f;  // after qTTT: at key 12
  AttentionWindowView view;
  view.setWindow(d);
  CHECK(view.pixels(16, 8)[7 * 16 + 3] == Approx(0.8f));
  view.setPhase(1);
  CHECK(view.pixels(16, 8)[7 * 16 + 12] == Approx(0.8f));
  view.setDifferenceMode(true);
  REQUIRE(view.differenceMode());
  const std::vector<float> diff = view.pixels(16, 8);
  CHECK(diff[7 * 16 + 3] == Approx(-0.8f + 1e-4f));
  CHECK(diff[7 * 16 + 12] == Approx(0.8f - 1e-4f));
  CHECK(diff[0] == Approx(0.f));
  // Diverging colours: the key it left is blue, the key it found is red, the rest white.
  const std::vector<std::uint32_t> rgba = view.image(16, 8);
  const auto channel = [](std::uint32_t c, int shift) { return (c >> shift) & 0xff; };
  const std::uint32_t left = rgba[7 * 16 + 3], found = rgba[7 * 16 + 12], rest = rgba[0];
  CHECK(channel(left, IM_COL32_B_SHIFT) == 255);
  CHECK(channel(left, IM_COL32_R_SHIFT) < 10);
  CHECK(channel(found, IM_COL32_R_SHIFT) == 255);
  CHECK(channel(found, IM_COL32_B_SHIFT) < 10);
  CHECK(channel(rest, IM_COL32_G_SHIFT) == 255);
  CHECK(channel(rest, IM_COL32_A_SHIFT) == 255);

  // Log scale lifts weights 1e-4 of the top off the bottom of the scale.
  view.setDifferenceMode(false);
  view.setPhase(0);
  const std::uint32_t linear = view.image(16, 8)[0];
  view.setLogScale(true);
  CHECK(view.image(16, 8)[0] != linear);

  // One phase: no difference to draw.
  view.setWindow(windowData(8, 16, 1));
  CHECK_FALSE(view.differenceMode());
  view.setDifferenceMode(true);
  CHECK_FALSE(view.differenceMode());
}

TEST_CASE("a window whose weights or tokens do not fill it is refused", "[gui]") {
  AttentionWindowView view;
  AttentionWindowData bad = windowData(4, 6, 2);
  bad.weights[1].pop_back();
  CHECK_THROWS_WITH(view.setWindow(bad), Catch::Contains("4 queries × 6 keys"));
  bad = windowData(4, 6, 2);
  bad.phase_names.pop_back();
  CHECK_THROWS_AS(view.setWindow(bad), Error);
  bad = windowData(4, 6, 1);
  bad.key_tokens.pop_back();
  CHECK_THROWS_WITH(view.setWindow(bad), Catch::Contains("token text"));
  CHECK(view.empty());
  view.setMessage("computing");
  CHECK(view.empty());
  CHECK(view.message() == "computing");
}

TEST_CASE("the head inspector exports the window's picture and its safetensors beside it",
          "[gui][figure]") {
  HeadInspectorPanel panel;
  AttentionWindowData data = windowData(4, 6, 2);
  at(data, 1, 3, 5) = 0.5f;
  panel.setQueryKeyWindow(data);
  panel.queryKeyWindow().setPhase(1);
  const QString svg = QString::fromStdString(gui_test::tempPath("inspector-window.svg"));
  // The dialog is modal: answer it from its own event loop once it is up.
  bool answered = false;
  QTimer poll;
  QObject::connect(&poll, &QTimer::timeout, [&] {
    auto* dialog = qobject_cast<FigureExportDialog*>(QApplication::activeModalWidget());
    if (!dialog) return;
    dialog->setPath(svg);
    dialog->accept();
    answered = true;
    poll.stop();
  });
  poll.start(10);
  emit panel.queryKeyWindowExportRequested();
  REQUIRE(answered);

  CHECK(QFile::exists(svg));
  QString tensors = svg;
  tensors.chop(4);
  tensors += QStringLiteral(".safetensors");
  QFile file(tensors);
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QByteArray bytes = file.readAll();
  REQUIRE(bytes.size() > 8);
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(bytes[i]);
  const nlohmann::json header =
      nlohmann::json::parse(bytes.mid(8, static_cast<int>(length)).toStdString());
  CHECK(header["attention"]["dtype"] == "F32");
  CHECK(header["attention"]["shape"] == nlohmann::json::array({4, 6}));
  // The phase drawn (after qTTT): its one sharp cell is there, unpooled.
  const auto offset = header["attention"]["data_offsets"][0].get<std::size_t>();
  float last = 0;
  std::memcpy(&last, bytes.constData() + 8 + length + offset + (3 * 6 + 5) * sizeof(float),
              sizeof(float));
  CHECK(last == 0.5f);
  QFile::remove(svg);
  QFile::remove(tensors);
}
