/* Build information (see build_info.h); the Makefile passes the values with -D. */
#include "benchmarks/build_info.h"

#ifndef BUILD_VARIANT
#error "BUILD_VARIANT must be set by the Makefile"
#endif

const char build_variant[] = BUILD_VARIANT;
const char build_variant_flags[] = BUILD_VARIANT_FLAGS;
const char build_git_rev[] = BUILD_GIT_REV;
