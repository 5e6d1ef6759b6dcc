// The leak check the studio runs on every model it opens (views/causality_status.h): computed once
// per fingerprint of the config and weights and then read from the cache file, shown in the
// status bar, in red when the model reads the future.

#include <catch2/catch.hpp>

#include <QDir>
#include <QLabel>
#include <QStatusBar>
#include <QTemporaryDir>

#include <fstream>
#include <nlohmann/json.hpp>

#include "gui/gui_test_support.h"
#include "core/common/file_fingerprint.h"
#include "core/engine/causality_verdict.h"
#include "support/tiny_model_folder.h"
#include "views/main_window.h"

using namespace studio;
using namespace studio::views;

namespace {

// The status bar's model label.
QLabel* modelLabel(MainWindow& window) {
  for (QLabel* label : window.statusBar()->findChildren<QLabel*>()) {
    if (label->text().startsWith(QStringLiteral("model: "))) return label;
  }
  return nullptr;
}

std::string fingerprintOf(const std::string& dir) {
  return filesFingerprint({dir + "/config.json", dir + "/model.safetensors"});
}

}  // namespace

TEST_CASE("the leak check runs once per model fingerprint and is then read from the cache",
          "[gui]") {
  QTemporaryDir temp;
  const QString cache = temp.filePath(QStringLiteral("causality.json"));
  for (const auto kind : {test::TinyModelFolder::Ttt::SrTtt, test::TinyModelFolder::Ttt::Linear}) {
    const test::TinyModelFolder model(kind, "causality");
    const engine::CausalityVerdict first = engine::checkModelCausality(model.path(), cache.toStdString());
    INFO(first.detail);
    CHECK(first.state == engine::CausalityVerdict::State::Passed);
    CHECK_FALSE(first.cached);
    CHECK_THAT(first.detail, Catch::Contains("bit-identical"));
    const engine::CausalityVerdict second = engine::checkModelCausality(model.path(), cache.toStdString());
    CHECK(second.state == engine::CausalityVerdict::State::Passed);
    CHECK(second.cached);
    const nlohmann::json stored = nlohmann::json::parse(std::ifstream(cache.toStdString()));
    CHECK(stored.at(fingerprintOf(model.path())).at("state") == "passed");
  }
  // No weights: nothing to check, said so.
  QDir(temp.path()).mkpath(QStringLiteral("empty"));
  const engine::CausalityVerdict none = engine::checkModelCausality(
      temp.filePath(QStringLiteral("empty")).toStdString(), cache.toStdString());
  CHECK(none.state == engine::CausalityVerdict::State::NotChecked);
  CHECK_THAT(none.detail, Catch::Contains("safetensors"));
  // Too large for the studio to load a second time: not checked, and the command named.
  const test::TinyModelFolder big(test::TinyModelFolder::Ttt::Linear, "big");
  const engine::CausalityVerdict skipped =
      engine::checkModelCausality(big.path(), cache.toStdString(), 16);
  CHECK(skipped.state == engine::CausalityVerdict::State::NotChecked);
  CHECK_THAT(skipped.detail, Catch::Contains("studio-cli check-causality"));
}

TEST_CASE("the status bar shows the verdict of the model opened, a leaking one in red", "[gui]") {
  QTemporaryDir temp;
  const QString cache = temp.filePath(QStringLiteral("causality.json"));
  const test::TinyModelFolder leaky(test::TinyModelFolder::Ttt::SrTtt, "leaky", 11);
  // A verdict the cache holds for these exact weights is what the studio shows (a model that
  // leaks is checked once, the same way: studio-cli check-causality's test has the leaky toy).
  std::ofstream(cache.toStdString())
      << nlohmann::json{{fingerprintOf(leaky.path()),
                         {{"state", "failed"}, {"detail", "position 7's logits changed"}}}}
             .dump();
  MainWindowOptions options = testing::isolatedWindow();
  options.check_causality = true;
  options.causality_cache = cache;
  MainWindow window(options);
  REQUIRE(window.setModelPath(QString::fromStdString(leaky.path())));
  QLabel* label = modelLabel(window);
  REQUIRE(label);
  CHECK(label->text().contains(QStringLiteral("checking causality")));
  REQUIRE(testing::waitUntil([&] { return label->text().contains(QStringLiteral("LEAKS")); }));
  CHECK(label->styleSheet().contains(QStringLiteral("color")));
  CHECK(label->toolTip().contains(QStringLiteral("position 7's logits changed")));
  CHECK(label->toolTip().contains(QStringLiteral("cached")));

  // Another model: checked now, passed, no longer red.
  const test::TinyModelFolder sound(test::TinyModelFolder::Ttt::SrTtt, "sound", 12);
  REQUIRE(window.setModelPath(QString::fromStdString(sound.path())));
  REQUIRE(testing::waitUntil([&] { return label->text().contains(QStringLiteral("causal ✓")); },
                             60000));
  CHECK(label->styleSheet().isEmpty());
}
