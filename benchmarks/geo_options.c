/* The geo-distributed commit layer's settings from the flags: the deployment file
 * (cc/geo_deploy.cpp loads it), the flags, the rule that --geo goes with the geo
 * workloads and with no other. */
#include "benchmarks/geo_options.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/workload.h"

bool geo_workload_name(const char *name)
{
    const struct workload *w = workload_find(name);
    return w && w->geo;
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
    if (!geo_fail_parse(c, o->kill_cocoord, o->kill_follower, o->lose_majority, err, errlen))
        return false;
    c->fail.decider_timeout_ms = o->decider_timeout_ms;
    if (o->decider_timeout_ms > 0 && !geo_fail_any_in(&c->fail)) {
        snprintf(err, errlen, "--decider-timeout: needs a failure (--kill-cocoord, "
                              "--kill-follower or --lose-majority): no timer runs without one");
        return false;
    }
    return true;
}
