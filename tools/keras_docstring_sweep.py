"""Runs every `>>>` example of Keras 3.15's public docstrings through
`dist doctest --tf-checker`, with the expected outputs the oracle prints
(real Keras on TensorFlow), and summarizes what fails: the map of where dist's
Keras falls short of Keras's own documentation (a measurement, not a test).

    ~/.cache/dist-oracle/venv/bin/python tools/keras_docstring_sweep.py OUTDIR [DIST] [--refill]

The docstrings' printed outputs are numpy-style and often not what Keras on
TensorFlow prints, so they are not used: each docstring is written to
OUTDIR/NAME.txt (`keras.layers.Dense.txt`) behind the imports Keras's examples
assume (`np`, `keras`, and `ops`/`layers`/`tf` where they are used), and its
expectations are filled by `tools/fill_doctests.py --as-raised` (an example
that raises under the oracle expects that exception; the `<BLANKLINE>`s it
writes are dropped, as TensorFlow's checker takes blank lines as whitespace).
Filling runs 25 docstrings per oracle process (`fill_keras_batch`: fresh
globals and `keras.backend.clear_session()` for each) and is done once: a later run reuses OUTDIR's filled files
(OUTDIR/NAME.filled marks them) unless `--refill` is given. Docstrings the
oracle cannot run at all (OUTDIR/NAME.oracle holds why) are counted apart.

Each file's report goes to OUTDIR/NAME.rep. Printed: the totals, the failed
examples that use `keras.ops` (counted apart: keras.ops is not part of this
sweep's scope), and the other failed examples grouped by their failure (the
exception's last line, NotImplementedError names, or `wrong output`), most
frequent first, with the docstrings they occur in.
"""
import collections
import inspect
import os
import re
import subprocess
import sys
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Keras's implementation, and keras.ops (outside this sweep's scope)
SKIP = ("keras.src", "keras.ops")


def docstrings():
    seen, out = set(), {}

    def visit(mod, path, depth):
        if depth > 4:
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
                if not p.startswith(SKIP) and v.__name__.startswith("keras"):
                    visit(v, p, depth + 1)
                continue
            if id(v) in seen:
                continue
            seen.add(id(v))
            docs = [(p, inspect.getdoc(v) or "")]
            if inspect.isclass(v):
                for m, f in vars(v).items():
                    if m.startswith("_") and m not in ("__init__", "__call__"):
                        continue
                    d = getattr(f, "__doc__", None)
                    if isinstance(d, str):
                        docs.append((f"{p}.{m}", inspect.cleandoc(d)))
            for name, d in docs:
                if ">>>" in d:
                    out[name] = d

    visit(keras, "keras", 0)
    return out


def preamble(doc):
    """The imports Keras's examples take for granted, as doctest lines."""
    lines = [">>> import numpy as np", ">>> import keras"]
    if re.search(r"(?<![\w.])tf\.", doc):
        lines.append(">>> import tensorflow as tf")
    if re.search(r"(?<![\w.])ops\.", doc):
        lines.append(">>> from keras import ops")
    if re.search(r"(?<![\w.])layers\.", doc):
        lines.append(">>> from keras import layers")
    return "\n".join(lines) + "\n\n"


def uses_ops(source):
    return re.search(r"(?<![\w])(keras\.)?ops\.|import ops", source) is not None


def failures(report):
    """(example source, failure) of each failed example of a report."""
    found = []
    for block in report.split("*" * 70):
        if "Failed example:" not in block:
            continue
        body = block.split("Failed example:", 1)[1]
        m = re.split(r"\n(Exception raised:|Differences|Expected:)", body, maxsplit=1)
        source = m[0].strip()
        if "Exception raised:" in block:
            # the exception's first line (a Keras message goes on with the
            # arguments the call received)
            lines = [l.strip() for l in block.split("Exception raised:", 1)[1].splitlines()]
            first = [l for l in lines if re.match(r"([\w.]+\.)?\w*(Error|Exception|Exit)(:|$)", l)]
            found.append((source, first[0] if first else lines[-1]))
        else:
            found.append((source, "wrong output"))
    return found


def group_key(failure):
    if failure.startswith("NameError"):
        return "NameError (a name an earlier failed example was to define)"
    m = re.match(r"NotImplementedError: (\S+) is part of", failure)
    if m:
        return "NotImplementedError: " + m.group(1)
    return re.sub(r"0x[0-9a-f]+", "0x…", failure)[:140]


