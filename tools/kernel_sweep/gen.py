"""Reference outputs of TensorFlow's float CPU kernels for check.rs.

Run with the oracle's Python (TensorFlow 2.21 installed):
    ~/.cache/dist-oracle/venv/bin/python tools/kernel_sweep/gen.py OUTDIR
Inputs: float32 bit patterns every 4093 (all exponents, denormals, inf,
NaN), dense uniform and log-uniform samples; each op on the whole buffer
(packet path, length a multiple of 8) and on 7-element tensors (scalar
path); softmax/log_softmax over row lengths 1..100 and a few long rows;
float64 exp/log likewise (3-element tensors for the scalar path).
"""
import os
import sys

import numpy as np
import tensorflow as tf

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)


def save(name, a):
    np.asarray(a).tofile(os.path.join(out, name + ".bin"))


bits = np.arange(0, 2**32, 4093, dtype=np.uint64).astype(np.uint32).view(np.float32)
x = np.concatenate([
    bits, rng.uniform(-20, 20, 1_000_000), rng.uniform(-2, 2, 500_000),
    rng.standard_normal(300_000) * np.exp(rng.uniform(-30, 5, 300_000)),
]).astype(np.float32)
x = x[: len(x) // 8 * 8]
xs = x[:: len(x) // 350_000][: 350_000 // 7 * 7]
save("x", x)
save("xs", xs)
ops = {
    "sigmoid": tf.math.sigmoid, "tanh": tf.math.tanh, "erf": tf.math.erf,
    "erfc": tf.math.erfc, "softplus": tf.math.softplus, "exp": tf.math.exp,
    "log": tf.math.log, "log1p": tf.math.log1p, "expm1": tf.math.expm1,
    "reciprocal": tf.math.reciprocal, "rsqrt": tf.math.rsqrt, "sqrt": tf.math.sqrt,
}
for name, f in ops.items():
    save(name + "_packet", f(tf.constant(x)).numpy())
    save(name + "_scalar", np.concatenate(
        [f(tf.constant(xs[i:i + 7])).numpy() for i in range(0, len(xs), 7)]))

rows_x, sm, lsm, meta = [], [], [], []
for c in list(range(1, 101)) + [127, 128, 129, 255, 256, 1000, 1023]:
    for scale in [1.0, 10.0, 60.0]:
        r = max(1, 20000 // c)
        v = (rng.standard_normal((r, c)) * scale).astype(np.float32)
        rows_x.append(v.ravel())
        sm.append(tf.nn.softmax(v).numpy().ravel())
        lsm.append(tf.nn.log_softmax(v).numpy().ravel())
        meta.append((r, c))
save("smx", np.concatenate(rows_x))
save("smy", np.concatenate(sm))
save("lsy", np.concatenate(lsm))
save("smmeta", np.array(meta, np.int64))

b64 = np.arange(0, 2**64 - 2**52, 2**64 // 1000003, dtype=np.uint64).view(np.float64)
x64 = np.concatenate([b64, rng.uniform(-750, 750, 500_000), rng.uniform(-5, 5, 500_000)])
x64 = x64[: len(x64) // 4 * 4]
xs64 = x64[::8][: len(x64[::8]) // 3 * 3]
save("x64", x64)
save("xs64", xs64)
for name, f in {"exp64": tf.math.exp, "log64": tf.math.log}.items():
    save(name + "_packet", f(tf.constant(x64)).numpy())
    save(name + "_scalar", np.concatenate(
        [f(tf.constant(xs64[i:i + 3])).numpy() for i in range(0, len(xs64), 3)]))
