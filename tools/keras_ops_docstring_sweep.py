"""Runs the `>>>` examples of Keras 3.15's `keras.ops` docstrings (the
public functions of `keras.ops` and of its submodules `numpy`, `nn`,
`linalg`, `image`) through `dist doctest --tf-checker`, with expected outputs
from the oracle: a measurement of how much of `keras.ops` dist has.

    ~/.cache/dist-oracle/venv/bin/python tools/keras_ops_docstring_sweep.py OUTDIR [DIST]
    ~/.cache/dist-oracle/venv/bin/python tools/keras_ops_docstring_sweep.py --rerun [--exact] OUTDIR [DIST]

The docstrings' own outputs are numpy-style (`array([6, 10], dtype=int32)`),
not what Keras on TensorFlow prints, so they are thrown away: OUTDIR gets one
`.dist` file per Keras source module (`keras_ops_numpy.dist` ...), whose
module code imports keras, numpy and tensorflow and binds the names the
examples use bare (`one_hot(x, ...)`), and whose functions, one per public
name, carry the examples as docstrings; `tools/fill_doctests.py` then fills
their outputs with what the oracle prints (an example that raises under real
Keras expects its exception). `--rerun` skips the extraction and the oracle
and runs dist on the files already there; `--exact` compares as CPython's
doctest does instead of with `--tf-checker` (for which the blank lines inside
an expected output are left out, as TensorFlow's doctests, run with
NORMALIZE_WHITESPACE and DONT_ACCEPT_BLANKLINE, write them).

Prints passes and failures per file and in all, the names dist reports
NotImplementedError for, and each docstring's first failure.
"""
import collections
import inspect
import os
import re
import subprocess
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = ("keras.ops", "keras.ops.numpy", "keras.ops.nn", "keras.ops.linalg",
           "keras.ops.image")
SETUP = (
    "import keras\n"
    "import numpy as np\n"
    "import tensorflow as tf\n"
    "try:\n"
    "    from keras import ops\n"
    "except Exception:\n"
    "    pass\n"
)


def docstrings():
    """{source module's last name: [(public name, docstring examples)]}."""
    import keras  # noqa: F401  (imported here: the --rerun path needs no TF)

    seen, groups = set(), collections.defaultdict(list)
    for modname in MODULES:
        mod = eval(modname)
        for n in sorted(dir(mod)):
            v = getattr(mod, n)
            if n.startswith("_") or isinstance(v, types.ModuleType) or id(v) in seen:
                continue
            seen.add(id(v))
            doc = inspect.getdoc(v) or ""
            if ">>>" not in doc:
                continue
            src = getattr(v, "__module__", "") or ""
            groups[src.rsplit(".", 1)[-1]].append((f"{modname}.{n}", n, doc))
    return groups


def examples(doc):
    """The `>>>` examples of a docstring: [(source lines)]."""
    found, lines, i = [], doc.split("\n"), 0
    while i < len(lines):
        s = lines[i].strip()
        if not (s.startswith(">>> ") or s == ">>>"):
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        src = [lines[i][indent:]]
        i += 1
        while i < len(lines) and lines[i][indent:].startswith("..."):
            src.append(lines[i][indent:])
            i += 1
        found.append(src)
    return found


def raises(namespace, src):
    """Whether an example raises under real Keras (then it expects its
    exception); None when it is not Python (a typo in Keras's docstring)."""
    code = "\n".join(l[4:] for l in src)
    try:
        compiled = compile(code, "<example>", "single")
    except SyntaxError:
        try:
            compiled = compile(code, "<example>", "exec")
        except SyntaxError:
            return None
    try:
        exec(compiled, namespace)
    except Exception:
        return True
    return False


