/* --dump DIR: the final TPC-C database as CSV, one file per table (warehouse.csv,
 * district.csv, customer.csv, history.csv, new_order.csv, oorder.csv, order_line.csv,
 * item.csv, stock.csv). The first line names the columns as the specification does, in
 * lower case; then one line per committed row, in allocation order. Money has two
 * decimals, rates (w_tax, d_tax, c_discount) four, dates are "YYYY-MM-DD HH:MM:SS" (UTC),
 * a null (o_carrier_id, ol_delivery_d) is an empty field; text is quoted only where it
 * holds a comma, a quote or a line break (RFC 4180). Only when no transaction runs. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "benchmarks/tpcc.h"

static void put_text(FILE *f, const char *s, size_t n)
{
    n = strnlen(s, n);
    if (!memchr(s, ',', n) && !memchr(s, '"', n) && !memchr(s, '\n', n) && !memchr(s, '\r', n)) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

static void put_field(FILE *f, const struct tpcc_coldef *cd, const unsigned char *p)
{
    int64_t v = 0;
    if (cd->type == COL_INT32) {
        int32_t x;
        memcpy(&x, p, 4);
        v = x;
    } else if (cd->type == COL_INT64) {
        memcpy(&v, p, 8);
    }
    switch (cd->fmt) {
    case F_INT:
        fprintf(f, "%lld", (long long)v);
        break;
    case F_NULL0:
        if (v)
            fprintf(f, "%lld", (long long)v);
        break;
    case F_MONEY:
    case F_RATE: {
        int64_t unit = cd->fmt == F_MONEY ? 100 : 10000;
        uint64_t a = v < 0 ? (uint64_t)-v : (uint64_t)v;
        fprintf(f, "%s%llu.%0*llu", v < 0 ? "-" : "", (unsigned long long)(a / (uint64_t)unit),
                cd->fmt == F_MONEY ? 2 : 4, (unsigned long long)(a % (uint64_t)unit));
        break;
    }
    case F_DATE:
        if (v) {
            time_t tt = (time_t)v;
            struct tm tm;
            char buf[32];
            gmtime_r(&tt, &tm);
            strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
            fputs(buf, f);
        }
        break;
    case F_TEXT:
        put_text(f, (const char *)p, cd->size);
        break;
    }
}

static bool dump_table(int tab, const char *dir, FILE *err)
{
    const struct tpcc_tabdef *td = &tpcc_tabdefs[tab];
    struct table *t = tpcc.tab[tab];
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.csv", dir, td->name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(err, "tpcc dump: cannot create '%s': %s\n", path, strerror(errno));
        return false;
    }
    char *buf = malloc(1 << 20);
    setvbuf(f, buf, _IOFBF, 1 << 20);
    for (int c = 0; c < td->ncols; c++)
        fprintf(f, "%s%s", c ? "," : "", td->cols[c].name);
    fputc('\n', f);
    for (uint64_t i = 0, n = table_nrows(t); i < n; i++) {
        struct row *r = table_row_at(t, i);
        if (!tpcc_row_live(t, r))
            continue;
        for (int c = 0; c < td->ncols; c++) {
            if (c)
                fputc(',', f);
            put_field(f, &td->cols[c], col_ptr(&t->schema, r->data, c));
        }
        fputc('\n', f);
    }
    bool ok = !ferror(f);
    if (fclose(f) != 0)
        ok = false;
    free(buf);
    if (!ok)
        fprintf(err, "tpcc dump: cannot write '%s': %s\n", path, strerror(errno));
    return ok;
}

bool tpcc_dump(const struct options *o, const char *dir, FILE *err)
{
    (void)o;
    for (int t = 0; t < TPCC_NTABLES; t++)
        if (!dump_table(t, dir, err))
            return false;
    return true;
}
