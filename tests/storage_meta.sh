#!/usr/bin/env bash
# A run on the storage model that must pass --verify and show where the algorithm keeps
# its timestamps: `on` = metadata on storage (the row store of a timestamp-ordering
# variant: metadata reads per commit > 0), `off` = in memory (FPSketch, 2PL, OCC: none).
# Usage: tests/storage_meta.sh BINARY on|off [rundb flags...]
set -euo pipefail
bin=$1 want=$2
shift 2
line=$("$bin" --quiet "$@" | tail -n 1)
/usr/bin/python3 - "$want" "$line" <<'PY'
import json, sys
want, r = sys.argv[1], json.loads(sys.argv[2])
meta = r["storage"]["meta_reads_per_commit"]
ok = r["verify"]["ok"] and r["storage"]["ts_on_storage"] == (want == "on") and \
    (meta > 0 if want == "on" else meta == 0)
print(f"{r['variant']}: verify ok {r['verify']['ok']}, ts_on_storage {r['storage']['ts_on_storage']}, "
      f"metadata reads per commit {meta:.3f} (want {want})")
sys.exit(0 if ok else 1)
PY
