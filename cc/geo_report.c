/* The geo layer's counters and its part of the result (cc/geo.h): commit latency overall
 * and per origin datacenter, CC period per leader datacenter, aborts by cause, carousel's
 * fast and slow paths, messages per commit, delivery lateness and whether the run is
 * valid (lateness p99 within 1% of the smallest inter-datacenter delay). Counted in the
 * measured window only (geo_window, set by the driver).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cc/geo_internal.h"

/* 0 before the measured window, 1 in it, 2 after it */
static _Atomic int geo_window;

void geo_window_set(int phase)
{
    if (phase == 0) {
        geo_fail_origin(geo_now_ns());
        return;
    }
    /* release: a recorder that sees the phase sees nothing older of the driver's */
    atomic_store_explicit(&geo_window, phase, memory_order_release);
}

static int window_phase(void) { return atomic_load_explicit(&geo_window, memory_order_acquire); }

/* A recorder's counters s (n bytes, `seen` its window phase last seen): cleared the first
 * time it records in the window; NULL outside it. */
static void *window_take(void *s, int *seen, size_t n)
{
    int w = window_phase();
    if (w != *seen) {
        if (w == 1)
            memset(s, 0, n);
        *seen = w;
    }
    return w == 1 ? s : NULL;
}

struct geo_exec_stats *geo_exec_rec(int ex)
{
    struct geo_exec_stats *s = &geo_exec_st[ex];
    return window_take(s, &s->seen, sizeof(*s));
}

struct geo_client_stats *geo_client_rec(int client)
{
    struct geo_client_stats *s = geo_client_st(client);
    return window_take(s, &s->seen, sizeof(*s));
}

static const char *const proto_names[] = {"2pc", "d2pc", "carousel"};

struct totals {
    struct latency lat, lat_dc[GEO_MAX_DCS], cc, cc_dc[GEO_MAX_DCS], late;
    struct latency cc_od[GEO_MAX_DCS][GEO_MAX_DCS]; /* [origin][leader] */
    uint64_t msgs, commits, aborts, by[AR_COUNT], fast, slow, cut, deps;
};
static struct totals tot; /* summed once, after the run */
static bool summed;

static void sum(void)
{
    if (summed)
        return;
    summed = true;
    memset(&tot, 0, sizeof(tot));
    for (int e = 0; e < GEO_EXECUTORS; e++) {
        const struct geo_exec_stats *s = &geo_exec_st[e];
        if (s->seen == 0)
            continue; /* never recorded in the window */
        latency_merge(&tot.late, &s->lateness);
        for (int o = 0; o < geo_cfg.d.ndcs; o++)
            for (int dc = 0; dc < geo_cfg.d.ndcs; dc++) {
                latency_merge(&tot.cc_od[o][dc], &s->cc_period[o][dc]);
                latency_merge(&tot.cc_dc[dc], &s->cc_period[o][dc]);
                latency_merge(&tot.cc, &s->cc_period[o][dc]);
            }
        tot.fast += s->fast;
        tot.slow += s->slow;
        tot.cut += s->cc_periods_cut;
        tot.deps += s->wr_deps;
    }
    for (int c = 0; c < geo_clients(); c++) {
        const struct geo_client_stats *s = geo_client_st(c);
        if (s->seen == 0)
            continue;
        int dc = c % geo_cfg.d.ndcs;
        latency_merge(&tot.lat, &s->latency);
        latency_merge(&tot.lat_dc[dc], &s->latency);
        tot.msgs += s->msgs;
        tot.commits += s->commits;
        tot.aborts += s->aborts;
        for (int r = 0; r < AR_COUNT; r++)
            tot.by[r] += s->aborts_by[r];
    }
}

static double ms(uint64_t ns) { return (double)ns / 1e6; }

static void lat_json(FILE *f, const struct latency *l)
{
    fprintf(f, "{\"count\":%llu,\"p50\":%.3f,\"p99\":%.3f,\"mean\":%.3f}",
            (unsigned long long)l->count, ms(latency_quantile(l, 0.5)),
            ms(latency_quantile(l, 0.99)), l->count ? ms(l->sum) / (double)l->count : 0.0);
}

/* the validity bound: 1% of the smallest inter-datacenter one-way delay (scaled), ns */
static double lateness_limit_ns(void)
{
    double lo = 0;
    for (int i = 0; i < geo_cfg.d.ndcs; i++)
        for (int j = 0; j < geo_cfg.d.ndcs; j++)
            if (i != j && (lo == 0 || geo_delay_ms(i, j) < lo))
                lo = geo_delay_ms(i, j);
    if (lo == 0) /* one datacenter: its intra delay */
        lo = geo_delay_ms(0, 0);
    return lo * 1e6 * 0.01;
}

bool geo_valid(void)
{
    sum();
    return (double)latency_quantile(&tot.late, 0.99) <= lateness_limit_ns();
}

