/* Unit tests of what storage/mem.h reads about the memory the process can take (the
 * reservation's default budget):
 *  - memory_left_is_below_the_machines: on this machine, some, and less than it has
 *    (MemAvailable is below MemTotal; a cgroup's limit only lowers it);
 *  - cgroup_*: mem_cgroup_left on fixture trees (a /proc/self/cgroup file and a cgroup
 *    mount in a temporary folder): v1 with co-mounted controllers and its "no limit",
 *    v2's "max", a parent's limit below the leaf's, usage over the limit, inactive file
 *    pages left out of the usage, a cgroup namespace (the path not under the mount), a
 *    line longer than any fixed buffer, and no limit anywhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/mem.h"
#include "tests/unit/check.h"

static char root[64]; /* the fixture's mount root */
static char cgfile[96];

/* Writes text to root/rel, making its folders. */
static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void fixture(const char *cgroup_lines)
{
    strcpy(root, "/tmp/rundb-test-mem-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    snprintf(cgfile, sizeof(cgfile), "%s/proc-cgroup", root);
    FILE *f = fopen(cgfile, "w");
    fputs(cgroup_lines, f);
    fclose(f);
}

static void cleanup(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

static void memory_left_is_below_the_machines(void)
{
    size_t phys = mem_phys_bytes(), avail = mem_avail_bytes();
    CHECK(phys > 0);
    CHECK(avail > 0);
    CHECK(avail < phys);
}

/* v1, memory co-mounted with cpu; the leaf's limit less its usage without inactive file
 * pages; an ancestor's "no limit" (about 2^63) ignored. */
static void cgroup_v1_leaf_limit(void)
{
    fixture("5:pids:/a/b\n4:cpu,memory:/a/b\n");
    put("memory/memory.limit_in_bytes", "9223372036854771712\n");
    put("memory/a/memory.limit_in_bytes", "9223372036854771712\n");
    put("memory/a/b/memory.limit_in_bytes", "1000000000\n");
    put("memory/a/b/memory.usage_in_bytes", "300000000\n");
    put("memory/a/b/memory.stat", "cache 5\ntotal_inactive_file 100000000\n");
    CHECK_EQ_U(mem_cgroup_left(cgfile, root), 800000000);
    cleanup();
}

/* v2: the leaf says "max", its parent's limit binds, over the parent's own usage. */
static void cgroup_v2_parent_limit(void)
{
    fixture("0::/x/y\n");
    put("x/y/memory.max", "max\n");
    put("x/y/memory.current", "500000000\n");
    put("x/memory.max", "2000000000\n");
    put("x/memory.current", "1500000000\n");
    put("x/memory.stat", "anon 1\ninactive_file 500000000\nactive_file 7\n");
    CHECK_EQ_U(mem_cgroup_left(cgfile, root), 1000000000);
    cleanup();
}

/* Usage at or above the limit leaves nothing: 1, not "no limit". */
static void cgroup_over_the_limit(void)
{
    fixture("0::/x\n");
    put("x/memory.max", "1000000000\n");
    put("x/memory.current", "2000000000\n");
    CHECK_EQ_U(mem_cgroup_left(cgfile, root), 1);
    cleanup();
}

/* A cgroup namespace: the path is not under the mount, whose root is the process's own;
 * a line of another hierarchy longer than any fixed buffer comes first. */
static void cgroup_namespace_and_long_line(void)
{
    char lines[1200] = "7:pids:/";
    memset(lines + strlen(lines), 'p', 1000);
    strcat(lines, "\n0::/not/mounted/here\n");
    fixture(lines);
    put("memory.max", "4000000000\n");
    put("memory.current", "1000000000\n");
    CHECK_EQ_U(mem_cgroup_left(cgfile, root), 3000000000);
    cleanup();
}

static void cgroup_no_limit(void)
{
    fixture("0::/x\n");
    put("x/memory.max", "max\n");
    put("x/memory.current", "1000\n");
    CHECK_EQ_U(mem_cgroup_left(cgfile, root), 0);
    cleanup();
    CHECK_EQ_U(mem_cgroup_left("/nonexistent/cgroup", "/nonexistent"), 0);
}

int main(void)
{
    RUN_CASE(memory_left_is_below_the_machines);
    RUN_CASE(cgroup_v1_leaf_limit);
    RUN_CASE(cgroup_v2_parent_limit);
    RUN_CASE(cgroup_over_the_limit);
    RUN_CASE(cgroup_namespace_and_long_line);
    RUN_CASE(cgroup_no_limit);
    CHECK_EXIT();
}
