#pragma once
// A picture of a whole window, OpenGL panels included. QWidget::grab() leaves a QOpenGLWidget
// blank or stale on some platforms, so each visible QOpenGLWidget's framebuffer is grabbed
// separately and painted over its place.

#include <QImage>

class QWidget;

namespace studio::views {

QImage grabWindowImage(QWidget* window);

}  // namespace studio::views