void geo_report_json(FILE *f)
{
    sum();
    const struct geo_deploy *d = &geo_cfg.d;
    fprintf(f, "{\"deployment\":\"%s\",\"protocol\":\"%s\",\"read_opt\":%s,"
               "\"time_scale\":%g,\"cocoord_groups\":%d,\"service_us\":%g,\"clients\":%d,"
               "\"shards\":%d,\"datacenters\":[",
            d->path, proto_names[geo_cfg.protocol], geo_cfg.read_opt ? "true" : "false",
            geo_cfg.time_scale, geo_cfg.cocoord_groups, geo_cfg.service_us, geo_clients(),
            d->nshards);
    for (int i = 0; i < d->ndcs; i++)
        fprintf(f, "%s\"%s\"", i ? "," : "", d->dc_name[i]);
    fprintf(f, "],\"commits\":%llu,\"aborts\":%llu,\"abort_rate\":%.4f,",
            (unsigned long long)tot.commits, (unsigned long long)tot.aborts,
            tot.commits + tot.aborts ? (double)tot.aborts / (double)(tot.commits + tot.aborts)
                                     : 0.0);
    uint64_t lock = tot.by[AR_CONFLICT] + tot.by[AR_WRITE_LOCK];
    uint64_t known = lock + tot.by[AR_VALIDATION] + tot.by[AR_STALE_READ] +
                     tot.by[AR_CASCADE] + tot.by[AR_FAILURE];
    fprintf(f, "\"aborts_by\":{\"validation\":%llu,\"lock\":%llu,\"stale_read\":%llu,"
               "\"cascade\":%llu,\"failure\":%llu,\"other\":%llu},",
            (unsigned long long)tot.by[AR_VALIDATION], (unsigned long long)lock,
            (unsigned long long)tot.by[AR_STALE_READ], (unsigned long long)tot.by[AR_CASCADE],
            (unsigned long long)tot.by[AR_FAILURE], (unsigned long long)(tot.aborts - known));
    fputs("\"latency_ms\":", f);
    lat_json(f, &tot.lat);
    fputs(",\"latency_ms_by_origin\":{", f);
    for (int i = 0; i < d->ndcs; i++) {
        fprintf(f, "%s\"%s\":", i ? "," : "", d->dc_name[i]);
        lat_json(f, &tot.lat_dc[i]);
    }
    fputs("},\"cc_period_ms\":", f);
    lat_json(f, &tot.cc);
    fputs(",\"cc_period_ms_by_leader\":{", f);
    for (int i = 0; i < d->ndcs; i++) {
        fprintf(f, "%s\"%s\":", i ? "," : "", d->dc_name[i]);
        lat_json(f, &tot.cc_dc[i]);
    }
    fputs("},\"cc_period_ms_by_origin_leader\":{", f);
    for (int o = 0; o < d->ndcs; o++) {
        fprintf(f, "%s\"%s\":{", o ? "," : "", d->dc_name[o]);
        for (int i = 0; i < d->ndcs; i++) {
            fprintf(f, "%s\"%s\":", i ? "," : "", d->dc_name[i]);
            lat_json(f, &tot.cc_od[o][i]);
        }
        fputc('}', f);
    }
    fprintf(f, "},\"fast_path\":%llu,\"slow_path\":%llu,\"precommit_releases\":%llu,"
               "\"wr_dependencies\":%llu,\"messages_per_commit\":%.2f,",
            (unsigned long long)tot.fast, (unsigned long long)tot.slow,
            (unsigned long long)tot.cut, (unsigned long long)tot.deps,
            tot.commits ? (double)tot.msgs / (double)tot.commits : 0.0);
    fputs("\"failures\":", f);
    geo_fail_json(f);
    fprintf(f, ",\"lateness_us\":{\"p50\":%.1f,\"p99\":%.1f,\"max\":%.1f},"
               "\"lateness_limit_us\":%.1f,\"valid\":%s}",
            (double)latency_quantile(&tot.late, 0.5) / 1e3,
            (double)latency_quantile(&tot.late, 0.99) / 1e3, (double)tot.late.max / 1e3,
            lateness_limit_ns() / 1e3, geo_valid() ? "true" : "false");
}

void geo_report_human(FILE *f)
{
    sum();
    fprintf(f, "geo %s: latency p50 %.1f ms p99 %.1f ms; CC period p50 %.1f ms p99 %.1f ms; "
               "%.1f messages per commit; lateness p99 %.0f us (limit %.0f us)%s\n",
            proto_names[geo_cfg.protocol], ms(latency_quantile(&tot.lat, 0.5)),
            ms(latency_quantile(&tot.lat, 0.99)), ms(latency_quantile(&tot.cc, 0.5)),
            ms(latency_quantile(&tot.cc, 0.99)),
            tot.commits ? (double)tot.msgs / (double)tot.commits : 0.0,
            (double)latency_quantile(&tot.late, 0.99) / 1e3, lateness_limit_ns() / 1e3,
            geo_valid() ? "" : " -- INVALID: the host could not keep the delivery deadlines");
}
