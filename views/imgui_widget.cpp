#include "views/imgui_widget.h"

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <QFocusEvent>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QInputMethodEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QWheelEvent>

#include <algorithm>
#include <cfloat>

#include "views/imgui_font.h"

namespace studio::views {

namespace {

constexpr int kFollowUpFrames = 3;
constexpr int kFollowUpMs = 16;

// Indices into io.KeysDown[512]: printable ASCII keys use their Qt code (Qt::Key_A == 'A'), the
// keys ImGui needs by role get fixed slots above 255.
enum SpecialKey {
  kTab = 256,
  kLeft,
  kRight,
  kUp,
  kDown,
  kPageUp,
  kPageDown,
  kHome,
  kEnd,
  kInsert,
  kDelete,
  kBackspace,
  kReturn,
  kEnter,
  kEscape
};

int keyIndex(int key) {
  if (key >= Qt::Key_Space && key <= Qt::Key_AsciiTilde) return key;
  switch (key) {
    case Qt::Key_Tab:
    case Qt::Key_Backtab:
      return kTab;
    case Qt::Key_Left:
      return kLeft;
    case Qt::Key_Right:
      return kRight;
    case Qt::Key_Up:
      return kUp;
    case Qt::Key_Down:
      return kDown;
    case Qt::Key_PageUp:
      return kPageUp;
    case Qt::Key_PageDown:
      return kPageDown;
    case Qt::Key_Home:
      return kHome;
    case Qt::Key_End:
      return kEnd;
    case Qt::Key_Insert:
      return kInsert;
    case Qt::Key_Delete:
      return kDelete;
    case Qt::Key_Backspace:
      return kBackspace;
    case Qt::Key_Return:
      return kReturn;
    case Qt::Key_Enter:
      return kEnter;
    case Qt::Key_Escape:
      return kEscape;
    default:
      return -1;
  }
}

int mouseButton(Qt::MouseButton button) {
  switch (button) {
    case Qt::LeftButton:
      return 0;
    case Qt::RightButton:
      return 1;
    case Qt::MiddleButton:
      return 2;
    case Qt::BackButton:
      return 3;
    case Qt::ForwardButton:
      return 4;
    default:
      return -1;
  }
}

// Every entry point makes its own context current and puts the previous one back, so panels and
// nested calls never draw into each other.
class ContextScope {
 public:
  explicit ContextScope(ImGuiContext* context) : m_previous(ImGui::GetCurrentContext()) {
    ImGui::SetCurrentContext(context);
  }
  ~ContextScope() { ImGui::SetCurrentContext(m_previous); }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  ImGuiContext* m_previous;
};

ImVec4 toImVec4(const QColor& c) {
  return ImVec4(static_cast<float>(c.redF()), static_cast<float>(c.greenF()),
                static_cast<float>(c.blueF()), static_cast<float>(c.alphaF()));
}

}  // namespace

bool ImGuiWidget::openGlAvailable() {
  static const bool available = [] {
    // The offscreen and minimal platforms can make a context (offscreen does with a DISPLAY), but
    // their windows cannot compose a QOpenGLWidget: Qt 6.4 crashes in the backing store's flush.
    const QString platform = QGuiApplication::platformName();
    if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal"))
      return false;
    QOpenGLContext context;
    if (!context.create()) return false;
    QOffscreenSurface surface;
    surface.setFormat(context.format());
    surface.create();
    if (!surface.isValid()) return false;
    const bool current = context.makeCurrent(&surface);
    if (current) context.doneCurrent();
    return current;
  }();
  return available;
}

ImGuiWidget::ImGuiWidget(QWidget* parent) : QOpenGLWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_InputMethodEnabled);
  setMinimumSize(120, 80);

  ImGuiContext* previous = ImGui::GetCurrentContext();
  m_context = ImGui::CreateContext();
  ImGui::SetCurrentContext(m_context);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the Qt layout is saved by QSettings; panels keep no ini files
  io.LogFilename = nullptr;
  io.BackendPlatformName = "studio_qt";
  io.BackendFlags |= ImGuiBackendFlags_HasMouseCursors;
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  io.KeyMap[ImGuiKey_Tab] = kTab;
  io.KeyMap[ImGuiKey_LeftArrow] = kLeft;
  io.KeyMap[ImGuiKey_RightArrow] = kRight;
  io.KeyMap[ImGuiKey_UpArrow] = kUp;
  io.KeyMap[ImGuiKey_DownArrow] = kDown;
  io.KeyMap[ImGuiKey_PageUp] = kPageUp;
  io.KeyMap[ImGuiKey_PageDown] = kPageDown;
  io.KeyMap[ImGuiKey_Home] = kHome;
  io.KeyMap[ImGuiKey_End] = kEnd;
  io.KeyMap[ImGuiKey_Insert] = kInsert;
  io.KeyMap[ImGuiKey_Delete] = kDelete;
  io.KeyMap[ImGuiKey_Backspace] = kBackspace;
  io.KeyMap[ImGuiKey_Space] = Qt::Key_Space;
  io.KeyMap[ImGuiKey_Enter] = kReturn;
  io.KeyMap[ImGuiKey_Escape] = kEscape;
  io.KeyMap[ImGuiKey_KeyPadEnter] = kEnter;
  io.KeyMap[ImGuiKey_A] = Qt::Key_A;
  io.KeyMap[ImGuiKey_C] = Qt::Key_C;
  io.KeyMap[ImGuiKey_V] = Qt::Key_V;
  io.KeyMap[ImGuiKey_X] = Qt::Key_X;
  io.KeyMap[ImGuiKey_Y] = Qt::Key_Y;
  io.KeyMap[ImGuiKey_Z] = Qt::Key_Z;
  io.DisplaySize = ImVec2(static_cast<float>(width()), static_cast<float>(height()));
  applyStyle();
  ImGui::SetCurrentContext(previous);

  m_follow_up.setSingleShot(true);
  m_follow_up.setInterval(kFollowUpMs);
  connect(&m_follow_up, &QTimer::timeout, this, qOverload<>(&QWidget::update));
  m_clock.start();
}

