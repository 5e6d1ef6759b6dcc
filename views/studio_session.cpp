#include "views/studio_session.h"

#include <QDate>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include "core/common/error.h"
#include "sessions/session_store.h"
#include "sessions/session_writer.h"
#include "sessions/sqlite_database.h"

namespace studio::views {

StudioSession::StudioSession(QObject* parent) : QObject(parent) {}

StudioSession::~StudioSession() {
  m_writer.reset();  // flushes what is queued, then joins
  m_store.reset();
}

QString StudioSession::defaultFolder() {
  QString data = qEnvironmentVariable("XDG_DATA_HOME");
  if (data.isEmpty()) {
    data = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
  }
  return QDir(data).filePath(QStringLiteral("ttt-studio/sessions"));
}

void StudioSession::adopt(std::unique_ptr<sessions::SessionStore> store) {
  // The old writer finishes before its store closes; the new store is ready first, so a refused
  // file leaves the old session open.
  m_writer.reset();
  m_store = std::move(store);
  m_path = QString::fromStdString(m_store->path());
  if (!m_store->readOnly()) m_writer = std::make_unique<sessions::SessionWriter>(*m_store);
  emit changed();
}

void StudioSession::open(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  adopt(std::make_unique<sessions::SessionStore>(absolute.toStdString()));
}

void StudioSession::openDefault() {
  const QDir folder(defaultFolder());
  if (!folder.mkpath(QStringLiteral("."))) {
    throwError(ErrorKind::Io, folder.path().toStdString(), "", "cannot create the folder");
  }
  const QString day = QDate::currentDate().toString(Qt::ISODate);
  for (int n = 1;; ++n) {
    const QString name = n == 1 ? day + QStringLiteral(".sqlite")
                                : QStringLiteral("%1-%2.sqlite").arg(day).arg(n);
    auto store = std::make_unique<sessions::SessionStore>(folder.filePath(name).toStdString());
    if (!store->lockedByAnotherWriter() || n >= 100) {
      adopt(std::move(store));
      return;
    }
  }
}

void StudioSession::create(const QString& path) {
  if (QFileInfo::exists(path)) {
    throwError(ErrorKind::Session, path.toStdString(), "",
               "already exists; a new session is a new file (open it to add to it)");
  }
  open(path);
}

void StudioSession::saveAs(const QString& path) {
  if (!m_store) throwError(ErrorKind::Session, path.toStdString(), "", "no session is open");
  const QString target = QFileInfo(path).absoluteFilePath();
  if (QFileInfo::exists(target)) {
    throwError(ErrorKind::Session, target.toStdString(), "",
               "already exists; choose a new file name");
  }
  if (m_writer) m_writer->flush();
  m_store->withDatabase([&](sessions::SqliteDatabase& db) {
    sessions::SqliteStatement copy(db, "VACUUM INTO ?");
    copy.bind(0, target.toStdString());
    copy.run();
    return 0;
  });
  open(target);
}

bool StudioSession::writable() const { return m_store && !m_store->readOnly(); }

QString StudioSession::readOnlyReason() const {
  if (!m_store) return tr("no session is open");
  if (!m_store->readOnly()) return {};
  if (m_store->lockedByAnotherWriter()) {
    return tr("read-only: another process (pid %1) is writing it").arg(m_store->otherWriterPid());
  }
  return tr("read-only");
}

}  // namespace studio::views
