"""Runs every `>>>` example of TensorFlow 2.21's public docstrings through
`dist doctest --tf-checker` and summarizes what fails, grouped by the first
failure of each docstring: the map of where dist falls short of TensorFlow's
own documentation (a measurement, not a test: the expected outputs are the
docstrings' own, which TensorFlow's doc checker compares loosely, and some
examples rely on globals of their module or on virtual GPUs).

    ~/.cache/dist-oracle/venv/bin/python tools/tf_docstring_sweep.py OUTDIR [DIST]

Writes OUTDIR/NAME.txt (one docstring each: `tf.nest.flatten.txt`) and
OUTDIR/NAME.rep (dist's report), then prints the totals, the names dist
reports NotImplementedError for most often, and the docstrings whose first
failure is some other exception or a wrong output.
"""
import collections
import inspect
import os
import re
import subprocess
import sys
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

# copies of the API, Keras's own docs, and what dist leaves out by design
SKIP = ("tf.compat", "tf.keras", "tf.experimental.dtensor", "tf.raw_ops",
        "tf.experimental.numpy", "tf.lite", "tf.tpu", "tf.xla", "tf.mlir",
        "tf.experimental.tensorrt")


def docstrings():
    seen, out = set(), {}

    def visit(mod, path, depth):
        if depth > 3:
            return
        for n in dir(mod):
            if n.startswith("_"):
                continue
            try:
                v = getattr(mod, n)
            except Exception:
                continue
            p = f"{path}.{n}"
            if isinstance(v, types.ModuleType):
                if not p.startswith(SKIP):
                    visit(v, p, depth + 1)
                continue
            if id(v) in seen:
                continue
            seen.add(id(v))
            docs = [(p, inspect.getdoc(v) or "")]
            if inspect.isclass(v):
                for m, f in vars(v).items():
                    if m.startswith("_") and m not in ("__init__", "__getitem__", "__call__"):
                        continue
                    d = getattr(f, "__doc__", None)
                    if isinstance(d, str):
                        docs.append((f"{p}.{m}", inspect.cleandoc(d)))
            for name, d in docs:
                if ">>>" in d:
                    out[name] = d

    visit(tf, "tf", 0)
    return out


def first_failure(report):
    for block in report.split("*" * 70):
        if "Failed example" not in block:
            continue
        if "Exception raised" in block:
            lines = [l.strip() for l in block.strip().splitlines() if l.strip()]
            return lines[-1]
        return "wrong output"
    return None


def main():
    outdir = sys.argv[1]
    dist = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "dist")
    os.makedirs(outdir, exist_ok=True)
    passed = failed = 0
    missing = collections.Counter()
    other = []
    for name, doc in sorted(docstrings().items()):
        txt = os.path.join(outdir, name + ".txt")
        with open(txt, "w") as f:
            f.write(doc + "\n")
        try:
            r = subprocess.run([dist, "doctest", "--tf-checker", txt], capture_output=True,
                               text=True, timeout=60)
            report = r.stdout + r.stderr
        except subprocess.TimeoutExpired:
            report = "timed out\n"
        with open(os.path.join(outdir, name + ".rep"), "w") as f:
            f.write(report)
        m = re.search(r"(\d+) passed, (\d+) failed", report)
        if m:
            passed += int(m.group(1))
            failed += int(m.group(2))
        missing.update(re.findall(r"NotImplementedError: (\S+) is part of", report))
        first = first_failure(report)
        if first and "NotImplementedError" not in first and "NameError" not in first:
            other.append((name, first[:160]))
    print(f"{passed} examples passed, {failed} failed")
    print("\nmost reported NotImplementedError names:")
    for n, c in missing.most_common(30):
        print(f"  {c:4d} {n}")
    print("\nfirst failure neither a missing name nor a module global:")
    for name, first in other:
        print(f"  {name}: {first}")


if __name__ == "__main__":
    main()