ImGuiWidget::~ImGuiWidget() {
  // ~QOpenGLWidget destroys the context after this destructor has run: its aboutToBeDestroyed
  // must not call back into the ImGuiWidget that no longer exists (UBSan: a downcast of a
  // QOpenGLWidget). The renderer's objects are freed here instead.
  if (QOpenGLContext* gl = context()) {
    disconnect(gl, &QOpenGLContext::aboutToBeDestroyed, this,
               &ImGuiWidget::contextAboutToBeDestroyed);
  }
  if (m_gl_ready) {
    makeCurrent();
    releaseGl();
    doneCurrent();
  }
  ImGuiContext* previous = ImGui::GetCurrentContext();
  ImGui::DestroyContext(m_context);
  if (previous != m_context) ImGui::SetCurrentContext(previous);
}

void ImGuiWidget::applyStyle() {
  // Light ImGui colours tuned to the Qt palette, so the panel reads as part of the window.
  ImGui::StyleColorsLight();
  ImGuiStyle& style = ImGui::GetStyle();
  const QPalette pal = palette();
  style.Colors[ImGuiCol_WindowBg] = toImVec4(pal.color(QPalette::Window));
  style.Colors[ImGuiCol_ChildBg] = toImVec4(pal.color(QPalette::Base));
  style.Colors[ImGuiCol_Text] = toImVec4(pal.color(QPalette::WindowText));
  style.Colors[ImGuiCol_PopupBg] = toImVec4(pal.color(QPalette::ToolTipBase));
  style.WindowRounding = 0.f;
  style.WindowBorderSize = 0.f;
  style.FrameRounding = 3.f;
  style.WindowPadding = ImVec2(8, 8);
}

