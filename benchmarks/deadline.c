/* The whole-run watchdog (see deadline.h). */
#include "benchmarks/deadline.h"

#include <dirent.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "benchmarks/progress.h"
#include "benchmarks/watchdog.h"
#include "config/config.h"
#include "storage/clock.h"
#include "storage/wait.h"

/* Workers, as many loaders, and the main thread, the warm-up's reserver, the backup
 * coordinator and spares. */
#define DL_SLOTS (2 * MAX_THREADS + 8)
#define DL_POLL_NS 50000000L     /* the watchdog thread looks every 50 ms */
#define DL_ANSWER_S 2.0          /* how long a thread gets to write its backtrace */
#define DL_FRAMES 64
#define DL_SIGNAL SIGUSR2        /* asks a thread for its backtrace */

/* A thread's slot, claimed and given back by its thread under dl_lock; the reporter copies
 * the slots under dl_lock too, so a slot's fields are plain. But for `phase`: the thread
 * sets it without the lock (relaxed: a diagnostic). */
struct dl_slot {
    bool used;
    const char *role;
    int id;
    const struct wait_rec *wait; /* a worker's record; NULL for the others */
    pid_t tid;
    _Atomic(const char *) phase;
};

/* Every role and the phases it enters, in order (--hang-in takes one pair). */
static const char *const dl_phases[][14] = {
    {"main", "load", "generate", "warmup", "measure", "exit-wait", "join", "recovery",
     "history-check", "check", "dump", "report", "exit", NULL},
    {"loader", "load", NULL},
    {"worker", "generate", "ready", "run", "paused", "exit", NULL},
    {"reserver", "sample", "reserve", NULL},
    {"backup", "recover", NULL},
};
/* --hang-in: the pair, and whether a thread took it (atomic exchange: one thread only) */
static char dl_hang_role[16], dl_hang_phase[16];
static _Atomic bool dl_hang_taken;

static struct dl_slot slots[DL_SLOTS];
static _Thread_local struct dl_slot *dl_self;
static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t dl_report_lock = PTHREAD_MUTEX_INITIALIZER; /* one report at a time */
static struct dl_slot *dl_main;
/* the watchdog thread: reports, is not reported (relaxed: set once, before it reports) */
static _Atomic pid_t dl_watch_tid;
static double dl_timeout_s, dl_stall_s, dl_start_s;
/* Backtraces written: bumped (release) by the signal handler when it is done; the
 * reporter signals one thread at a time and waits for the bump (acquire). */
static _Atomic unsigned dl_answers;

/* Writes the interrupted thread's backtrace to stderr. backtrace() was called once at
 * start, so it does not allocate here (it loads libgcc on its first call);
 * backtrace_symbols_fd writes straight to the descriptor. */
static void on_backtrace_signal(int sig)
{
    (void)sig;
    void *pc[DL_FRAMES];
    int n = backtrace(pc, DL_FRAMES);
    backtrace_symbols_fd(pc, n, STDERR_FILENO);
    atomic_fetch_add_explicit(&dl_answers, 1, memory_order_release);
}

void deadline_enter(const char *role, int id)
{
    pthread_mutex_lock(&dl_lock);
    dl_self = NULL; /* more threads than slots: this one is reported as "unnamed" */
    for (int i = 0; i < DL_SLOTS && !dl_self; i++) {
        struct dl_slot *s = &slots[i];
        if (s->used)
            continue;
        *s = (struct dl_slot){.used = true, .role = role, .id = id, .tid = gettid(),
                              .wait = wait_self_id >= 0 ? wait_self : NULL};
        atomic_store_explicit(&s->phase, "start", memory_order_relaxed);
        dl_self = s;
    }
    pthread_mutex_unlock(&dl_lock);
}

void deadline_leave(void)
{
    if (!dl_self)
        return;
    pthread_mutex_lock(&dl_lock);
    dl_self->used = false;
    pthread_mutex_unlock(&dl_lock);
    dl_self = NULL;
}

bool deadline_set_hang(const char *spec, char *err, unsigned errlen)
{
    const char *colon = strchr(spec, ':');
    size_t rl = colon ? (size_t)(colon - spec) : 0;
    for (size_t r = 0; colon && r < sizeof(dl_phases) / sizeof(dl_phases[0]); r++) {
        if (strlen(dl_phases[r][0]) != rl || strncmp(dl_phases[r][0], spec, rl) != 0)
            continue;
        for (int p = 1; dl_phases[r][p]; p++)
            if (strcmp(dl_phases[r][p], colon + 1) == 0) {
                snprintf(dl_hang_role, sizeof(dl_hang_role), "%s", dl_phases[r][0]);
                snprintf(dl_hang_phase, sizeof(dl_hang_phase), "%s", dl_phases[r][p]);
                return true;
            }
    }
    snprintf(err, errlen,
             "--hang-in: '%s' is no ROLE:PHASE pair (main:load ... main:exit, loader:load, "
             "worker:generate|ready|run|paused|exit, reserver:sample|reserve, backup:recover)",
             spec);
    return false;
}

