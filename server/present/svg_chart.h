/*
 * svg_chart.h: static SVG charts for the Markdown reports (svg_chart.c).
 */
#ifndef SLUBLAB_SERVER_PRESENT_SVG_CHART_H
#define SLUBLAB_SERVER_PRESENT_SVG_CHART_H

#include <stdbool.h>

#include "slub.h"
#include "present/compare.h"
#include "base/strbuf.h"

/* One bar per live cache: objects in use and free on partial slabs.  False on host OOM. */
bool svg_objects_chart(struct strbuf *out, const struct sim_snapshot *snap);
/* A pair of bars (baseline, patched) per metric that changed.  False on host OOM. */
bool svg_compare_chart(struct strbuf *out, const struct compare_side side[2]);

#endif /* SLUBLAB_SERVER_PRESENT_SVG_CHART_H */
