/* Per-thread shared-write counters (see shared_writes.h). */
#include "storage/shared_writes.h"

#include <string.h>

#define SHW_NAME_(e, s) s,
const char *const shw_names[SHW_NKINDS] = {SHW_KINDS(SHW_NAME_)};
#undef SHW_NAME_

#if SHW_ENABLED
_Thread_local uint64_t shw_count[SHW_NKINDS];

void shw_take(uint64_t out[SHW_NKINDS])
{
    memcpy(out, shw_count, sizeof(shw_count));
    memset(shw_count, 0, sizeof(shw_count));
}
#else
void shw_take(uint64_t out[SHW_NKINDS]) { memset(out, 0, SHW_NKINDS * sizeof(out[0])); }
#endif