void ImGuiWidget::requestFrame() {
  m_pending_frames = kFollowUpFrames;
  update();
}

void ImGuiWidget::ensureFonts(float device_pixel_ratio) {
  ImGuiIO& io = ImGui::GetIO();
  if (m_font_dpr == device_pixel_ratio && io.Fonts->IsBuilt()) return;
  // ImGui sizes a font by its ascent-to-descent height, Qt by its em: match the heights so the
  // panel's text is as large as the rest of the window's.
  const QFontMetricsF metrics(font());
  const float pixel_size = static_cast<float>(metrics.ascent() + metrics.descent());
  buildImGuiFonts(*io.Fonts, pixel_size > 0 ? pixel_size : 13.f, device_pixel_ratio);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  io.FontGlobalScale = 1.f / device_pixel_ratio;
  m_font_dpr = device_pixel_ratio;
  m_font_texture_stale = true;
}

void ImGuiWidget::buildFrame() {
  ContextScope scope(m_context);
  ImGuiIO& io = ImGui::GetIO();
  const float dpr = static_cast<float>(devicePixelRatioF());
  ensureFonts(dpr);
  io.DisplaySize = ImVec2(static_cast<float>(width()), static_cast<float>(height()));
  io.DisplayFramebufferScale = ImVec2(dpr, dpr);
  const double elapsed = static_cast<double>(m_clock.nsecsElapsed()) * 1e-9;
  m_clock.restart();
  io.DeltaTime = static_cast<float>(std::max(elapsed, 1e-4));
  for (std::size_t b = 0; b < m_down.size(); ++b)
    io.MouseDown[b] = m_down[b] || m_pressed_since_frame[b];
  ImGui::NewFrame();
  m_pressed_since_frame.fill(false);
  drawContents();
  ImGui::Render();
}

void ImGuiWidget::initializeGL() {
  initializeOpenGLFunctions();
  ContextScope scope(m_context);
  if (m_gl_ready) releaseGl();
  QOpenGLContext* gl = context();
  const QSurfaceFormat format = gl->format();
  const char* glsl = "#version 130";
  if (gl->isOpenGLES()) {
    glsl = format.majorVersion() >= 3 ? "#version 300 es" : "#version 100";
  } else if (format.profile() == QSurfaceFormat::CoreProfile &&
             format.version() >= qMakePair(3, 2)) {
    glsl = "#version 150";
  } else if (format.majorVersion() < 3) {
    glsl = "#version 120";
  }
  const auto* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  m_gl_description =
      QStringLiteral("OpenGL %1 (%2), GLSL %3")
          .arg(QString::fromLatin1(version ? version : "?"),
               QString::fromLatin1(renderer ? renderer : "?"), QString::fromLatin1(glsl + 9));
  m_gl_ready = ImGui_ImplOpenGL3_Init(glsl);
  if (!m_gl_ready) {
    m_gl_description = tr("ImGui's OpenGL3 renderer could not start on %1").arg(m_gl_description);
    qWarning("%s", qPrintable(m_gl_description));
  }
  m_font_texture_stale = true;
  // Docking a panel out or back re-creates the context: free the renderer's objects with it.
  connect(gl, &QOpenGLContext::aboutToBeDestroyed, this, &ImGuiWidget::contextAboutToBeDestroyed,
          Qt::UniqueConnection);
}

void ImGuiWidget::contextAboutToBeDestroyed() {
  if (!m_gl_ready) return;
  makeCurrent();
  releaseGl();
  doneCurrent();
}

ImTextureID ImGuiWidget::uploadTexture(int slot, const std::vector<std::uint32_t>& rgba,
                                       int width, int height) {
  if (!m_gl_ready || QOpenGLContext::currentContext() != context() || width <= 0 || height <= 0 ||
      rgba.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height)) {
    return nullptr;
  }
  GLuint& texture = m_textures[slot];
  if (texture == 0) glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  // Nearest: a cell is a block of pixels, never a blur between two weights.
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  return reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(texture));
}

