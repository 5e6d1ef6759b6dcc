#pragma once
// The bridge that draws a Dear ImGui panel inside Qt: a QOpenGLWidget that owns its own ImGui
// context (several panels never share one), feeds it Qt's mouse, wheel, key, text, focus, resize
// and device-pixel-ratio events, and renders with ImGui's OpenGL3 backend.
//
// It draws on demand (Tracy redraws only when something changes): an event or a data change asks
// for a frame plus a few follow-up frames at ~60 Hz so ImGui can settle hover and click states,
// then it stops. No timer runs while nothing happens.

#include <QElapsedTimer>
#include <QOpenGLFunctions>
#include <QOpenGLWidget>
#include <QTimer>

#include <imgui.h>

#include <array>
#include <cstdint>
#include <map>
#include <vector>


namespace studio::views {

class ImGuiWidget : public QOpenGLWidget, protected QOpenGLFunctions {
  Q_OBJECT
 public:
  explicit ImGuiWidget(QWidget* parent = nullptr);
  ~ImGuiWidget() override;

  // Whether a window of this process can show an OpenGL widget (probed once). Where it cannot
  // (no GL, or the offscreen platform) a QOpenGLWidget must not be shown: Qt 6.4 crashes
  // composing it. The widget still works for input and buildFrame() without being shown.
  static bool openGlAvailable();

  ImGuiContext* imguiContext() const { return m_context; }
  // Whether an OpenGL context exists and ImGui's renderer runs on it.
  bool glReady() const { return m_gl_ready; }
  // "OpenGL <version> (<renderer>), <GLSL>" once initialised, otherwise why not.
  QString glDescription() const { return m_gl_description; }
  // Frames drawn to the screen so far.
  std::uint64_t frameCount() const { return m_frames; }

  // Asks for a frame now and a few follow-up frames.
  void requestFrame();
  // Runs one ImGui frame (new frame, drawContents, render) without drawing it on screen, so a
  // panel's logic can run where no OpenGL context can be created.
  void buildFrame();

 signals:
  void frameRendered();

 protected:
  // Draws the panel with ImGui calls; the panel's ImGui context is current.
  virtual void drawContents() = 0;
  // An RGBA8 image (width × height, rows top down, IM_COL32 order) in texture `slot` of this
  // panel, for ImGui::Image or AddImage; called from drawContents. Null where no OpenGL context
  // is current (buildFrame without a screen). Textures live until the context goes.
  ImTextureID uploadTexture(int slot, const std::vector<std::uint32_t>& rgba, int width,
                            int height);
  // The context and its textures were destroyed: ids from uploadTexture are no longer valid.
  virtual void texturesReleased() {}

  void initializeGL() override;
  void paintGL() override;
  void resizeGL(int width, int height) override;

  bool event(QEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  void inputMethodEvent(QInputMethodEvent* event) override;
  void focusInEvent(QFocusEvent* event) override;
  void focusOutEvent(QFocusEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  void releaseGl();
  void contextAboutToBeDestroyed();
  void ensureFonts(float device_pixel_ratio);
  void updateKey(QKeyEvent* event, bool down);
  void updateCursor();
  void applyStyle();

  ImGuiContext* m_context = nullptr;
  bool m_gl_ready = false;
  std::map<int, GLuint> m_textures;  // uploadTexture's, by slot
  QString m_gl_description;
  float m_font_dpr = 0.f;  // the ratio the font atlas was built for; 0: not built
  bool m_font_texture_stale = false;
  std::uint64_t m_frames = 0;
  int m_pending_frames = 0;
  QTimer m_follow_up;
  QElapsedTimer m_clock;
  // A press and its release may both arrive before the next frame; ImGui must still see the
  // button down for one frame, or the click is lost.
  std::array<bool, 5> m_down{};
  std::array<bool, 5> m_pressed_since_frame{};
};

}  // namespace studio::views
