/* The geo-distributed commit layer's settings from the flags: the deployment file
 * (cc/geo_deploy.cpp loads it), the flags, the rule that --geo goes with the geo
 * workloads and with no other. */
#include "benchmarks/geo_options.h"

#include <stdio.h>
#include <string.h>

/* The run's geo settings (cc/geo.h). Defined here for now: moves to cc/geo_net.c. */
bool geo_on;
struct geo_config geo_cfg;

/* The geo workloads, until the workload registry (benchmarks/workload.h) has them. */
static const char *const geo_workloads[] = {"retwis", "ycsbt", "geo-bank"};

bool geo_workload_name(const char *name)
{
    for (size_t i = 0; i < sizeof(geo_workloads) / sizeof(geo_workloads[0]); i++)
        if (strcmp(name, geo_workloads[i]) == 0)
            return true;
    return false;
}

bool geo_options_config(const struct options *o, struct geo_config *c, char *err,
                        unsigned errlen)
{
    memset(c, 0, sizeof(*c));
    if (!geo_deploy_load(o->geo, &c->d, err, errlen))
        return false;
    if (!geo_workload_name(o->workload)) {
        snprintf(err, errlen, "--geo: needs a geo workload (retwis, ycsbt or geo-bank), not %s",
                 o->workload);
        return false;
    }
    c->protocol = (enum geo_protocol)o->commit; /* options.c checked the name */
    c->time_scale = o->geo_time_scale;
    c->cocoord_groups = o->cocoord_groups;
    c->service_us = o->geo_service_us;
    c->read_opt = o->read_opt;
    c->keys = o->rows;
    return true;
}
