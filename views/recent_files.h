#pragma once
// The recently opened documents, repositories, sessions and models, newest first, kept in
// QSettings so that File ▸ Recent files survives a restart.

#include <QList>
#include <QString>

class QSettings;

namespace studio::views {

struct RecentEntry {
  enum class Kind { Document, Repository, Session, Model };
  Kind kind = Kind::Document;
  QString path;
  bool operator==(const RecentEntry& other) const {
    return kind == other.kind && path == other.path;
  }
};

class RecentFiles {
 public:
  static constexpr int kMaxEntries = 10;

  void load(const QSettings& settings);
  void save(QSettings& settings) const;
  // Moves the entry to the front (adding it when new), keeping at most kMaxEntries.
  void add(const RecentEntry& entry);
  void remove(const RecentEntry& entry);
  void clear() { m_entries.clear(); }
  const QList<RecentEntry>& entries() const { return m_entries; }

 private:
  QList<RecentEntry> m_entries;
};

}  // namespace studio::views
