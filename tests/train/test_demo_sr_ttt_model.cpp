// The bundled demo SR-TTT model and its control (resources/models/demo-sr-ttt and
// demo-sr-ttt-backbone; docs/sr-ttt.md "The demo model"): both load as the model their recipes
// describe and pass the leak check; the control is the stage-1 backbone with its gates at 0, and
// stage 2 changed only the cache read and the gates, which it opened.

#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/model/causality_check.h"
#include "core/model/model_loader.h"
#include "support/test_paths.h"

using namespace studio;

namespace {

const std::string kModels = std::string(test_paths::kSourceDir) + "/resources/models/";

std::map<std::string, torch::Tensor> demoWeights(const model::LoadedModel& loaded) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& item : loaded.lm->named_parameters()) out[item.key()] = item.value().detach();
  return out;
}

}  // namespace

TEST_CASE("the demo SR-TTT model is its recipes' two stages, and causal", "[train][demo]") {
  const auto model = model::loadModel(kModels + "demo-sr-ttt");
  const auto control = model::loadModel(kModels + "demo-sr-ttt-backbone");
  std::ifstream recipe_file(std::string(test_paths::kSourceDir) + "/resources/recipes/demo-sr-ttt.json");
  const nlohmann::json recipe = nlohmann::json::parse(recipe_file);
  CHECK(model->config.family == model::ModelFamily::SrTtt);
  CHECK(model->config.num_hidden_layers == recipe["model"]["n_layers"].get<std::int64_t>());
  CHECK(model->config.hidden_size == recipe["model"]["d_model"].get<std::int64_t>());
  CHECK(nlohmann::json::parse(std::ifstream(kModels + "demo-sr-ttt/trainer_state.json"))["step"] ==
        recipe["steps"]);

  const auto trained = demoWeights(*model);
  const auto backbone = demoWeights(*control);
  int gates = 0;
  for (const auto& [name, w] : trained) {
    INFO(name);
    if (name.find("gate_param") != std::string::npos) {
      ++gates;
      CHECK(backbone.at(name).item<double>() == 0.0);  // the control reads as the backbone alone
      CHECK(w.item<double>() > 0.05);                  // opened from alpha_init
    } else if (name.find(".cache_attn.") == std::string::npos) {
      CHECK(torch::equal(w, backbone.at(name)));  // frozen in stage 2
    }
  }
  CHECK(gates == 4);

  torch::NoGradGuard no_grad;
  for (auto* loaded : {model.get(), control.get()}) {
    const model::CausalityReport report = model::checkCausality(*loaded->lm, 160);
    CHECK(report.passed);
    CHECK(report.windows_compared > 0);
  }
}
