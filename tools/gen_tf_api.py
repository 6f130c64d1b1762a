"""Writes src/object/tf_api.txt: the public names of TensorFlow 2.21's and
numpy's modules that scripts reach, one module per line
(`tensorflow.random normal uniform ...`).

dist uses the list to tell a name TensorFlow has but dist does not implement
(NotImplementedError with a hint) from a name that does not exist at all
(AttributeError, as TensorFlow raises). Run with the oracle's Python:
    ~/.cache/dist-oracle/venv/bin/python tools/gen_tf_api.py
"""
import os
import sys
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

# `keras` is Keras 3 itself: its modules differ a little from `tf.keras`
# (TensorFlow's copy keeps a few Keras 2 names, such as `losses.Reduction`).
ROOTS = [(tf, "tensorflow"), (np, "numpy"), (keras, "keras")]
# Submodules are followed this deep (deeper ones are listed by name only).
DEPTH = 3
NUMPY_SUBMODULES = {"random", "linalg", "testing"}
# Listed by name only: copies of the API, and catalogues of models and data.
SHALLOW = (".compat", ".applications", ".datasets")


def is_api_module(v, name):
    """TensorFlow's generated API modules, and numpy's user-facing ones."""
    if not isinstance(v, types.ModuleType):
        return False
    if name.startswith("keras"):
        # Keras's API modules, not its implementation (`keras.src`)
        return v.__name__.startswith("keras") and not v.__name__.startswith("keras.src")
    if name.startswith("tensorflow"):
        try:
            vname = v.__name__
        except Exception:  # Keras 3's lazy modules: part of tf.keras's API
            return name.startswith("tensorflow.keras")
        # `tf.experimental` is named `tensorflow.experimental`, yet its file
        # is one of the generated API's
        path = getattr(v, "__file__", None) or ""
        return "._api." in vname or vname.startswith("keras") or "/_api/" in path
    return name.count(".") == 1 and name.split(".")[1] in NUMPY_SUBMODULES


def public(mod):
    return sorted(n for n in dir(mod) if not n.startswith("_"))


def walk(mod, name, depth, out, seen):
    if id(mod) in seen:
        return
    seen.add(id(mod))
    names = []
    for n in public(mod):
        try:
            v = getattr(mod, n)
        except Exception:
            continue
        if name == "keras" and n == "src":
            continue
        if isinstance(v, types.ModuleType) and not name.startswith("numpy"):
            if not is_api_module(v, f"{name}.{n}"):
                continue
        names.append(n)
        if depth < DEPTH and is_api_module(v, f"{name}.{n}") and not name.endswith(SHALLOW):
            walk(v, f"{name}.{n}", depth + 1, out, seen)
    out.append((name, names))


# Classes whose public methods are listed too (dist raises NotImplementedError
# for the ones it lacks instead of an AttributeError).
CLASSES = [(tf.data.Dataset, "tensorflow.data.Dataset")]

# The parts of tf.compat.v1 that dist implements some of (the rest of
# tf.compat.v1 is TensorFlow 1 API: a NotImplementedError names it).
COMPAT_V1 = ["", ".data", ".distribute", ".distribute.experimental", ".train"]

out = []
for mod, name in ROOTS:
    walk(mod, name, 0, out, set())
for sub in COMPAT_V1:
    mod = tf.compat.v1
    for part in sub.split(".")[1:]:
        mod = getattr(mod, part)
    out.append(("tensorflow.compat.v1" + sub, public(mod)))
for cls, name in CLASSES:
    out.append((name, public(cls)))
here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "..", "src", "object", "tf_api.txt")
# The section on the attributes of objects scripts hold was written from live
# instances (strategies, variables, iterators): kept as it is.
kept = ""
if os.path.exists(path):
    text = open(path).read()
    at = text.find("# Attributes of objects")
    kept = text[at:] if at >= 0 else ""
with open(path, "w") as f:
    f.write(f"# TensorFlow {tf.__version__}, numpy {np.__version__}: public names per module "
            "(tools/gen_tf_api.py)\n")
    for name, names in sorted(out):
        f.write(name + " " + " ".join(names) + "\n")
    f.write(kept)
print(f"{len(out)} modules, {sum(len(n) for _, n in out)} names", file=sys.stderr)
