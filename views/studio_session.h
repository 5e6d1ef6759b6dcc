#pragma once
// The session the window records into: every run started in the window is stored, event by
// event, through the same RunRecorder the command line uses (DESIGN.md: "every run is stored").
// There is always one: the one opened (--session, File → Open session), or the day's session in
// the per-user data folder, created at start (docs/sessions.md, "The studio's sessions"). A
// session another process is writing opens read-only: its runs can be viewed, none added.

#include <QObject>
#include <QString>

#include <memory>

namespace studio::sessions {
class SessionStore;
class SessionWriter;
}  // namespace studio::sessions

namespace studio::views {

class StudioSession : public QObject {
  Q_OBJECT
 public:
  explicit StudioSession(QObject* parent = nullptr);
  ~StudioSession() override;  // flushes and closes

  // Opens `path` for writing, creating it when missing; read-only when another live process is
  // writing it (readOnlyReason() says who). Throws studio::Error (Session) naming the file for a
  // file that is refused (not SQLite, another program's, newer, damaged); the session open
  // before stays open then.
  void open(const QString& path);
  // The day's session in defaultFolder(): YYYY-MM-DD.sqlite, or YYYY-MM-DD-2.sqlite, -3, ... when
  // another studio is writing the day's file.
  void openDefault();
  // A new, empty session at `path` (an existing file there is refused: nothing is overwritten).
  void create(const QString& path);
  // Copies the session as it is now to `path` (SQLite's VACUUM INTO) and goes on in the copy.
  void saveAs(const QString& path);

  // $XDG_DATA_HOME/ttt-studio/sessions (~/.local/share/ttt-studio/sessions).
  static QString defaultFolder();

  bool isOpen() const { return m_store != nullptr; }
  QString path() const { return m_path; }
  bool writable() const;
  // Why runs cannot be added ("" when they can).
  QString readOnlyReason() const;

  sessions::SessionStore* store() const { return m_store.get(); }
  // The writer thread; null when the session is read-only.
  sessions::SessionWriter* writer() const { return m_writer.get(); }

 signals:
  // Another session is open (or the same one was reopened).
  void changed();

 private:
  void adopt(std::unique_ptr<sessions::SessionStore> store);

  QString m_path;
  std::unique_ptr<sessions::SessionStore> m_store;
  std::unique_ptr<sessions::SessionWriter> m_writer;
};

}  // namespace studio::views
