/* Progress lines on stderr (see progress.h). */
#include "benchmarks/progress.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "storage/clock.h"

#define PROGRESS_TTY_S 0.2  /* a terminal's line is redrawn at most this often */
#define PROGRESS_PLAIN_S 1.0 /* plain lines (not a terminal) at most this often */

static struct {
    bool on, tty;
    bool shown;          /* terminal: a line is on screen, not ended by a newline */
    double last_s;       /* when the last line was shown (0: none yet) */
    const char *phase, *unit; /* counted phase; phase NULL: none */
    uint64_t total;
    double start_s;
    uint64_t last_count; /* timed phases: the count at the last line */
} pg;

/* Units done in the counted phase. Relaxed everywhere: a number to show, nothing is
 * published with it; the main thread may see it a little late. */
static _Atomic uint64_t pg_done;
/* Work done that no line shows (progress_beat); relaxed like pg_done. */
static _Atomic uint64_t pg_beats;

void progress_init(bool quiet)
{
    pg.on = !quiet;
    pg.tty = isatty(2);
}

__attribute__((format(printf, 2, 3))) static void show(bool start, const char *fmt, ...)
{
    double now = clock_now_s();
    if (!start && now - pg.last_s < (pg.tty ? PROGRESS_TTY_S : PROGRESS_PLAIN_S))
        return;
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (pg.tty) {
        fprintf(stderr, "\r%s\033[K", line);
        pg.shown = true;
    } else {
        fprintf(stderr, "%s\n", line);
    }
    pg.last_s = now;
}

void progress_phase(const char *phase, const char *unit, uint64_t total)
{
    atomic_store_explicit(&pg_done, 0, memory_order_relaxed);
    pg.phase = phase;
    pg.unit = unit;
    pg.total = total;
    pg.start_s = clock_now_s();
    if (pg.on)
        show(true, "%s 0/%llu %s 0.0 s", phase, (unsigned long long)total, unit);
}

void progress_add(uint64_t n) { atomic_fetch_add_explicit(&pg_done, n, memory_order_relaxed); }

void progress_beat(void) { atomic_fetch_add_explicit(&pg_beats, 1, memory_order_relaxed); }

uint64_t progress_count(void)
{
    return atomic_load_explicit(&pg_done, memory_order_relaxed) +
           atomic_load_explicit(&pg_beats, memory_order_relaxed);
}

void progress_tick(void)
{
    if (!pg.on || !pg.phase)
        return;
    show(false, "%s %llu/%llu %s %.1f s", pg.phase,
         (unsigned long long)atomic_load_explicit(&pg_done, memory_order_relaxed),
         (unsigned long long)pg.total, pg.unit, clock_now_s() - pg.start_s);
}

void progress_timed(bool start, const char *phase, double elapsed_s, double length_s,
                    uint64_t count)
{
    pg.phase = NULL;
    if (!pg.on)
        return;
    double dt = clock_now_s() - pg.last_s;
    double rate = pg.last_s > 0 && dt > 0 ? (double)(count - pg.last_count) / dt : 0.0;
    double last_s = pg.last_s;
    show(start, "%s %.1f/%.1f s %.0f commits/s", phase, elapsed_s, length_s, rate);
    if (pg.last_s != last_s) /* a line was shown: the next rate starts here */
        pg.last_count = count;
}

void progress_clear(void)
{
    if (pg.on && pg.tty && pg.shown) {
        fputs("\r\033[K", stderr);
        pg.shown = false;
    }
}

void progress_end(void)
{
    if (pg.on && pg.tty && pg.shown)
        fputc('\n', stderr);
    pg.shown = false;
    pg.phase = NULL;
}