void ImGuiWidget::releaseGl() {
  for (auto& [slot, texture] : m_textures) glDeleteTextures(1, &texture);
  m_textures.clear();
  texturesReleased();
  ContextScope scope(m_context);
  ImGui_ImplOpenGL3_Shutdown();
  m_gl_ready = false;
}

void ImGuiWidget::resizeGL(int, int) {
  requestFrame();
}

void ImGuiWidget::paintGL() {
  const QColor background = palette().color(QPalette::Window);
  glClearColor(static_cast<float>(background.redF()), static_cast<float>(background.greenF()),
               static_cast<float>(background.blueF()), 1.f);
  glClear(GL_COLOR_BUFFER_BIT);
  if (!m_gl_ready) return;

  ContextScope scope(m_context);
  const float dpr = static_cast<float>(devicePixelRatioF());
  ensureFonts(dpr);
  // The first NewFrame creates the renderer's objects, font texture included; later a changed
  // device pixel ratio (a move to another screen) re-uploads the atlas.
  ImGui_ImplOpenGL3_NewFrame();
  if (m_font_texture_stale) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    m_font_texture_stale = false;
  }
  buildFrame();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

  ++m_frames;
  updateCursor();
  ImGuiIO& io = ImGui::GetIO();
  if (m_pending_frames > 0) {
    --m_pending_frames;
    m_follow_up.start(kFollowUpMs);
  } else if (io.WantTextInput && hasFocus()) {
    m_follow_up.start(500);  // a text field's caret blinks; nothing else animates
  }
  emit frameRendered();
}

void ImGuiWidget::updateCursor() {
  switch (ImGui::GetMouseCursor()) {
    case ImGuiMouseCursor_TextInput:
      setCursor(Qt::IBeamCursor);
      break;
    case ImGuiMouseCursor_ResizeAll:
      setCursor(Qt::SizeAllCursor);
      break;
    case ImGuiMouseCursor_ResizeNS:
      setCursor(Qt::SizeVerCursor);
      break;
    case ImGuiMouseCursor_ResizeEW:
      setCursor(Qt::SizeHorCursor);
      break;
    case ImGuiMouseCursor_ResizeNESW:
      setCursor(Qt::SizeBDiagCursor);
      break;
    case ImGuiMouseCursor_ResizeNWSE:
      setCursor(Qt::SizeFDiagCursor);
      break;
    case ImGuiMouseCursor_Hand:
      setCursor(Qt::PointingHandCursor);
      break;
    case ImGuiMouseCursor_NotAllowed:
      setCursor(Qt::ForbiddenCursor);
      break;
    default:
      unsetCursor();
      break;
  }
}

bool ImGuiWidget::event(QEvent* event) {
  // Tab belongs to ImGui's keyboard navigation while it has the keyboard, not to Qt's focus chain.
  if (event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Tab || key->key() == Qt::Key_Backtab) {
      ContextScope scope(m_context);
      if (ImGui::GetIO().WantCaptureKeyboard) {
        keyPressEvent(key);
        return true;
      }
    }
  }
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
    ContextScope scope(m_context);
    applyStyle();
    requestFrame();
  }
  if (event->type() == QEvent::FontChange) {
    m_font_dpr = 0.f;  // rebuild the atlas at the new size
    requestFrame();
  }
  return QOpenGLWidget::event(event);
}

void ImGuiWidget::mouseMoveEvent(QMouseEvent* event) {
  ContextScope scope(m_context);
  const QPointF pos = event->position();
  ImGui::GetIO().MousePos = ImVec2(static_cast<float>(pos.x()), static_cast<float>(pos.y()));
  requestFrame();
}

