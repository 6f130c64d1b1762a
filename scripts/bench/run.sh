#!/usr/bin/env bash
# Benchmarks, side by side in one run: dist (release build) against CPython for
# the language workloads, and against TensorFlow/numpy (the oracle's venv) for
# the tensor ones. Usage: scripts/bench/run.sh [--no-tf]
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet
dist=target/release/dist

# Wall time of a command, best of 3, in milliseconds.
best_ms() {
    python3 - "$@" <<'PY'
import subprocess, sys, time
best = float("inf")
for _ in range(3):
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
    best = min(best, time.perf_counter() - t)
print(f"{best * 1000:.1f}")
PY
}

echo "== language (wall ms, best of 3; process start included)"
printf '%-18s %10s %10s\n' workload dist python3
for f in scripts/bench/lang/*.dist; do
    name=$(basename "$f" .dist)
    printf '%-18s %10s %10s\n' "$name" "$(best_ms "$dist" run "$f")" "$(best_ms python3 "$f")"
done

# The same workloads timed inside each process (no start-up counted).
echo
echo "== language in-process (ms, best of 5; scripts/bench/lang_inprocess.dist)"
printf '%-18s %10s %10s\n' workload dist python3
# One after the other (not side by side: they would share the cores).
inproc_dist=$("$dist" run scripts/bench/lang_inprocess.dist)
inproc_py=$(python3 scripts/bench/lang_inprocess.dist)
paste <(echo "$inproc_dist") <(echo "$inproc_py") |
    awk '{printf "%-18s %10s %10s\n", $1, $2, $5}'

# One script under dist, then under the oracle (unless --no-tf).
side_by_side() {
    local title=$1 tf_name=$2 file=$3
    echo
    echo "== $title: dist"
    "$dist" run "$file"
    if [ "$no_tf" != 1 ]; then
        echo
        echo "== $title: $tf_name (the oracle)"
        ../shared/oracle/tf "$file"
    fi
}
no_tf=0
[ "${1:-}" = "--no-tf" ] && no_tf=1

side_by_side tensors "TensorFlow 2.21 + numpy" scripts/bench/tensor_ops.dist
side_by_side "layout ops" "TensorFlow 2.21" scripts/bench/layout_ops.dist
side_by_side convolutions "TensorFlow 2.21" scripts/bench/conv_step.dist
# The Strategy runtime (4 virtual GPUs, from the script's `# dist:` line).
side_by_side strategy "TensorFlow 2.21" scripts/bench/strategy.dist

# strategy.reduce again, 30 samples each, alternating tools (its single
# best-of-5 sample above moves by a third between runs on this machine).
echo
echo "== strategy.reduce, best and median of 30 (scripts/bench/reduce_median.dist)"
for _ in 1 2; do
    echo "dist: $("$dist" run scripts/bench/reduce_median.dist)"
    if [ "$no_tf" != 1 ]; then
        echo "tf:   $(../shared/oracle/tf scripts/bench/reduce_median.dist)"
    fi
done
