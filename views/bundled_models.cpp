#include "views/bundled_models.h"

#include <QDir>
#include <QFileInfo>

#include "studio/build_info.h"

namespace studio::views {

QStringList bundledModelFolders(const QString& models_dir) {
  const QDir dir(models_dir.isEmpty() ? QStringLiteral(STUDIO_RESOURCES_DIR "/models") : models_dir);
  QStringList folders;
  for (const QFileInfo& entry : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
    if (QFileInfo::exists(entry.absoluteFilePath() + QStringLiteral("/config.json"))) {
      folders << entry.absoluteFilePath();
    }
  }
  return folders;
}

}  // namespace studio::views
