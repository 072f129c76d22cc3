/* Tiny JSON writing helpers for result lines. */
#ifndef BENCH_JSON_H
#define BENCH_JSON_H

#include <stdio.h>

/* Writes s as a JSON string literal, escaping quotes, backslashes and control bytes. */
static inline void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

#endif
