#!/usr/bin/env bash
# tests/overrun_test.sh BIN ARGS...: runs BIN ARGS --quiet, which must exit 0 and end within
# 5 s of its measured window: the result's "overrun_s" (end of the window until every
# worker stopped) must be below 5. Meant for heavily oversubscribed runs, where waits that
# ignore the end of the run once took tens of seconds (a paused VM may add a second or two
# to a correct run). Exit 1 (with the numbers) if not.
set -u
out=$("$@" --quiet 2>/dev/null)
rc=$?
if [ $rc -ne 0 ]; then
    echo "exit $rc: $*"
    exit 1
fi
overrun=$(printf '%s\n' "$out" | tail -n 1 | grep -o '"overrun_s":[0-9.]*' | cut -d: -f2)
if [ -z "$overrun" ] || ! awk -v o="$overrun" 'BEGIN { exit !(o < 5) }'; then
    echo "run ended ${overrun:-?} s after its window (want < 5 s): $*"
    exit 1
fi
echo "ended ${overrun} s after the window"
