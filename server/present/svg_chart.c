/*
 * svg_chart.c: small static SVG charts for the Markdown reports (see
 * report_md.h).
 *
 * A report is read where no browser runs the UI (a review thread, a
 * repository), so its picture is a plain SVG file with no script and no
 * external reference: one horizontal bar per cache for a state (objects in
 * use, sheaves included, then objects free on partial slabs, out of
 * total_objects), or a pair of bars per changed counter for a comparison.
 * Numbers are written as text next to the bars, so the picture never says
 * more than the tables beside it.
 */
#include "present/svg_chart.h"

#include <inttypes.h>
#include <string.h>

#define SVG_W      720
#define SVG_LABEL  190 /* width of the name column */
#define SVG_BAR    18
#define SVG_GAP    8
#define SVG_VALUES 150 /* width of the numbers after the bars */

/* @s with the XML specials escaped. */
static void svg_text(struct strbuf *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            strbuf_puts(out, "&lt;");
            break;
        case '>':
            strbuf_puts(out, "&gt;");
            break;
        case '&':
            strbuf_puts(out, "&amp;");
            break;
        case '"':
            strbuf_puts(out, "&quot;");
            break;
        default:
            strbuf_append(out, s, 1);
        }
    }
}

static void svg_open(struct strbuf *out, unsigned height, const char *title)
{
    strbuf_printf(out,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
                  "viewBox=\"0 0 %u %u\" font-family=\"sans-serif\" font-size=\"12\">\n"
                  "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
                  "<text x=\"8\" y=\"18\" font-weight=\"bold\">",
                  SVG_W, height, SVG_W, height);
    svg_text(out, title);
    strbuf_puts(out, "</text>\n");
}

static void svg_label(struct strbuf *out, unsigned y, const char *name)
{
    strbuf_printf(out, "<text x=\"8\" y=\"%u\">", y + 13);
    svg_text(out, name);
    strbuf_puts(out, "</text>\n");
}

bool svg_objects_chart(struct strbuf *out, const struct sim_snapshot *snap)
{
    const unsigned span = SVG_W - SVG_LABEL - SVG_VALUES;
    unsigned long max = 1;
    unsigned rows = 0, y;
    size_t i;

    for (i = 0; i < snap->nr_caches; i++)
        if (snap->caches[i].alive) {
            rows++;
            if (snap->caches[i].total_objects > max)
                max = snap->caches[i].total_objects;
        }
    svg_open(out, 60 + rows * (SVG_BAR + SVG_GAP),
             "Objects per cache: in use (dark; sheaves included), free on partial slabs (light)");
    y = 32;
    for (i = 0; i < snap->nr_caches; i++) {
        const struct sim_snap_cache *c = &snap->caches[i];
        unsigned w_used = (unsigned)((uint64_t)c->objects * span / max);
        unsigned w_all = (unsigned)((uint64_t)c->total_objects * span / max);

        if (!c->alive)
            continue;
        svg_label(out, y, c->name);
        strbuf_printf(out,
                      "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"#c6dbef\"/>\n"
                      "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"#2171b5\"/>\n"
                      "<text x=\"%u\" y=\"%u\">%lu / %lu</text>\n",
                      SVG_LABEL, y, w_all, SVG_BAR, SVG_LABEL, y, w_used, SVG_BAR,
                      SVG_LABEL + w_all + 6, y + 13, c->objects, c->total_objects);
        y += SVG_BAR + SVG_GAP;
    }
    strbuf_printf(out,
                  "<text x=\"8\" y=\"%u\" fill=\"#555\">objects / total_objects, as in "
                  "/sys/kernel/slab</text>\n</svg>\n",
                  y + 14);
    return !strbuf_failed(out);
}

bool svg_compare_chart(struct strbuf *out, const struct compare_side side[2])
{
    const unsigned span = SVG_W - SVG_LABEL - SVG_VALUES;
    uint64_t max = 1;
    unsigned rows = 0, y, k;
    size_t r;

    for (r = 0; r < COMPARE_ROWS; r++) {
        if (side[0].v[r] == side[1].v[r])
            continue;
        rows++;
        for (k = 0; k < 2; k++)
            if (side[k].v[r] > max)
                max = side[k].v[r];
    }
    svg_open(out, 60 + rows * (2 * SVG_BAR + SVG_GAP),
             "Metrics that changed: baseline (grey), patched (blue)");
    y = 32;
    for (r = 0; r < COMPARE_ROWS; r++) {
        if (side[0].v[r] == side[1].v[r])
            continue;
        svg_label(out, y + SVG_BAR / 2, compare_row_name(r));
        for (k = 0; k < 2; k++) {
            unsigned w = (unsigned)(side[k].v[r] * span / max);

            strbuf_printf(out,
                          "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\"/>\n"
                          "<text x=\"%u\" y=\"%u\">%" PRIu64 "</text>\n",
                          SVG_LABEL, y + k * SVG_BAR, w, SVG_BAR - 2, k ? "#2171b5" : "#969696",
                          SVG_LABEL + w + 6, y + k * SVG_BAR + 13, side[k].v[r]);
        }
        y += 2 * SVG_BAR + SVG_GAP;
    }
    if (!rows)
        strbuf_printf(out, "<text x=\"8\" y=\"%u\">No metric changed.</text>\n", y + 13);
    strbuf_printf(out, "<text x=\"8\" y=\"%u\" fill=\"#555\">baseline: ", y + 28);
    svg_text(out, side[0].label);
    strbuf_puts(out, "; patched: ");
    svg_text(out, side[1].label);
    strbuf_puts(out, "</text>\n</svg>\n");
    return !strbuf_failed(out);
}
