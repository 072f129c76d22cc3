/* Wait records and the stop flag (see wait.h). */
#include "storage/wait.h"

#define WAIT_NAME_(e, s) s,
const char *const wait_kind_names[WAIT_NKINDS] = {WAIT_KINDS(WAIT_NAME_)};
#undef WAIT_NAME_

/* The record of threads that are no workers (loaders, unit tests): written, never read. */
static struct wait_rec wait_nobody;
_Thread_local struct wait_rec *wait_self = &wait_nobody;
_Atomic bool wait_stop;