/* --hang-in's thread blocks here for good. Not static, so its name shows in backtraces
 * (the binaries link with -rdynamic); declared here only, as nothing else calls it. */
void deadline_hang(void);
__attribute__((noinline)) void deadline_hang(void)
{
    for (;;)
        sleep(1000);
}

void deadline_phase(const char *phase)
{
    if (!dl_self)
        return;
    atomic_store_explicit(&dl_self->phase, phase, memory_order_relaxed);
    if (*dl_hang_role && strcmp(dl_self->role, dl_hang_role) == 0 &&
        strcmp(phase, dl_hang_phase) == 0 &&
        !atomic_exchange_explicit(&dl_hang_taken, true, memory_order_relaxed))
        deadline_hang();
}

static bool counted(const char *phase)
{
    return strcmp(phase, "load") == 0 || strcmp(phase, "generate") == 0;
}

/* Thread tid's backtrace, written by the thread itself (the calling thread's directly). */
static void backtrace_of(FILE *f, pid_t tid)
{
    fflush(f);
    if (tid == gettid()) {
        void *pc[DL_FRAMES];
        backtrace_symbols_fd(pc, backtrace(pc, DL_FRAMES), STDERR_FILENO);
        return;
    }
    unsigned before = atomic_load_explicit(&dl_answers, memory_order_relaxed);
    /* tgkill, not pthread_kill: a thread that has exited since is ESRCH, not undefined */
    if (syscall(SYS_tgkill, getpid(), tid, DL_SIGNAL) != 0) {
        fputs("    (no backtrace: the thread has exited)\n", f);
        return;
    }
    double until = clock_now_s() + DL_ANSWER_S;
    /* acquire: pairs with the handler's release; its lines are written then */
    while (atomic_load_explicit(&dl_answers, memory_order_acquire) == before) {
        if (clock_now_s() > until) {
            fprintf(f, "    (no backtrace within %.0f s)\n", DL_ANSWER_S);
            return;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

/* The kernel's view of thread tid, which asks nothing of the thread (one that the CPU's
 * other threads starve answers no signal in time): its state (R runnable, S sleeping, D
 * an uninterruptible wait), its CPU time so far and, where the kernel shows it, the
 * function it sleeps in. Read before its backtrace is asked for. */
static void kernel_view(FILE *f, pid_t tid)
{
    char path[64], buf[1024], wchan[64] = "";
    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
    FILE *s = fopen(path, "r");
    size_t len = s ? fread(buf, 1, sizeof(buf) - 1, s) : 0;
    if (s)
        fclose(s);
    buf[len] = '\0';
    /* "tid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
     * utime stime ...": comm may hold spaces and parentheses, so fields start after the
     * last ')' */
    const char *p = strrchr(buf, ')');
    char state;
    unsigned long long utime, stime;
    if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state,
                     &utime, &stime) != 3) {
        fputs("    kernel: (no stat in /proc: the thread has exited?)\n", f);
        return;
    }
    snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", (int)tid);
    if ((s = fopen(path, "r"))) {
        if (!fgets(wchan, sizeof(wchan), s) || strcmp(wchan, "0") == 0)
            wchan[0] = '\0';
        fclose(s);
    }
    fprintf(f, "    kernel: state %c, %.2f s of CPU%s%s\n", state,
            (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK), *wchan ? ", in " : "",
            wchan);
}

/* A slot as the report saw it (copied under dl_lock). */
struct dl_seen {
    const char *role;
    int id;
    const struct wait_rec *wait;
    pid_t tid;
    const char *phase;
};

static void report_slot(FILE *f, const struct dl_seen *s)
{
    fprintf(f, "  %s", s->role);
    if (s->id >= 0)
        fprintf(f, " %d", s->id);
    fprintf(f, " (tid %d, phase %s)", (int)s->tid, s->phase);
    if (s->wait) {
        fputs(": ", f);
        watchdog_print_wait(f, s->wait);
    }
    fputs("\n", f);
    kernel_view(f, s->tid);
    backtrace_of(f, s->tid);
}

void deadline_report_threads(FILE *f)
{
    /* The slots are copied under dl_lock and the lock let go before any backtrace is
     * asked for (each may take DL_ANSWER_S): a thread that enters or leaves meanwhile
     * does not wait on the lock for the whole report, so its backtrace shows where it
     * was, not deadline_enter. (Holding it, a 64-thread run on 2 CPUs once showed 24
     * starting workers all blocked in deadline_enter.) A thread that entered after the
     * copy is reported as unnamed. dl_report_lock keeps two reports (the run's timeout,
     * a stall) from interleaving. */
    struct dl_seen seen[DL_SLOTS];
    int n = 0;
    pthread_mutex_lock(&dl_report_lock);
    pthread_mutex_lock(&dl_lock);
    for (int i = 0; i < DL_SLOTS; i++)
        if (slots[i].used)
            seen[n++] = (struct dl_seen){
                .role = slots[i].role,
                .id = slots[i].id,
                .wait = slots[i].wait,
                .tid = slots[i].tid,
                .phase = atomic_load_explicit(&slots[i].phase, memory_order_relaxed)};
    pthread_mutex_unlock(&dl_lock);
    fputs("the threads, each with its backtrace (BINARY(+0xOFFSET): addr2line -f -e BINARY "
          "0xOFFSET names a static function):\n",
          f);
    for (int i = 0; i < n; i++)
        report_slot(f, &seen[i]);
    /* threads without a slot: an algorithm's own (Silo's epoch thread), a library's */
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        pid_t tid = (pid_t)atoi(e->d_name);
        bool known = tid <= 0 || tid == atomic_load_explicit(&dl_watch_tid, memory_order_relaxed);
        for (int i = 0; i < n && !known; i++)
            known = seen[i].tid == tid;
        if (known)
            continue;
        fprintf(f, "  unnamed thread (tid %d)\n", (int)tid);
        kernel_view(f, tid);
        backtrace_of(f, tid);
    }
    if (d)
        closedir(d);
    fflush(f);
    pthread_mutex_unlock(&dl_report_lock);
}

