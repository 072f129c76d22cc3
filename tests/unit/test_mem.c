/* Unit tests of what storage/mem.h reads about the machine's memory: the memory the
 * process can still take (the reservation's default budget) is some, and less than the
 * machine has (MemAvailable is below MemTotal; a cgroup's limit only lowers it). */
#include "storage/mem.h"
#include "tests/unit/check.h"

static void memory_left_is_below_the_machines(void)
{
    size_t phys = mem_phys_bytes(), avail = mem_avail_bytes();
    CHECK(phys > 0);
    CHECK(avail > 0);
    CHECK(avail < phys);
}

int main(void)
{
    RUN_CASE(memory_left_is_below_the_machines);
    CHECK_EXIT();
}
