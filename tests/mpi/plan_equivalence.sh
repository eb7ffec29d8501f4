#!/bin/sh
# plan_equivalence.sh MPIEXEC BENCH: a plan file and the equivalent flags
# give the same result document apart from timings (2 ranks).
set -eu
mpiexec=$1 bench=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/plan.json" <<JSON
{"ops": ["bcast", "barrier", "allreduce"], "sizes": [8, 1024], "methods": ["window", "bcast-supinski"],
 "cache": ["warm"], "k": 8, "max_launches": 40, "root": 1, "dtype": "int", "reduce_op": "max",
 "op_options": {"datatype": "bytes"}, "meta": {"origin": "test"}, "shuffle": 7,
 "out": "$dir/plan.out.json", "force": true}
JSON
"$mpiexec" -n 2 "$bench" --plan "$dir/plan.json"
"$mpiexec" -n 2 "$bench" --ops bcast,barrier,allreduce --sizes 8,1024 --method window,bcast-supinski \
    --cache warm --k 8 --max-launches 40 --root 1 --dtype int --reduce-op max --op-option datatype=bytes \
    --meta origin=test --shuffle 7 --out "$dir/flags.out.json" --force
python3 - "$dir/plan.out.json" "$dir/flags.out.json" <<'PY'
import json, sys
# What the plan decides (never what the clock measured: t_bcast and the
# automatic late tolerance come from timings).
POINT = ("op", "method", "cache", "size_bytes", "actual_bytes", "nprocs", "root", "dtype", "reduce_op",
         "options", "confidence")
def plan_view(doc):
    return {"method": {k: v for k, v in doc["method"].items() if k not in ("t_bcast_ns", "late_tolerance_ns")},
            "varied": doc["varied"], "methods": doc["methods"], "status": doc["status"],
            "origin": doc["environment"].get("origin"),
            "points": [{k: p.get(k) for k in POINT} for p in doc["points"]]}
a, b = (plan_view(json.load(open(path))) for path in sys.argv[1:3])
if a != b:
    sys.exit(f"plan and flags differ:\n{json.dumps(a, indent=1)}\n{json.dumps(b, indent=1)}")
print(f"same plan: {len(a['points'])} points")
PY
