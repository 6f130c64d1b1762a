#!/usr/bin/env python3
"""Generate tests/data/format_corpus.jsonl with real numpy and TensorFlow.

Run with the oracle venv's python (../shared/oracle/setup.sh prints its path):
    $(/work/shared/oracle/setup.sh) tools/gen_format_corpus.py > tests/data/format_corpus.jsonl
    $(/work/shared/oracle/setup.sh) tools/gen_format_corpus.py --complex \
        > tests/data/format_corpus_complex.jsonl

Each line is one case:
  dtype   TensorFlow dtype name
  shape   list of dims
  values  element values as strings, row-major: floats as hex bit patterns of
          their own width, ints in decimal, bools "1"/"0", bytes as hex.
          When shorter than the element count, the array repeats them
          cyclically (numpy.resize), which keeps big cases small.
          Complex elements are "REHEX:IMHEX", the parts' bit patterns.
  np_str, np_repr   str()/repr() of the numpy array tensor.numpy() gives
  tf_str, tf_repr   str()/repr() of the tf.Tensor
numpy prints in its legacy="1.25" style, as the project's reference does.
"""
import json
import os
import random
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

np.set_printoptions(legacy="1.25")
rng = random.Random(20250521)

INT_RANGES = {
    "int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767),
    "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1),
}
FLOATS = {"float16": (np.float16, np.uint16, "%04x"),
          "float32": (np.float32, np.uint32, "%08x"),
          "float64": (np.float64, np.uint64, "%016x")}


def rand_shape():
    r = rng.random()
    if r < 0.08:
        return ()
    if r < 0.14:  # empty
        rank = rng.randint(1, 3)
        dims = [rng.randint(0, 4) for _ in range(rank)]
        dims[rng.randrange(rank)] = 0
        return tuple(dims)
    if r < 0.24:  # long rows that wrap
        return (rng.randint(8, 60),) if rng.random() < 0.6 else (rng.randint(1, 3), rng.randint(10, 40))
    if r < 0.32:  # summarised
        return rng.choice([(1001,), (2000,), (40, 30), (11, 11, 11), (3, 400), (5, 5, 5, 9),
                           (1, 1200), (1200, 1), (2, 3, 200), (7, 150)])
    rank = rng.choice([1, 1, 2, 2, 2, 3, 3, 4])
    return tuple(rng.randint(1, 5) for _ in range(rank))


def float_pool(dtype):
    kind = rng.random()
    scale = 10.0 ** rng.randint(-12, 12)
    if kind < 0.15:
        gen = lambda: float(rng.randint(-20, 20))
    elif kind < 0.3:
        gen = lambda: rng.random()
    elif kind < 0.45:
        gen = lambda: rng.gauss(0, 1) * scale
    elif kind < 0.55:
        gen = lambda: round(rng.uniform(-100, 100), rng.randint(0, 4))
    elif kind < 0.65:
        specials = [0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1 / 3, 2 / 3, 1e-4, 9.999e-5, 1e8, 99999999.0,
                    1e16, 1e-5, 123456.789, 1e300, 1e-300, 5e-324, 65504.0, 1000.0, 0.001,
                    12345678.9, 0.001953125, 3.14159265358979, 2.5, 1e20, -1e-20, 7e-45]
        gen = lambda: rng.choice(specials)
    elif kind < 0.75:
        gen = lambda: rng.uniform(0, 1000) if rng.random() < 0.9 else rng.uniform(0, 1.5)
    elif kind < 0.85 and dtype != "float64":
        # arbitrary bit patterns of the type
        ft, ut, _ = FLOATS[dtype]
        bits = 16 if dtype == "float16" else 32
        gen = lambda: float(np.array(rng.getrandbits(bits), dtype=ut).view(ft))
    else:
        gen = lambda: rng.gauss(0, 1) * 10.0 ** rng.randint(-3, 9)
    return gen


def make_values(dtype, n):
    if dtype == "bool":
        return [rng.random() < 0.5 for _ in range(n)]
    if dtype in INT_RANGES:
        lo, hi = INT_RANGES[dtype]
        r = rng.random()
        if r < 0.4:
            lo2, hi2 = max(lo, -10), min(hi, 10)
        elif r < 0.7:
            lo2, hi2 = max(lo, -1000), min(hi, 100000)
        else:
            lo2, hi2 = lo, hi
        return [rng.randint(lo2, hi2) for _ in range(n)]
    if dtype == "string":
        out = []
        for _ in range(n):
            k = rng.random()
            if k < 0.5:
                s = bytes(rng.choice(b"abcdefghij XYZ") for _ in range(rng.randint(0, 8)))
            elif k < 0.8:
                s = bytes(rng.choice(b"a'\"\\\n\t\r\x00\x7f\xff\xc3\xa9 ") for _ in range(rng.randint(0, 5)))
            else:
                s = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 6)))
            out.append(s)
        return out
    gen = float_pool(dtype)
    vals = [gen() for _ in range(n)]
    if rng.random() < 0.2:
        for _ in range(rng.randint(1, 3)):
            if vals:
                vals[rng.randrange(len(vals))] = rng.choice([float("nan"), float("inf"), float("-inf"), -0.0])
    return vals


COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}


