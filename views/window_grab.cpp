#include "views/window_grab.h"

#include <QOpenGLWidget>
#include <QPainter>
#include <QPixmap>
#include <QWidget>

namespace studio::views {

QImage grabWindowImage(QWidget* window) {
  QImage image = window->grab().toImage();
  QPainter painter(&image);
  for (QOpenGLWidget* gl : window->findChildren<QOpenGLWidget*>()) {
    if (!gl->isVisible() || !gl->isValid() || gl->window() != window) continue;
    const QImage framebuffer = gl->grabFramebuffer();
    if (framebuffer.isNull()) continue;
    const QRect target(gl->mapTo(window, QPoint(0, 0)), gl->size());
    painter.drawImage(target, framebuffer);
  }
  return image;
}

}  // namespace studio::views
