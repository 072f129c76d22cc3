/* The geo-distributed commit layer's settings (cc/geo.h) from the command line: --geo's
 * deployment file and the flags that go with it (options.h), and which workloads are the
 * geo ones. options_parse has already refused a geo flag without --geo and bad values. */
#ifndef BENCH_GEO_OPTIONS_H
#define BENCH_GEO_OPTIONS_H

#include <stdbool.h>

#include "benchmarks/options.h"
#include "cc/geo.h"

/* With --geo (o->geo not ""): loads the deployment file into c->d and fills the rest of c
 * from the flags (c->keys: --rows); false with a one-line reason in err (a problem of
 * the file's starts with its name), also when the workload is not a geo workload. */
bool geo_options_config(const struct options *o, struct geo_config *c, char *err,
                        unsigned errlen);
/* Whether workload `name` is a geo workload (runs through geo_run; needs --geo). */
bool geo_workload_name(const char *name);

#endif