/* A report starts on a line of its own: a terminal may show a progress line, which
 * belongs to the main thread (progress.h), so it is ended, not erased. */
static void end_progress_line(void)
{
    if (isatty(STDERR_FILENO))
        fputc('\n', stderr);
}

static void *watch_main(void *arg)
{
    (void)arg;
    atomic_store_explicit(&dl_watch_tid, gettid(), memory_order_relaxed);
    const char *last_phase = NULL;
    uint64_t last_count = 0;
    double since = clock_now_s(), last = since;
    for (;;) {
        nanosleep(&(struct timespec){0, DL_POLL_NS}, NULL);
        double now = clock_now_s();
        since += watchdog_unwatched_s(now - last, dl_stall_s); /* not the run's timeout */
        last = now;
        if (now - dl_start_s >= dl_timeout_s) {
            end_progress_line();
            fprintf(stderr,
                    "run timeout: the run did not end within %.1f s (--run-timeout %g); it "
                    "is in phase %s; ",
                    now - dl_start_s, dl_timeout_s,
                    atomic_load_explicit(&dl_main->phase, memory_order_relaxed));
            deadline_report_threads(stderr);
            _exit(3); /* the threads still run: no exit handlers, no destructors under them */
        }
        const char *ph = atomic_load_explicit(&dl_main->phase, memory_order_relaxed);
        uint64_t c = progress_count();
        if (ph != last_phase || c != last_count) {
            last_phase = ph;
            last_count = c;
            since = now;
        } else if (dl_stall_s > 0 && counted(ph) && now - since >= dl_stall_s) {
            end_progress_line();
            fprintf(stderr,
                    "stall: no progress in phase %s for %.1f s (--stall-timeout %g, %llu "
                    "units done); ",
                    ph, now - since, dl_stall_s, (unsigned long long)c);
            deadline_report_threads(stderr);
            _exit(3);
        }
    }
    return NULL;
}

void deadline_start(double timeout_s, double stall_timeout_s)
{
    dl_timeout_s = timeout_s;
    dl_stall_s = stall_timeout_s;
    dl_start_s = clock_now_s();
    void *pc[1];
    backtrace(pc, 1); /* loads libgcc now, not in a signal handler */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_backtrace_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(DL_SIGNAL, &sa, NULL);
    deadline_enter("main", -1);
    dl_main = dl_self;
    pthread_t th;
    if (dl_main == NULL || pthread_create(&th, NULL, watch_main, NULL) != 0) {
        fprintf(stderr, "rundb: cannot start the run watchdog\n");
        exit(1);
    }
    pthread_detach(th);
}
