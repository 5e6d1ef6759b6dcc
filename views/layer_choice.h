#pragma once
// The layer box of the per-layer panels (fast weights, routing): refilled when the shown run or
// its layers change, keeping the chosen layer when the new run has it.

#include <QString>

#include <vector>

class QComboBox;

namespace studio::views {

// Fills `box` with `layers` (item data: the layer), after a first item "mean" (data −1) when
// `mean_label` is not empty, unless it already lists exactly these; the choice is kept when it is
// still there, else the first item is chosen. No signal is emitted.
void fillLayerChoice(QComboBox* box, const std::vector<int>& layers, const QString& mean_label);

}  // namespace studio::views
