/* What this binary is: its variant (a row of config/variants.tsv), that row's compile
 * flags and the git revision it was built from. Defined in build_info.c, which the
 * Makefile compiles for each binary at link time. */
#ifndef BENCH_BUILD_INFO_H
#define BENCH_BUILD_INFO_H

extern const char build_variant[];
extern const char build_variant_flags[];
extern const char build_git_rev[];

#endif
