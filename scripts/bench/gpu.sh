#!/usr/bin/env bash
# The GPU check, in one run on a machine with an NVIDIA GPU and a CUDA 12
# driver (written for an H200): find or install the CUDA user-space
# libraries, build, run the golden suite with real GPU placement
# (DIST_GPU_BACKEND=cuda: every `--virtual-gpus N` case runs on the card),
# the device parity tests, the NVRTC test, then the benchmarks. Everything
# goes to $OUT (default target/gpu-check): gpu-check.md (summary, ready to
# paste into BENCHMARKS.md) and one log per step.
#
#   scripts/bench/gpu.sh              # the whole check
#   scripts/bench/gpu.sh --prepare    # on a machine without GPU/network: build
#                                     # the binaries into target/gpu-bins to carry
#
# Libraries: libcuda comes with the driver. libnvrtc.so.12, libcublas.so.12
# (+ libcublasLt.so.12) and libnccl.so.2 are looked for in $DIST_CUDA_LIBS
# (colon-separated dirs), target/cuda-libs (pip --target), python3's
# site-packages (nvidia/*/lib), /usr/local/cuda/lib64 and the ld cache;
# if missing, pip installs the wheels nvidia-cuda-nvrtc-cu12,
# nvidia-cublas-cu12, nvidia-nccl-cu12 into target/cuda-libs (needs network;
# offline, carry that directory or point DIST_CUDA_LIBS at the libraries).
# No cargo on the machine: binaries from `--prepare` in target/gpu-bins are used.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
# DIST_GPU_PROFILE=dev builds faster (the kernels run the same; host-side code is slower)
profile=${DIST_GPU_PROFILE:-release}
pdir=$([ "$profile" = dev ] && echo debug || echo "$profile")

if [ "${1:-}" = "--prepare" ]; then
    cargo build --profile "$profile" --bins --tests || exit 1
    mkdir -p target/gpu-bins
    cp "target/$pdir/dist" target/gpu-bins/
    # the test binaries find the goldens through the path they were built at
    echo "$root" >target/gpu-bins/root.txt
    for t in golden device_ops cuda_kernels cuda_bench; do
        bin=$(ls -t target/"$pdir"/deps/"$t"-* 2>/dev/null | grep -v '\.d$' | head -1)
        [ -n "$bin" ] && cp "$bin" "target/gpu-bins/$t"
    done
    ls -la target/gpu-bins
    du -sh target/gpu-bins
    exit 0
fi

OUT=${OUT:-$root/target/gpu-check}
mkdir -p "$OUT"
summary=$OUT/gpu-check.md
: >"$summary"
say() { printf '%s\n' "$*" | tee -a "$summary"; }
status=0

say "# dist GPU check, $(date -u '+%Y-%m-%d %H:%M UTC')"
say ""
say "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if command -v nvidia-smi >/dev/null 2>&1; then
    say "driver: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)"
    say "$(nvidia-smi | grep -o 'CUDA Version: [0-9.]*' | head -1)"
fi

