// The exception guard of the TBB wrappers' extern "C" functions (storage/index_tbb_hash.cpp,
// storage/index_tbb_ordered.cpp): no exception crosses into C. bad_alloc (or any other)
// prints one line, "<function>: <what>", and exits with status 1.
#ifndef STORAGE_TBB_GUARD_HPP
#define STORAGE_TBB_GUARD_HPP

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

// f() for the extern "C" function named fn (pass __func__).
template <typename F>
auto tbb_guarded(const char *fn, F f) -> decltype(f())
{
    try {
        return f();
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "%s: out of memory\n", fn);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", fn, e.what());
    } catch (...) {
        std::fprintf(stderr, "%s: unknown exception\n", fn);
    }
    std::exit(1);
}

#endif
