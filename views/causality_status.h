#pragma once
// Runs the leak check of every model the studio opens in the background
// (core/engine/causality_verdict.h: once per fingerprint of its weights, then from the cache
// file) and reports the verdict of the model still wanted.

#include <QObject>
#include <QString>

#include <thread>
#include <vector>

#include "core/engine/causality_verdict.h"
#include "views/job_tracker.h"

namespace studio::views {

class CausalityStatus : public QObject {
  Q_OBJECT
 public:
  explicit CausalityStatus(QString cache_file, QObject* parent = nullptr);
  // Waits for the checks still running (seconds at most: larger models are not loaded for it).
  ~CausalityStatus() override;

  // Starts checking `model_dir`; the verdict of a check started before is no longer reported.
  // Empty: none.
  void check(const QString& model_dir);

 signals:
  void checked(const QString& model_dir, const studio::engine::CausalityVerdict& verdict);

 private:
  QString m_cache_file;
  JobTracker m_jobs;
  std::vector<std::thread> m_threads;
};

}  // namespace studio::views
