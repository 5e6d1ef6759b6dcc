#include "views/causality_status.h"

#include <QPointer>

namespace studio::views {

CausalityStatus::CausalityStatus(QString cache_file, QObject* parent)
    : QObject(parent), m_cache_file(std::move(cache_file)) {}

CausalityStatus::~CausalityStatus() {
  for (std::thread& thread : m_threads) thread.join();
}

void CausalityStatus::check(const QString& model_dir) {
  if (model_dir.isEmpty()) {
    m_jobs.drop("causality");
    return;
  }
  const JobTracker::Ticket ticket = m_jobs.start("causality");
  QPointer<CausalityStatus> self(this);
  const std::string dir = model_dir.toStdString(), cache = m_cache_file.toStdString();
  m_threads.emplace_back([self, ticket, model_dir, dir, cache] {
    const engine::CausalityVerdict verdict = engine::checkModelCausality(dir, cache);
    QMetaObject::invokeMethod(
        self.data(),
        [self, ticket, model_dir, verdict] {
          if (!self || !self->m_jobs.finish("causality", ticket)) return;
          emit self->checked(model_dir, verdict);
        },
        Qt::QueuedConnection);
  });
}

}  // namespace studio::views