def write_files(outdir):
    import contextlib
    import io

    import numpy as np
    import tensorflow as tf

    import keras

    paths = []
    for group, docs in sorted(docstrings().items()):
        body = [f"# `>>>` examples of keras.src.ops.{group}'s public docstrings", SETUP]
        for full, name, doc in docs:
            mod = full.rsplit(".", 1)[0]
            body.append(f"try:\n    {name} = {mod}.{name}\nexcept Exception:\n    pass\n")
        namespace = {"keras": keras, "np": np, "tf": tf, "ops": keras.ops}
        for full, name, doc in docs:
            namespace[name] = eval(full, {"keras": keras})
            func = "def " + full.replace(".", "_") + "():\n    r\"\"\"" + full + "\n\n"
            for src in examples(doc):
                if all(l[4:].strip().startswith("#") or not l[4:].strip() for l in src):
                    continue  # a comment alone: no example
                with contextlib.redirect_stdout(io.StringIO()):
                    bad = raises(namespace, src)
                if bad is None:
                    continue
                func += "".join(f"    {l}\n" for l in src)
                if bad:
                    func += "    Traceback (most recent call last):\n"
                func += "\n"
            body.append(func + "    \"\"\"\n")
        path = os.path.join(outdir, f"keras_ops_{group}.dist")
        with open(path, "w") as f:
            f.write("\n".join(body))
        paths.append(path)
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import fill_doctests

    for p in paths:
        try:
            fill_doctests.fill(p)
        except SystemExit as e:
            print(f"{p}: not filled: {e}")
    return paths


def main():
    args = sys.argv[1:]
    rerun = args and args[0] == "--rerun"
    if rerun:
        args = args[1:]
    # `--exact`: CPython's doctest comparison instead of TensorFlow's checker
    checker = ["--tf-checker"]
    if args and args[0] == "--exact":
        checker = []
        args = args[1:]
    outdir = args[0]
    dist = args[1] if len(args) > 1 else os.path.join(ROOT, "target", "release", "dist")
    os.makedirs(outdir, exist_ok=True)
    if rerun:
        paths = sorted(os.path.join(outdir, p) for p in os.listdir(outdir)
                       if p.endswith(".dist"))
    else:
        paths = write_files(outdir)
    total_p = total_f = 0
    missing = collections.Counter()
    firsts = []
    docs = 0
    for p in paths:
        if checker:
            # TensorFlow's doctests run with NORMALIZE_WHITESPACE and
            # DONT_ACCEPT_BLANKLINE: the blank lines inside an output are
            # left out of its expectation (a copy under OUTDIR/tf/)
            os.makedirs(os.path.join(outdir, "tf"), exist_ok=True)
            with open(p) as f:
                text = "".join(l for l in f if l.strip() != "<BLANKLINE>")
            p = os.path.join(outdir, "tf", os.path.basename(p))
            with open(p, "w") as f:
                f.write(text)
        r = subprocess.run([dist, "doctest", *checker, p], capture_output=True,
                           text=True, timeout=1200)
        report = r.stdout + r.stderr
        with open(p) as f:
            docs += f.read().count("\ndef keras_ops_")
        with open(p[:-5] + ".rep", "w") as f:
            f.write(report)
        m = re.search(r"(\d+) passed, (\d+) failed", report)
        passed, failed = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        total_p += passed
        total_f += failed
        print(f"{os.path.basename(p)}: {passed} passed, {failed} failed")
        missing.update(re.findall(r"NotImplementedError: (\S+) is part of", report))
        seen = set()
        for block in report.split("*" * 70):
            m = re.search(r"File .*?, line \d+, in (\S+)", block)
            if not m or m.group(1) in seen or "Failed example" not in block:
                continue
            seen.add(m.group(1))
            lines = [l.strip() for l in block.strip().splitlines() if l.strip()]
            why = lines[-1] if "Exception raised" in block else "wrong output"
            firsts.append((m.group(1), why[:150]))
    print(f"\n{total_p} examples passed, {total_f} failed; "
          f"{docs - len(firsts)} of {docs} docstrings pass whole")
    print("\nNotImplementedError names:")
    for n, c in missing.most_common():
        print(f"  {c:4d} {n}")
    print("\nfirst failure of each docstring:")
    for name, why in firsts:
        print(f"  {name}: {why}")


if __name__ == "__main__":
    main()
