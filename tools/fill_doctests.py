#!/usr/bin/env python3
"""Fill in the expected output of the `>>>` examples of doctest .md files
(and of the docstrings of .dist files) from the oracle (real TensorFlow), so
that no expected output is written by hand:

    tools/fill_doctests.py scripts/docs/mirrored_strategy.md ...

A .dist file runs first as a whole (its module code defines what its
docstrings use), then its examples in order; its flags come from its
`# dist:` first line.

Each file's examples are run in order as one script under
`../shared/oracle/tf --echo [--virtual-gpus N]` (N from a first line
`<!-- dist: --virtual-gpus N -->`), with a marker printed before each example;
the output between markers replaces the example's expected output (empty
lines become <BLANKLINE>). An example whose current expectation starts with
`Traceback (most recent call last):` is run inside try/except, and its
expectation becomes the traceback header, `...` and the exception line as
CPython's doctest compares it (`Type: message`, the type qualified by its
module unless builtin).
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.path.join(ROOT, "..", "shared", "oracle", "tf")
MARK = "@@doctest-example-{}@@"
# Lines that end an example's output besides a blank line or a `>>>`: a
# Markdown fence, or the closing quotes of a docstring.
FENCE = ("```", "~~~", '"""', "'''")


def examples(lines):
    """(first line, end line (exclusive), indent, source lines, expects exception)."""
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip(" ")
        if not (stripped.startswith(">>> ") or stripped.rstrip() == ">>>"):
            i += 1
            continue
        indent = len(line) - len(stripped)
        start = i
        source = [line[indent + 4:]]
        i += 1
        while i < len(lines) and lines[i].startswith(" " * indent + "..."):
            source.append(lines[i][indent + 4:])
            i += 1
        want_start = i
        while (i < len(lines) and lines[i].strip()
               and not lines[i].lstrip(" ").startswith(">>>")
               and not lines[i].lstrip().startswith(FENCE)):
            i += 1
        raises = (want_start < i and lines[want_start].strip()
                  == "Traceback (most recent call last):")
        found.append((start, want_start, i, indent, source, raises))
    return found


def script(found, module=None):
    out = [module] if module else []
    for k, (_, _, _, _, source, raises) in enumerate(found):
        out.append("print(%r)" % MARK.format(k))
        if raises:
            out.append("try:")
            out.extend("    " + s for s in source)
            out.append("except Exception as e:")
            out.append("    m = type(e).__module__")
            out.append("    name = type(e).__qualname__ if m in ('builtins', '__main__') "
                       "else m + '.' + type(e).__qualname__")
            out.append("    print('Traceback (most recent call last):\\n    ...')")
            out.append("    print(name + (': ' + str(e) if str(e) else ''))")
        else:
            out.extend(source)
    out.append("print(%r)" % MARK.format(len(found)))
    return "\n".join(out) + "\n"


def fill(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    flags = []
    m = re.match(r"(?:<!--|#)\s*dist:(.*?)(?:-->)?$", lines[0].strip()) if lines else None
    if m:
        words = m.group(1).split()
        if "--virtual-gpus" in words:
            flags = ["--virtual-gpus", words[words.index("--virtual-gpus") + 1]]
    found = examples(lines)
    with tempfile.NamedTemporaryFile("w", suffix=".dist", delete=False) as f:
        f.write(script(found, "\n".join(lines) if path.endswith(".dist") else None))
        name = f.name
    try:
        run = subprocess.run([ORACLE, "--echo", *flags, name],
                             capture_output=True, text=True)
    finally:
        os.unlink(name)
    if run.returncode != 0:
        sys.exit("%s: the oracle failed:\n%s%s" % (path, run.stdout, run.stderr))
    outputs = []
    text = run.stdout
    for k in range(len(found)):
        begin = text.index(MARK.format(k) + "\n") + len(MARK.format(k)) + 1
        end = text.index(MARK.format(k + 1) + "\n")
        outputs.append(text[begin:end])
    for (start, want_start, end, indent, _, _), output in reversed(list(zip(found, outputs))):
        want = [" " * indent + (l if l.strip() else "<BLANKLINE>")
                for l in output.rstrip("\n").split("\n")] if output else []
        lines[want_start:end] = want
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    for p in sys.argv[1:]:
        fill(p)
        print("filled", p)
