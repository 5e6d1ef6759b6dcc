#include <catch2/catch.hpp>

#include <QSettings>
#include <QTemporaryDir>

#include "views/recent_files.h"

using namespace studio::views;

TEST_CASE("recent files keep the newest first, without duplicates, at most ten", "[gui]") {
  RecentFiles recent;
  recent.add({RecentEntry::Kind::Document, QStringLiteral("/a.txt")});
  recent.add({RecentEntry::Kind::Repository, QStringLiteral("/repo")});
  recent.add({RecentEntry::Kind::Document, QStringLiteral("/a.txt")});
  REQUIRE(recent.entries().size() == 2);
  CHECK(recent.entries()[0].path == QStringLiteral("/a.txt"));
  // The same path as another kind is another entry.
  recent.add({RecentEntry::Kind::Repository, QStringLiteral("/a.txt")});
  CHECK(recent.entries().size() == 3);
  for (int i = 0; i < 20; ++i) {
    recent.add({RecentEntry::Kind::Session, QStringLiteral("/s%1.sqlite").arg(i)});
  }
  CHECK(recent.entries().size() == RecentFiles::kMaxEntries);
  CHECK(recent.entries()[0].path == QStringLiteral("/s19.sqlite"));
  recent.remove(recent.entries()[0]);
  CHECK(recent.entries()[0].path == QStringLiteral("/s18.sqlite"));
}

TEST_CASE("recent files round-trip through QSettings and skip unknown entries", "[gui]") {
  QTemporaryDir temp;
  const QString file = temp.filePath(QStringLiteral("settings.ini"));
  {
    QSettings settings(file, QSettings::IniFormat);
    RecentFiles recent;
    recent.add({RecentEntry::Kind::Model, QStringLiteral("/models/qwen")});
    recent.add({RecentEntry::Kind::Document, QStringLiteral("/docs/a: b.txt")});
    recent.save(settings);
  }
  {
    QSettings settings(file, QSettings::IniFormat);
    RecentFiles recent;
    recent.load(settings);
    REQUIRE(recent.entries().size() == 2);
    CHECK(recent.entries()[0].kind == RecentEntry::Kind::Document);
    CHECK(recent.entries()[0].path == QStringLiteral("/docs/a: b.txt"));
    CHECK(recent.entries()[1].kind == RecentEntry::Kind::Model);
  }
  {
    QSettings settings(file, QSettings::IniFormat);
    settings.setValue(QStringLiteral("recent/entries"),
                      QStringList{QStringLiteral("bogus:/x"), QStringLiteral("noseparator"),
                                  QStringLiteral("session:/ok.sqlite")});
    RecentFiles recent;
    recent.load(settings);
    REQUIRE(recent.entries().size() == 1);
    CHECK(recent.entries()[0].path == QStringLiteral("/ok.sqlite"));
  }
}
