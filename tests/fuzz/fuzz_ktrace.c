/*
 * fuzz_ktrace.c: libFuzzer target for the kmem trace parser, reader and
 * replay.
 *
 * Each input is a trace file: plain text, or gzip when it starts with the
 * gzip magic (the reader decides, as it does for files).  Every line is
 * parsed with ktrace_parse_line() and must come back with a kind, a bad
 * line with a reason, and every pointer it returns inside the line; then
 * the whole input is replayed on a 4-CPU machine with the validator on,
 * which must find no violation (the engine's SIM_BUG_ON aborts on any
 * state no input may reach), and the scenario it records must parse.  Run from the repository root;
 * see CMakeLists.txt (SLUBLAB_FUZZ).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace/ktrace_replay.h"
#include "scenario/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool inside(const char *p, size_t n, const char *line, size_t len)
{
    return !p || (p >= line && p + n <= line + len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ktrace_reader *r;
    struct ktrace_replay kr;
    struct ktrace_opts o = {
            .cpus = 4, .validate = true, .mem_mb = 8, .record = true};
    struct strbuf err = STRBUF_INIT;
    const char *line;
    size_t len;
    int ret;

    if (size > (1u << 20) || ktrace_open_mem(data, size, &r))
        return 0;
    while (ktrace_next_line(r, &line, &len) > 0) {
        struct ktrace_event ev;
        enum ktrace_kind k = ktrace_parse_line(line, len, &ev);

        if (k != ev.kind || k > KTRACE_BAD || (k == KTRACE_BAD && !ev.reason))
            abort();
        if (!inside(ev.name, ev.name_len, line, len) ||
            !inside(ev.call_site, ev.call_site_len, line, len) ||
            !inside(ev.gfp_text, ev.gfp_len, line, len))
            abort();
        if (len > KTRACE_MAX_LINE)
            abort();
    }
    if (ktrace_rewind(r) == 0) {
        ret = ktrace_replay_run(&kr, r, &o, &err);
        if (ret != 0 && ret != -EIO)
            abort(); /* --cpus is given: only a read error may stop it */
        if (kr.n.violations)
            abort();
        if (ret == 0 && kr.sim) { /* what -o writes must parse */
            cJSON *scn = ktrace_replay_scenario(&kr, "fuzz");
            char *text = scn ? cJSON_PrintUnformatted(scn) : NULL;
            struct scenario *parsed = NULL;
            int pr = text ? scenario_parse(text, strlen(text), "fuzz", &parsed, &err) : 0;

            if (pr && pr != -ENOMEM) {
                fprintf(stderr, "%s\n", strbuf_str(&err));
                abort();
            }
            scenario_release(parsed);
            cJSON_free(text);
            cJSON_Delete(scn);
        }
        ktrace_replay_release(&kr);
    }
    ktrace_close(r);
    strbuf_release(&err);
    return 0;
}