# ---- CUDA user-space libraries ----
libdir=$root/target/gpu-check-lib
mkdir -p "$libdir"
candidates() {
    local IFS=:
    for d in ${DIST_CUDA_LIBS:-}; do [ -n "$d" ] && echo "$d"; done
    ls -d "$root"/target/cuda-libs/nvidia/*/lib 2>/dev/null
    python3 - <<'PY' 2>/dev/null
import glob, site, sys
for p in site.getsitepackages() + [site.getusersitepackages()]:
    for d in glob.glob(p + "/nvidia/*/lib"):
        print(d)
PY
    echo /usr/local/cuda/lib64
    echo /usr/lib/x86_64-linux-gnu
}
find_lib() { # name -> path of the first match
    local d
    while read -r d; do
        [ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
    done < <(candidates)
    ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n { print $NF; exit }'
}
need="libnvrtc.so.12 libcublas.so.12 libcublasLt.so.12 libnccl.so.2"
missing=""
for l in $need; do [ -z "$(find_lib "$l")" ] && missing="$missing $l"; done
if [ -n "$missing" ] && [ -z "${DIST_GPU_NO_PIP:-}" ]; then
    say "installing the CUDA wheels into target/cuda-libs (missing:$missing)"
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$root/target/cuda-libs" \
        nvidia-cuda-nvrtc-cu12 nvidia-cublas-cu12 nvidia-nccl-cu12 >"$OUT/pip.log" 2>&1 \
        || say "pip install failed (offline?): see pip.log; set DIST_CUDA_LIBS to the libraries' directories"
fi
for l in $need; do
    p=$(find_lib "$l")
    if [ -n "$p" ]; then
        ln -sf "$p" "$libdir/$l"
        say "library: $l -> $p"
    else
        say "library: $l NOT FOUND"
        status=1
    fi
done
# cudarc looks for libnccl.so (and .so.12/.so.1…), not NCCL's own .so.2
[ -e "$libdir/libnccl.so.2" ] && ln -sf "$libdir/libnccl.so.2" "$libdir/libnccl.so"
for l in $need; do
    p=$(readlink -f "$libdir/$l" 2>/dev/null) && export LD_LIBRARY_PATH="$(dirname "$p")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
export LD_LIBRARY_PATH="$libdir:${LD_LIBRARY_PATH:-}"

# ---- binaries ----
if command -v cargo >/dev/null 2>&1; then
    say ""
    say "building (cargo build --profile $profile --bins --tests)"
    if ! cargo build --profile "$profile" --bins --tests >"$OUT/build.log" 2>&1; then
        say "BUILD FAILED: see build.log"
        tail -30 "$OUT/build.log"
        exit 1
    fi
    dist=$root/target/$pdir/dist
    testbin() { echo "cargo test --profile $profile --test $1 --"; }
else
    say "no cargo: using the prepared binaries in target/gpu-bins"
    dist=$root/target/gpu-bins/dist
    testbin() { echo "$root/target/gpu-bins/$1"; }
    built_at=$(cat target/gpu-bins/root.txt 2>/dev/null || echo "$root")
    if [ "$built_at" != "$root" ] && [ ! -e "$built_at" ]; then
        mkdir -p "$(dirname "$built_at")" && ln -s "$root" "$built_at" \
            || say "cannot link $built_at -> $root: the golden binary will not find its cases"
    fi
fi
say ""
say '```'
"$dist" devices | tee -a "$summary"
"$dist" --gpu-backend=cuda --virtual-gpus 4 devices | head -5 | tee -a "$summary"
say '```'

# step NAME TIMEOUT COMMAND...: runs, logs to NAME.log, records pass/fail
step() {
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
    local rc=$?
    local verdict=ok
    [ $rc -ne 0 ] && { verdict="FAILED (exit $rc)"; status=1; }
    say "- $name: $verdict in $((SECONDS - t0)) s — \`$*\`"
    return $rc
}

say ""
say "## Tests on the GPU"
export DIST_CUDA_LOG_FALLBACKS=1
step device_ops 300 env DIST_REQUIRE_GPU=1 $(testbin device_ops)
step golden 600 env DIST_GPU_BACKEND=cuda $(testbin golden)
step cuda_kernels 300 env DIST_REQUIRE_NVRTC=1 $(testbin cuda_kernels)
grep -h "test result" "$OUT"/device_ops.log "$OUT"/golden.log "$OUT"/cuda_kernels.log 2>/dev/null | sed 's/^/  /' | tee -a "$summary"
say ""
say "Host fallbacks during the golden suite (op: count; each is an op with no device kernel):"
grep -ho "cuda fallback to host: .*" "$OUT/golden.log" | sed 's/cuda fallback to host: //' | sort | uniq -c | sort -rn | head -20 | sed 's/^/  /' | tee -a "$summary"
grep -A15 "^failures:" "$OUT/golden.log" | head -40 >"$OUT/golden-failures.txt"
unset DIST_CUDA_LOG_FALLBACKS

say ""
say "## Benchmarks"
step cuda_bench 300 $(testbin cuda_bench) --ignored --nocapture
grep -h "^bench:" "$OUT/cuda_bench.log" | sed 's/^bench: /- /' | tee -a "$summary"
step gpu_reduce 300 "$dist" --gpu-backend=cuda run scripts/bench/gpu_reduce.dist
sed 's/^/- /' "$OUT/gpu_reduce.log" | tee -a "$summary"

say ""
say "exit status: $status"
exit $status
