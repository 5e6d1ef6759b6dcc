#pragma once
// Loads documents off the UI thread: every load is a job of the tag "document" (job_tracker.h), a
// newer load cancels the one before, and a result whose job is not the current one is dropped, so
// a slow stale load can never replace what the person opened last.
//
// A `.json` text file that holds a task item (an object with "context" and "question", as
// `studio-cli task generate --json` prints it) opens as that item: the document is its context,
// and the item (question, task description, targets, answers) comes with it.

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <memory>

#include "core/document/document.h"
#include "core/task/task.h"
#include "views/job_tracker.h"

namespace studio::views {

using DocumentPtr = std::shared_ptr<const document::Document>;
using TaskItemPtr = std::shared_ptr<const task::TaskItem>;

class DocumentLoader : public QObject {
  Q_OBJECT
 public:
  enum class Source { TextFile, Repository };

  explicit DocumentLoader(QObject* parent = nullptr);
  ~DocumentLoader() override;

  // Starts loading and returns at once with the job's id (never 0).
  quint64 load(const QString& path, Source source);
  void cancel();
  // The job whose result will be delivered, 0 when none is running.
  quint64 currentJob() const { return m_jobs.current(kTag); }
  bool busy() const { return currentJob() != 0; }

 signals:
  void progress(quint64 job, double fraction);
  // `item` is null unless the file was a task item.
  void loaded(quint64 job, studio::views::DocumentPtr document, studio::views::TaskItemPtr item);
  void failed(quint64 job, const QString& message);

 private:
  struct Outcome {
    DocumentPtr document;
    TaskItemPtr item;
    QString error;
  };
  void finish(quint64 job, QFutureWatcher<Outcome>* watcher);

  static constexpr const char* kTag = "document";
  JobTracker m_jobs;
  QFutureWatcher<Outcome>* m_watcher = nullptr;
};

}  // namespace studio::views

Q_DECLARE_METATYPE(studio::views::DocumentPtr)
Q_DECLARE_METATYPE(studio::views::TaskItemPtr)
