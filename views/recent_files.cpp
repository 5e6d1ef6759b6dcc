#include "views/recent_files.h"

#include <QSettings>
#include <QStringList>

namespace studio::views {

namespace {

const char* kKey = "recent/entries";

QString kindName(RecentEntry::Kind kind) {
  switch (kind) {
    case RecentEntry::Kind::Document:
      return QStringLiteral("document");
    case RecentEntry::Kind::Repository:
      return QStringLiteral("repository");
    case RecentEntry::Kind::Session:
      return QStringLiteral("session");
    case RecentEntry::Kind::Model:
      return QStringLiteral("model");
  }
  return QStringLiteral("document");
}

bool kindFromName(const QString& name, RecentEntry::Kind& kind) {
  for (auto candidate : {RecentEntry::Kind::Document, RecentEntry::Kind::Repository,
                         RecentEntry::Kind::Session, RecentEntry::Kind::Model}) {
    if (kindName(candidate) == name) {
      kind = candidate;
      return true;
    }
  }
  return false;
}

}  // namespace

void RecentFiles::load(const QSettings& settings) {
  m_entries.clear();
  // Stored as "kind:path"; entries this version does not understand are dropped.
  for (const QString& item : settings.value(QLatin1String(kKey)).toStringList()) {
    const qsizetype colon = item.indexOf(QLatin1Char(':'));
    RecentEntry entry;
    if (colon <= 0 || !kindFromName(item.left(colon), entry.kind)) continue;
    entry.path = item.mid(colon + 1);
    if (!entry.path.isEmpty() && !m_entries.contains(entry) && m_entries.size() < kMaxEntries) {
      m_entries.append(entry);
    }
  }
}

void RecentFiles::save(QSettings& settings) const {
  QStringList items;
  for (const RecentEntry& entry : m_entries)
    items << kindName(entry.kind) + QLatin1Char(':') + entry.path;
  settings.setValue(QLatin1String(kKey), items);
}

void RecentFiles::add(const RecentEntry& entry) {
  m_entries.removeAll(entry);
  m_entries.prepend(entry);
  while (m_entries.size() > kMaxEntries) m_entries.removeLast();
}

void RecentFiles::remove(const RecentEntry& entry) {
  m_entries.removeAll(entry);
}

}  // namespace studio::views
