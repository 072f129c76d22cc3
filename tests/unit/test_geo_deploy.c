/* Unit tests of the deployment file loader (geo_deploy_load, cc/geo_deploy.cpp): the
 * values it reads from the files of config/geo (run from the repository root, as tests/run.sh
 * does), the defaults, and that a refused file leaves the struct alone and says why on
 * one line after the file's name. The refusals themselves: tests/geo_config_test.sh. */
#include <string.h>

#include "cc/cc.h"
#include "cc/geo.h"
#include "tests/unit/check.h"

static void three_dcs(void)
{
    struct geo_deploy d;
    char err[300] = "";
    CHECK(geo_deploy_load("config/geo/3dc.toml", &d, err, sizeof(err)));
    if (*err)
        printf("  %s\n", err);
    CHECK(strcmp(d.path, "config/geo/3dc.toml") == 0);
    CHECK_EQ_U(d.ndcs, 3);
    CHECK(strcmp(d.dc_name[0], "hangzhou") == 0);
    CHECK(strcmp(d.dc_name[1], "san-francisco") == 0);
    CHECK(strcmp(d.dc_name[2], "frankfurt") == 0);
    for (int i = 0; i < 3; i++)
        CHECK(!d.dc_ours[i]);
    /* the paper's round-trip times, halved */
    CHECK(d.one_way_ms[0][1] == 72.5 && d.one_way_ms[1][0] == 72.5);
    CHECK(d.one_way_ms[1][2] == 72.5 && d.one_way_ms[2][1] == 72.5);
    CHECK(d.one_way_ms[0][2] == 115 && d.one_way_ms[2][0] == 115);
    CHECK(d.intra_ms == 0.25);
    CHECK(d.jitter_ms == 0);
    CHECK_EQ_U(d.nshards, 3);
    for (int s = 0; s < 3; s++)
        CHECK_EQ_U(d.leader_dc[s], s);
}

static void five_dcs(void)
{
    struct geo_deploy d;
    char err[300] = "";
    CHECK(geo_deploy_load("config/geo/5dc.toml", &d, err, sizeof(err)));
    if (*err)
        printf("  %s\n", err);
    CHECK_EQ_U(d.ndcs, 5);
    CHECK(strcmp(d.dc_name[3], "singapore") == 0 && strcmp(d.dc_name[4], "virginia") == 0);
    /* the paper's three, then our two */
    for (int i = 0; i < 5; i++)
        CHECK(d.dc_ours[i] == (i >= 3));
    CHECK(d.one_way_ms[0][2] == 115);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            CHECK(d.one_way_ms[i][j] == d.one_way_ms[j][i] &&
                  (i == j) == (d.one_way_ms[i][j] == 0));
    /* no leaders key: round-robin */
    CHECK_EQ_U(d.nshards, 3);
    for (int s = 0; s < 3; s++)
        CHECK_EQ_U(d.leader_dc[s], s);
}

static void uniform(void)
{
    struct geo_deploy d;
    char err[300] = "";
    CHECK(geo_deploy_load("config/geo/uniform3.toml", &d, err, sizeof(err)));
    if (*err)
        printf("  %s\n", err);
    CHECK_EQ_U(d.ndcs, 3);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (i != j)
                CHECK(d.one_way_ms[i][j] == 50); /* written as integers */
    CHECK(d.intra_ms == 0.25 && d.jitter_ms == 0);
    CHECK_EQ_U(d.nshards, 3);
}

/* A file with the required keys and shards: the defaults; more shards than datacenters
 * wrap round-robin. A row that starts with a float may hold integers (cpptoml). */
static void defaults(void)
{
    char path[] = "/tmp/geo_defaults_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f);
    if (!f)
        return;
    fputs("datacenters = [\"x\", \"y\"]\none_way_ms = [[0.0, 10.5], [10.5, 0]]\nshards = 5\n", f);
    fclose(f);
    struct geo_deploy d;
    char err[300] = "";
    CHECK(geo_deploy_load(path, &d, err, sizeof(err)));
    if (*err)
        printf("  %s\n", err);
    CHECK(d.intra_ms == 0.25 && d.jitter_ms == 0);
    CHECK(!d.dc_ours[0] && !d.dc_ours[1]);
    CHECK(d.one_way_ms[0][1] == 10.5);
    CHECK_EQ_U(d.nshards, 5);
    for (int s = 0; s < 5; s++)
        CHECK_EQ_U(d.leader_dc[s], s % 2);
    remove(path);
}

/* Refused: d untouched, err one line "PATH: reason", also when err is short. */
static void refused(void)
{
    struct geo_deploy d;
    memset(&d, 0x5a, sizeof(d));
    char err[300];
    CHECK(!geo_deploy_load("config/geo/no-such.toml", &d, err, sizeof(err)));
    CHECK(strcmp(err, "config/geo/no-such.toml: cannot open: No such file or directory") == 0);
    const unsigned char *p = (const unsigned char *)&d;
    bool untouched = true;
    for (size_t i = 0; i < sizeof(d); i++)
        untouched &= p[i] == 0x5a;
    CHECK(untouched);
    char small[8];
    CHECK(!geo_deploy_load("config/geo/no-such.toml", &d, small, sizeof(small)));
    CHECK(strcmp(small, "config/") == 0);
}

int main(void)
{
    RUN_CASE(three_dcs);
    RUN_CASE(five_dcs);
    RUN_CASE(uniform);
    RUN_CASE(defaults);
    RUN_CASE(refused);
    CHECK_EXIT();
}
