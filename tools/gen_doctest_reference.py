#!/usr/bin/env python3
"""Generate tests/data/doctest_reference.jsonl: what CPython's doctest says
about each pure-Python fixture under tests/doctest/ (no TensorFlow needed).

    python3 tools/gen_doctest_reference.py > tests/data/doctest_reference.jsonl

and, for `--tf-checker`, the fixtures under tests/doctest/tf/ with
TensorFlow's own checker (tf_doctest_lib.TfDoctestOutputChecker, the option
flags and the tf/np/os globals of TensorFlow's tf_doctest.py), run with the
oracle venv's python:

    $(/work/shared/oracle/setup.sh) tools/gen_doctest_reference.py --tf \
        > tests/data/doctest_reference_tf.jsonl

One line per fixture:
  file      path relative to the crate root
  attempted examples run (SKIP ones are not)
  failed    examples that failed
  failures  [test name, 1-based line of the failing example's >>>], sorted
  error     (only if CPython refused the file: a malformed example) its
            message; counted as one failure at line 0, as dist doctest does

Text files (.txt, .md) are parsed as `python3 -m doctest FILE` parses them;
in .md files a fence line (``` or ~~~) is first replaced by an empty line,
the one rule `dist doctest` adds so that a closing fence ends an example's
output. A .dist file is imported as a module (copied to NAME.py) and its
docstrings found and run as `python3 -m doctest NAME.py` does.
"""
import doctest
import importlib.util
import json
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "doctest")


TF = "--tf" in sys.argv[1:]
if TF:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np  # noqa: E402
    import tensorflow as tf  # noqa: E402
    from tensorflow.tools.docs import tf_doctest_lib  # noqa: E402

    np.set_printoptions(legacy="1.25")
    FIXTURES = os.path.join(FIXTURES, "tf")
    GLOBS = {"tf": tf, "np": np, "os": os}
    FLAGS = (doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
             | doctest.IGNORE_EXCEPTION_DETAIL | doctest.DONT_ACCEPT_BLANKLINE)
else:
    GLOBS = {}
    FLAGS = 0


class Recorder(doctest.DocTestRunner):
    def __init__(self):
        checker = tf_doctest_lib.TfDoctestOutputChecker() if TF else None
        super().__init__(checker=checker, verbose=False, optionflags=FLAGS)
        self.recorded = []

    def _record(self, test, example):
        line = None
        if test.lineno is not None and example.lineno is not None:
            line = test.lineno + example.lineno + 1
        self.recorded.append([test.name, line])

    def report_failure(self, out, test, example, got):
        self._record(test, example)

    def report_unexpected_exception(self, out, test, example, exc_info):
        self._record(test, example)


def blank_fences(text):
    return "\n".join(
        "" if line.lstrip().startswith(("```", "~~~")) else line
        for line in text.split("\n")
    )


def tests_of(path):
    name = os.path.basename(path)
    if path.endswith(".dist"):
        stem = name[: -len(".dist")]
        tmp = tempfile.mkdtemp()
        try:
            py = os.path.join(tmp, stem + ".py")
            shutil.copy(path, py)
            spec = importlib.util.spec_from_file_location(stem, py)
            module = importlib.util.module_from_spec(spec)
            sys.modules[stem] = module
            spec.loader.exec_module(module)
            return doctest.DocTestFinder().find(module, extraglobs=GLOBS)
        finally:
            shutil.rmtree(tmp)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".md"):
        text = blank_fences(text)
    # As doctest.testfile runs a text file: in a namespace named __main__.
    return [doctest.DocTestParser().get_doctest(
        text, dict(GLOBS, __name__="__main__"), name, path, 0)]


def main():
    for name in sorted(os.listdir(FIXTURES)):
        if not name.endswith((".txt", ".md", ".dist")):
            continue
        path = os.path.join(FIXTURES, name)
        runner = Recorder()
        try:
            tests = tests_of(path)
        except ValueError as e:
            # A malformed example: CPython refuses the whole file (dist
            # doctest counts it as one failure, at line 0).
            print(json.dumps({
                "file": os.path.relpath(path, ROOT).replace(os.sep, "/"),
                "attempted": 1,
                "failed": 1,
                "failures": [[name, 0]],
                "error": str(e),
            }))
            continue
        for test in tests:
            runner.run(test, out=lambda s: None)
        print(json.dumps({
            "file": os.path.relpath(path, ROOT).replace(os.sep, "/"),
            "attempted": runner.tries,
            "failed": runner.failures,
            "failures": sorted(runner.recorded),
        }))


if __name__ == "__main__":
    main()
