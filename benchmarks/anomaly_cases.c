/* The anomaly matrix's cases (benchmarks/anomaly.h has the script language): after Adya's
 * and Berenson et al.'s definitions as Hermitage names them, plus the read-modify-write
 * forms the algorithm families handle differently. Rows start at x = 10, y = 20; range A
 * holds one row (value 30), range B one row (40). Each case names the weakest level that
 * must prevent it (docs/anomalies.md, "Levels"): read committed (Adya's PL-2: G0, G1a-c);
 * repeatable read as this project defines it for RCC (docs/algorithms.md: PL-2, plain
 * reads as at RC, write-write dependencies tracked for what a transaction reads for
 * update: no lost update through read for update, P4-rfu); serializable (the rest, the
 * lost updates through plain reads among them). */
#include "benchmarks/anomaly.h"

const struct an_case an_cases[] = {
    /* write cycle: x ordered T1 -> T2, y ordered T2 -> T1 */
    {"G0", CC_LEVEL_RC, true, "T1 w x 11; T2 w x 12; T2 w y 22; T1 w y 21; T1 c; T2 c",
     "x=12 y=21"},
    /* the same cycle with the writes crossed: under locking, a deadlock to resolve */
    {"G0-cross", CC_LEVEL_RC, true, "T1 w x 11; T2 w y 22; T1 w y 21; T2 w x 12; T1 c; T2 c",
     "x=12 y=21"},
    /* aborted read: T2 reads T1's write and commits; T1 then rolls back */
    {"G1a", CC_LEVEL_RC, true, "T1 w x 101; T1 l x; T2 r x; T2 c; T1 a", "s3=101"},
    /* intermediate read: T2 reads a value T1 overwrites before it commits */
    {"G1b", CC_LEVEL_RC, true, "T1 w x 101; T2 r x; T1 w x 11; T1 c; T2 r x; T2 c", "s2=101"},
    /* circular information flow: each reads the other's write */
    {"G1c", CC_LEVEL_RC, true, "T1 w x 11; T1 l x; T2 w y 22; T2 l y; T1 r y; T2 r x; T1 c; T2 c",
     "s5=22 s6=11"},
    /* observed transaction vanishes: T3 sees T1's x, then T2's y (T2 overwrote both) */
    {"OTV", CC_LEVEL_SER, true,
     "T1 w x 11; T1 w y 19; T1 c; T3 ro; T3 r x; T2 w x 12; T2 w y 18; T2 c; T3 r y; T3 c",
     "s5=11 s9=18"},
    /* predicate many preceders: T1's second scan sees the row T2 inserted and committed */
    {"PMP", CC_LEVEL_SER, true, "T1 scan A; T2 ins A 50; T2 c; T1 scan A; T1 c", "s4=2"},
    /* the same with a delete: T1's second scan misses the row T2 deleted */
    {"PMP-delete", CC_LEVEL_SER, true, "T1 scan A; T2 del A; T2 c; T1 scan A; T1 c", "s4=0"},
    /* lost update: both read 10, both write */
    {"P4", CC_LEVEL_SER, true, "T1 r x; T2 r x; T1 w x 11; T2 w x 11; T1 c; T2 c",
     "s1=10 s2=10"},
    /* lost update through SELECT FOR UPDATE */
    {"P4-rfu", CC_LEVEL_RR, true, "T1 rfu x; T2 rfu x; T1 w x 11; T2 w x 11; T1 c; T2 c",
     "s1=10 s2=10"},
    /* plain read, then read for update: T2's write rests on its plain read of 10 */
    {"P4-upgrade", CC_LEVEL_SER, true,
     "T1 r x; T2 r x; T1 rfu x; T1 w x 11; T1 c; T2 rfu x; T2 w x 11; T2 c", "s1=10 s2=10"},
    /* read, a blind write of another commits, then the write: r1(x) w2(x) c2 w1(x) c1 */
    {"P4-blind", CC_LEVEL_SER, true, "T1 r x; T2 w x 12; T2 c; T1 w x 11; T1 c", "s1=10 x=11"},
    /* read skew: T1 sees x before T2 and y after it */
    {"G-single", CC_LEVEL_SER, true,
     "T1 ro; T1 r x; T2 r x; T2 r y; T2 w x 12; T2 w y 18; T2 c; T1 r y; T1 c", "s2=10 s8=18"},
    /* write skew: each reads both rows, writes one the other read */
    {"G2-item", CC_LEVEL_SER, true, "T1 r x; T1 r y; T2 r x; T2 r y; T1 w x 11; T2 w y 21; T1 c; T2 c",
     "s1=10 s2=20 s3=10 s4=20"},
    /* read skew over a commit in progress: T2 sees T1's write of x, then misses the row T1
     * inserted, while T1's commit stands where it publishes its inserts (a commit must
     * publish while it still excludes readers of what it wrote: cc/cc.h, cc_commit) */
    {"G-single-ins", CC_LEVEL_SER, true, "T1 w x 11; T1 l x; T1 ins A 31; T1 cp; T2 r x; T2 get A 2; T2 c",
     "s5=11 s6=0"},
    /* the same with a delete: T2 sees T1's x, then still finds the row T1 deleted */
    {"G-single-del", CC_LEVEL_SER, true, "T1 w x 11; T1 l x; T1 del A; T1 cp; T2 r x; T2 get A 1; T2 c",
     "s5=11 s6=30"},
    /* anti-dependency cycle over predicates: each scans one range, inserts into the other */
    {"G2", CC_LEVEL_SER, true, "T1 scan A; T2 scan B; T1 ins B 41; T2 ins A 31; T1 c; T2 c",
     "s1=1 s2=1"},
};
const int an_ncases = (int)(sizeof(an_cases) / sizeof(an_cases[0]));
