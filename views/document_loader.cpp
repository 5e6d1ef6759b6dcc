#include "views/document_loader.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include "core/common/error.h"
#include "core/document/repository_loader.h"
#include "core/document/text_loader.h"

#include <nlohmann/json.hpp>

namespace studio::views {

namespace {

constexpr int kProgressSteps = 1000;

// The task item a loaded `.json` document holds, or null when it holds none (any other JSON, or
// not JSON at all, is just text). A file that is an item but a broken one throws, naming the field.
TaskItemPtr taskItemOf(const std::string& path, const document::Document& document) {
  if (QString::fromStdString(path).endsWith(QLatin1String(".json"), Qt::CaseInsensitive) == false) {
    return nullptr;
  }
  const nlohmann::json json = nlohmann::json::parse(document.text(), nullptr, /*throw=*/false);
  if (!json.is_object() || !json.contains("context") || !json.contains("question")) return nullptr;
  return std::make_shared<const task::TaskItem>(task::TaskItem::fromJson(json, path));
}

}  // namespace

DocumentLoader::DocumentLoader(QObject* parent) : QObject(parent) {
  qRegisterMetaType<DocumentPtr>();
  qRegisterMetaType<TaskItemPtr>();
}

DocumentLoader::~DocumentLoader() {
  cancel();
}

quint64 DocumentLoader::load(const QString& path, Source source) {
  cancel();
  const quint64 job = m_jobs.start(kTag);

  const std::string file = path.toStdString();
  QFuture<Outcome> future = QtConcurrent::run([file, source](QPromise<Outcome>& promise) {
    promise.setProgressRange(0, kProgressSteps);
    // Checked between chunks: a cancelled load stops within one chunk, not at the end.
    document::LoadProgress report = [&promise](std::uint64_t done, std::uint64_t total) {
      if (promise.isCanceled()) return false;
      if (total > 0) {
        promise.setProgressValue(static_cast<int>(kProgressSteps * done / total));
      }
      return true;
    };
    Outcome outcome;
    try {
      if (source == Source::Repository) {
        document::RepositoryOptions options;
        options.progress = report;
        outcome.document =
            std::make_shared<const document::Document>(document::loadRepository(file, options));
      } else {
        document::TextLoadOptions options;
        options.progress = report;
        auto text = std::make_shared<const document::Document>(document::loadTextFile(file, options));
        outcome.item = taskItemOf(file, *text);
        outcome.document = outcome.item ? std::make_shared<const document::Document>(
                                              outcome.item->context, file, document::DocumentKind::Text)
                                        : text;
      }
    } catch (const Error& error) {
      if (error.kind() == ErrorKind::Cancelled) return;
      outcome.error = QString::fromStdString(error.what());
    } catch (const std::exception& error) {
      outcome.error = QString::fromStdString(file + ": " + error.what());
    }
    promise.addResult(std::move(outcome));
  });

  // The watcher lives on the UI thread; its signals arrive there, after load() has returned.
  auto* watcher = new QFutureWatcher<Outcome>(this);
  connect(watcher, &QFutureWatcher<Outcome>::progressValueChanged, this, [this, job](int value) {
    if (m_jobs.isCurrent(kTag, job)) emit progress(job, static_cast<double>(value) / kProgressSteps);
  });
  connect(watcher, &QFutureWatcher<Outcome>::finished, this,
          [this, job, watcher] { finish(job, watcher); });
  watcher->setFuture(future);
  m_watcher = watcher;
  return job;
}

void DocumentLoader::cancel() {
  if (m_watcher) {
    // The worker notices at its next chunk; its watcher is deleted when it finishes.
    m_watcher->future().cancel();
    m_watcher = nullptr;
  }
  m_jobs.drop(kTag);
}

void DocumentLoader::finish(quint64 job, QFutureWatcher<Outcome>* watcher) {
  watcher->deleteLater();
  if (!m_jobs.finish(kTag, job)) return;  // stale: a newer load replaced it
  m_watcher = nullptr;
  const QFuture<Outcome> future = watcher->future();
  if (future.isCanceled() || future.resultCount() == 0) {
    emit failed(job, tr("Loading was cancelled"));
    return;
  }
  const Outcome outcome = future.result();
  if (outcome.document) {
    emit loaded(job, outcome.document, outcome.item);
  } else {
    emit failed(job, outcome.error);
  }
}

}  // namespace studio::views