def encode(arr, dtype):
    flat = arr.reshape(-1)
    if dtype in COMPLEX_PARTS:
        part = COMPLEX_PARTS[dtype]
        re, im = encode(flat.real.copy(), part), encode(flat.imag.copy(), part)
        return [f"{r}:{i}" for r, i in zip(re, im)]
    if dtype in FLOATS:
        ft, ut, fmt = FLOATS[dtype]
        return [fmt % int(x) for x in flat.view(ut)]
    if dtype == "bool":
        return ["1" if x else "0" for x in flat]
    if dtype == "string":
        return [bytes(x).hex() for x in flat]
    return [str(int(x)) for x in flat]


EDGE_CASES = [
    ("float64", [0.001953125, 1.0]), ("float64", [0.125, 1.0]), ("float64", [1e16]),
    ("float64", [1e-5, 1.0]), ("float32", [0.1, 1.2345678e-5]), ("float64", [float("nan")]),
    ("float32", [float("inf"), float("-inf")]), ("float64", [-0.0]), ("float32", [-0.0, 0.0]),
    ("float32", 1e20), ("float32", 1e-5), ("float64", 1e16), ("float64", 123456789012.0),
    ("float16", 0.1), ("float16", 1000.0), ("float16", [1000.0, 0.1]), ("float16", [65504.0, 0.1, 1000.0]),
    ("float64", [1e100, 1.5, -2e-5]), ("float64", [1e10, 2e10, float("nan"), float("-inf")]),
    ("float64", [1.123456789, 1.0]), ("float32", [99999992.0, 1.0]), ("float32", [1e8, 1.0]),
    ("float32", [0.0001, 1.0]), ("float32", [1000.0, 1.0]), ("float32", [1000.0001, 1.0]),
    ("float64", [5e-324, 1.0]), ("float64", [1.7976931348623157e308, -1.0]),
    ("int8", [-128, 127]), ("uint8", [0, 255]), ("int16", [-32768, 32767]),
    ("int32", [-2**31, 2**31 - 1]), ("int64", [-2**63, 2**63 - 1]), ("int64", 7), ("bool", True),
    ("bool", [True]), ("bool", [False, True]), ("string", b"hello"), ("string", b"it's"),
    ("string", [b"a", b'"', b"'", b"'\"", b"\\", b"\x00\xff"]), ("string", b""),
    ("float32", [[1.5, 2.0], [3.0, 4.0]]), ("int32", [[[0, 1, 2], [3, 4, 5]]] * 4),
    ("float64", list(range(30))), ("float32", [x / 7 for x in range(24)]),
]


def edge_case(dtype, value):
    npdt = object if dtype == "string" else getattr(np, dtype)
    arr = np.array(value, dtype=npdt)
    return arr


def case(dtype, shape, fixed=None):
    if fixed is not None:
        base = edge_case(dtype, fixed).reshape(-1)
        shape = np.shape(fixed)
        return finish(dtype, shape, base)
    n = int(np.prod(shape)) if shape else 1
    base_n = n if n <= 64 else rng.choice([37, 41, 53, 61])
    if dtype in COMPLEX_PARTS:
        # each part from its own pool of the part type's values
        part = COMPLEX_PARTS[dtype]
        re = np.array(make_values(part, base_n), dtype=np.float64).astype(getattr(np, part))
        im = np.array(make_values(part, base_n), dtype=np.float64).astype(getattr(np, part))
        if rng.random() < 0.3:
            im = np.zeros_like(im) if rng.random() < 0.5 else np.round(im)
        base = (re + 1j * im).astype(getattr(np, dtype))
        base.real, base.imag = re, im
        return finish(dtype, shape, base)
    vals = make_values(dtype, base_n)
    npdt = object if dtype == "string" else getattr(np, dtype)
    with np.errstate(over="ignore"):
        if dtype in FLOATS:
            base = np.array(vals, dtype=np.float64).astype(npdt)
        else:
            base = np.array(vals, dtype=npdt)
    return finish(dtype, shape, base)


def finish(dtype, shape, base):
    arr = np.resize(base, shape) if shape else base.reshape(())
    if dtype == "string":
        flat = tf.constant(arr.reshape(-1).tolist(), dtype=tf.string)
        t = tf.reshape(flat, shape)
    else:
        t = tf.constant(arr)
    got = t.numpy()
    np_arr = np.asarray(got, dtype=object) if dtype == "string" else np.asarray(got)
    assert np_arr.shape == tuple(shape)
    return {
        "dtype": dtype,
        "shape": list(shape),
        "values": encode(base, dtype),
        "np_str": str(np_arr),
        "np_repr": repr(np_arr),
        "tf_str": str(t),
        "tf_repr": repr(t),
    }


def main():
    if sys.argv[1:2] == ["--complex"]:
        global rng
        rng = random.Random(20261207)
        for _ in range(400):
            dtype = rng.choice(["complex64", "complex128"])
            print(json.dumps(case(dtype, rand_shape())))
        return
    n_cases = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    dtypes = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64", "string"]
    weights = [1, 1, 1, 1, 2, 2, 3, 5, 5, 1]
    for dtype, value in EDGE_CASES:
        print(json.dumps(case(dtype, None, fixed=value)))
    for _ in range(n_cases):
        dtype = rng.choices(dtypes, weights)[0]
        print(json.dumps(case(dtype, rand_shape())))


if __name__ == "__main__":
    main()