def fill(outdir, docs, refill):
    """Writes and fills OUTDIR/NAME.txt of each docstring not filled yet."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import fill_doctests

    todo = []
    for name, doc in docs:
        done = os.path.join(outdir, name + ".filled")
        bad = os.path.join(outdir, name + ".oracle")
        if not refill and (os.path.exists(done) or os.path.exists(bad)):
            continue
        for p in (done, bad):
            if os.path.exists(p):
                os.unlink(p)
        with open(os.path.join(outdir, name + ".txt"), "w") as f:
            f.write(f"{name}: the examples of its Keras 3.15 docstring\n\n")
            f.write(preamble(doc) + doc + "\n")
        todo.append(name)
    # batches of files in one oracle process; a file of a batch that did not
    # finish is filled again alone
    alone = []
    for k in range(0, len(todo), 25):
        batch = todo[k:k + 25]
        failed = fill_doctests.fill_keras_batch([os.path.join(outdir, n + ".txt") for n in batch])
        for name in batch:
            if os.path.join(outdir, name + ".txt") in failed:
                alone.append(name)
            else:
                open(os.path.join(outdir, name + ".filled"), "w").close()
    for name in alone:
        txt = os.path.join(outdir, name + ".txt")
        try:
            r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "fill_doctests.py"),
                                "--as-raised", txt], capture_output=True, text=True, timeout=600)
            ok, why = r.returncode == 0, r.stdout + r.stderr
        except subprocess.TimeoutExpired:
            ok, why = False, "the oracle timed out\n"
        with open(os.path.join(outdir, name + (".filled" if ok else ".oracle")), "w") as f:
            f.write("" if ok else why)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    refill = "--refill" in sys.argv[1:]
    outdir = args[0]
    dist = args[1] if len(args) > 1 else os.path.join(ROOT, "target", "release", "dist")
    os.makedirs(outdir, exist_ok=True)
    docs = sorted(docstrings().items())
    fill(outdir, docs, refill)
    passed = failed = ops_failed = 0
    unrunnable = []
    groups = collections.defaultdict(list)
    for name, _ in docs:
        if os.path.exists(os.path.join(outdir, name + ".oracle")):
            unrunnable.append(name)
            continue
        txt = os.path.join(outdir, name + ".txt")
        # TensorFlow's checker runs with NORMALIZE_WHITESPACE and
        # DONT_ACCEPT_BLANKLINE: a blank line of the output is left out
        with open(txt) as f:
            lines = f.read().split("\n")
        with open(txt, "w") as f:
            f.write("\n".join(l for l in lines if l.strip() != "<BLANKLINE>"))
        try:
            r = subprocess.run([dist, "doctest", "--tf-checker", txt], capture_output=True,
                               text=True, timeout=120, env=dict(os.environ, NO_COLOR="1"))
            report = r.stdout + r.stderr
        except subprocess.TimeoutExpired:
            report = "timed out\n"
        with open(os.path.join(outdir, name + ".rep"), "w") as f:
            f.write(report)
        m = re.search(r"(\d+) passed, (\d+) failed", report)
        if not m:
            groups["no report: " + report.strip()[-100:]].append(name)
            continue
        passed += int(m.group(1))
        failed += int(m.group(2))
        after_ops = False
        for source, failure in failures(report):
            # a NameError after a failed keras.ops example is the name it was to define
            if uses_ops(source) or "'ops'" in failure or (
                    after_ops and failure.startswith("NameError")):
                ops_failed += 1
                after_ops = True
            else:
                groups[group_key(failure)].append(name)
    print(f"{len(docs)} docstrings; {passed} examples passed, {failed} failed "
          f"({ops_failed} of them use keras.ops or what a keras.ops example was to define); "
          f"{len(unrunnable)} docstrings the oracle cannot run: {', '.join(unrunnable)}")
    print("\nfailed examples by failure (keras.ops ones left out):")
    for key, names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        where = collections.Counter(names)
        print(f"  {len(names):4d} {key}\n       in " + ", ".join(
            f"{n}" + (f" x{c}" if c > 1 else "") for n, c in where.most_common(6))
            + (" …" if len(where) > 6 else ""))


if __name__ == "__main__":
    main()
