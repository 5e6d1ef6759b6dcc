#pragma once
// The analysis library's types (analysis/: run traces, figure data, the attention inspectors'
// data, Qt-free) under the names the views use them by.

#include "analysis/attention_data.h"
#include "analysis/figure.h"
#include "analysis/head_inspection.h"
#include "analysis/run_figures.h"
#include "analysis/run_trace.h"

namespace studio::views {

using analysis::AttentionStrip;
using analysis::AttentionWindowData;
using analysis::ColourRange;
using analysis::DocumentAttention;
using analysis::Figure;
using analysis::FigureHeatmap;
using analysis::FigureSeries;
using analysis::FigureTokenText;
using analysis::HeadGrid;
using analysis::RunTrace;
using analysis::WindowScope;

using analysis::answerAttentionStrip;
using analysis::attentionWindowData;
using analysis::attentionWindowRequest;
using analysis::documentAttention;
using analysis::hasDocumentAttention;
using analysis::loadRunTrace;
using analysis::makeRunFigure;
using analysis::runFigureNames;

}  // namespace studio::views
