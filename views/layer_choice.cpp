#include "views/layer_choice.h"

#include <QComboBox>
#include <QSignalBlocker>

namespace studio::views {

void fillLayerChoice(QComboBox* box, const std::vector<int>& layers, const QString& mean_label) {
  std::vector<int> wanted;
  if (!mean_label.isEmpty()) wanted.push_back(-1);
  wanted.insert(wanted.end(), layers.begin(), layers.end());
  std::vector<int> listed;
  for (int i = 0; i < box->count(); ++i) listed.push_back(box->itemData(i).toInt());
  if (listed == wanted) return;
  const QVariant chosen = box->currentData();
  const QSignalBlocker block(box);
  box->clear();
  if (!mean_label.isEmpty()) box->addItem(mean_label, -1);
  for (int layer : layers) box->addItem(QString::number(layer), layer);
  const int index = chosen.isValid() ? box->findData(chosen) : -1;
  box->setCurrentIndex(index >= 0 ? index : 0);
}

}  // namespace studio::views
