#pragma once
// The model folders shipped with the studio (resources/models: the demo Qwen3 and the demo TTT
// models), which the model picker lists beside "Open model folder…".

#include <QStringList>

namespace studio::views {

// Absolute paths of the folders under `models_dir` (default: the build's resources/models) that
// hold a config.json, sorted by name.
QStringList bundledModelFolders(const QString& models_dir = {});

}  // namespace studio::views