void ImGuiWidget::mousePressEvent(QMouseEvent* event) {
  const int b = mouseButton(event->button());
  if (b < 0) return;
  ContextScope scope(m_context);
  ImGuiIO& io = ImGui::GetIO();
  const QPointF pos = event->position();
  io.MousePos = ImVec2(static_cast<float>(pos.x()), static_cast<float>(pos.y()));
  m_down[static_cast<std::size_t>(b)] = true;
  m_pressed_since_frame[static_cast<std::size_t>(b)] = true;
  io.MouseDown[b] = true;
  requestFrame();
}

void ImGuiWidget::mouseReleaseEvent(QMouseEvent* event) {
  const int b = mouseButton(event->button());
  if (b < 0) return;
  ContextScope scope(m_context);
  m_down[static_cast<std::size_t>(b)] = false;
  ImGui::GetIO().MouseDown[b] = m_pressed_since_frame[static_cast<std::size_t>(b)];
  requestFrame();
}

void ImGuiWidget::mouseDoubleClickEvent(QMouseEvent* event) {
  // Qt reports the second press of a double click as its own event; ImGui derives double clicks
  // from press timing, so this is just a press.
  mousePressEvent(event);
}

void ImGuiWidget::wheelEvent(QWheelEvent* event) {
  ContextScope scope(m_context);
  ImGuiIO& io = ImGui::GetIO();
  // One notch (120 eighths of a degree) is one ImGui wheel unit.
  io.MouseWheel += static_cast<float>(event->angleDelta().y()) / 120.f;
  io.MouseWheelH += static_cast<float>(event->angleDelta().x()) / 120.f;
  const QPointF pos = event->position();
  io.MousePos = ImVec2(static_cast<float>(pos.x()), static_cast<float>(pos.y()));
  event->accept();
  requestFrame();
}

void ImGuiWidget::updateKey(QKeyEvent* event, bool down) {
  ContextScope scope(m_context);
  ImGuiIO& io = ImGui::GetIO();
  const Qt::KeyboardModifiers mods = event->modifiers();
  io.KeyCtrl = mods & Qt::ControlModifier;
  io.KeyShift = mods & Qt::ShiftModifier;
  io.KeyAlt = mods & Qt::AltModifier;
  io.KeySuper = mods & Qt::MetaModifier;
  const int index = keyIndex(event->key());
  if (index >= 0) io.KeysDown[index] = down;
  if (down && !io.KeyCtrl) {
    for (const QChar c : event->text()) {
      if (c.unicode() >= 0x20 && c.unicode() != 0x7F) io.AddInputCharacterUTF16(c.unicode());
    }
  }
  // Keys ImGui does not want (no focused widget) go on to Qt: shortcuts keep working.
  event->setAccepted(io.WantCaptureKeyboard || io.WantTextInput);
  requestFrame();
}

void ImGuiWidget::keyPressEvent(QKeyEvent* event) {
  updateKey(event, true);
}

void ImGuiWidget::keyReleaseEvent(QKeyEvent* event) {
  updateKey(event, false);
}

void ImGuiWidget::inputMethodEvent(QInputMethodEvent* event) {
  ContextScope scope(m_context);
  const QByteArray text = event->commitString().toUtf8();
  if (!text.isEmpty()) ImGui::GetIO().AddInputCharactersUTF8(text.constData());
  event->accept();
  requestFrame();
}

void ImGuiWidget::focusInEvent(QFocusEvent* event) {
  ContextScope scope(m_context);
  ImGui::GetIO().AddFocusEvent(true);
  requestFrame();
  QOpenGLWidget::focusInEvent(event);
}

void ImGuiWidget::focusOutEvent(QFocusEvent* event) {
  ContextScope scope(m_context);
  ImGui::GetIO().AddFocusEvent(false);
  m_down.fill(false);
  requestFrame();
  QOpenGLWidget::focusOutEvent(event);
}

void ImGuiWidget::leaveEvent(QEvent* event) {
  ContextScope scope(m_context);
  ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  requestFrame();
  QOpenGLWidget::leaveEvent(event);
}

}  // namespace studio::views
