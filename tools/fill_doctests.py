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

`--as-raised` (for sweeps over docstrings written for another setting, such
as `tools/keras_docstring_sweep.py`): every example runs as doctest runs it
(compiled in "single" mode, so an expression's repr is echoed), and one that
raises gets the exception the oracle raised as its expectation instead of
stopping the file.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.path.join(ROOT, "..", "shared", "oracle", "tf")
MARK = "@@doctest-example-{}@@"
FILE_MARK = "@@doctest-file-{}@@"
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


def script(found, module=None, as_raised=False):
    out = [module] if module else []
    for k, (_, _, _, _, source, raises) in enumerate(found):
        out.append("print(%r)" % MARK.format(k))
        if raises or as_raised:
            out.append("try:")
            if as_raised and all(not s.strip() or s.strip().startswith("#") for s in source):
                out.append("    pass")  # doctest skips an example of comments alone
            elif as_raised:
                out.append("    exec(compile(%r, '<doctest>', 'single'), globals())"
                           % ("\n".join(source) + "\n"))
            else:
                out.extend("    " + s for s in source)
            # names of its own, so that the examples' variables stay as they are
            out.append("except Exception as __dt_e:")
            out.append("    __dt_m = type(__dt_e).__module__")
            out.append("    __dt_name = type(__dt_e).__qualname__ if __dt_m in ('builtins', '__main__') "
                       "else __dt_m + '.' + type(__dt_e).__qualname__")
            out.append("    print('Traceback (most recent call last):\\n    ...')")
            out.append("    print(__dt_name + (': ' + str(__dt_e) if str(__dt_e) else ''))")
        else:
            out.extend(source)
    out.append("print(%r)" % MARK.format(len(found)))
    return "\n".join(out) + "\n"


def prepare(path, as_raised=False):
    """(lines, examples, oracle flags, the script that runs them)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    flags = []
    m = re.match(r"(?:<!--|#)\s*dist:(.*?)(?:-->)?$", lines[0].strip()) if lines else None
    if m:
        words = m.group(1).split()
        if "--virtual-gpus" in words:
            flags = ["--virtual-gpus", words[words.index("--virtual-gpus") + 1]]
    found = examples(lines)
    return lines, found, flags, script(
        found, "\n".join(lines) if path.endswith(".dist") else None, as_raised)


def write(path, lines, found, text):
    """Writes the outputs between the markers of `text` as the expectations."""
    outputs = []
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


def oracle(flags, text):
    with tempfile.NamedTemporaryFile("w", suffix=".dist", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        return subprocess.run([ORACLE, "--echo", *flags, name], capture_output=True, text=True)
    finally:
        os.unlink(name)


def fill(path, as_raised=False):
    lines, found, flags, text = prepare(path, as_raised)
    run = oracle(flags, text)
    if run.returncode != 0:
        sys.exit("%s: the oracle failed:\n%s%s" % (path, run.stdout, run.stderr))
    write(path, lines, found, run.stdout)


def fill_keras_batch(paths):
    """`--as-raised` filling of many files in one oracle process: each file's
    examples run in fresh globals after `keras.backend.clear_session()` and
    Keras's default configuration (so Keras's layer names start over, as in
    a process of their own). Returns the paths whose run did not reach its
    end; a file that switches Keras's backend (`set_backend`) is one, as it
    cannot be undone in the process."""
    parts, prepared = ["import keras"], []
    alone = [p for p in paths if "set_backend" in open(p, encoding="utf-8").read()]
    paths = [p for p in paths if p not in alone]
    for i, path in enumerate(paths):
        lines, found, _, text = prepare(path, True)
        prepared.append((path, lines, found))
        parts.append("print(%r)" % FILE_MARK.format(i))
        # Keras's global configuration as a fresh process has it
        parts.append("keras.backend.clear_session()")
        parts.append("keras.config.set_floatx('float32'); keras.config.set_epsilon(1e-07)")
        parts.append("keras.config.set_image_data_format('channels_last')")
        parts.append("keras.config.set_dtype_policy('float32')")
        parts.append("exec(compile(%r, %r, 'exec'), {'__name__': '__main__'})" % (text, path))
    parts.append("print(%r)" % FILE_MARK.format(len(paths)))
    run = oracle([], "\n".join(parts) + "\n")
    text, failed = run.stdout, list(alone)
    for i, (path, lines, found) in enumerate(prepared):
        begin = text.find(FILE_MARK.format(i) + "\n")
        end = text.find(FILE_MARK.format(i + 1) + "\n")
        if begin < 0 or end < 0:
            failed.append(path)
            continue
        write(path, lines, found, text[begin:end])
    return failed


if __name__ == "__main__":
    as_raised = "--as-raised" in sys.argv[1:]
    for p in sys.argv[1:]:
        if p == "--as-raised":
            continue
        fill(p, as_raised)
        print("filled", p)
