//! The reduction kernels: the two-pass tree reduction, the per-row serial
//! folds, and the pairwise and serial float sums that add in the CPU's
//! (numpy's) order. The element-wise kernels are in `elementwise.rs`.

use super::{
    c_type, compute_type, grid_stride, load, store, unsigned_of, KernelSource, BLOCK, PRELUDE,
};
use crate::runtime::dtype::DType;
use crate::runtime::op::ReduceOp;

/// The accumulator type of a reduction: double for floats (then rounded once,
/// so short sums match the CPU's pairwise sums exactly), 64-bit wrapping
/// unsigned or signed for integers, a byte for bool.
fn acc_type(op: ReduceOp, d: DType) -> &'static str {
    match (op, d) {
        (_, DType::Bool) => "unsigned char",
        (_, DType::Float16 | DType::Float32 | DType::Float64) => "double",
        (ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Mean, _) => "unsigned long long",
        (_, DType::UInt8) => "unsigned long long",
        _ => "long long",
    }
}

/// Name of the first (partial) pass of a reduction.
pub fn reduce_name(op: ReduceOp, d: DType) -> String {
    format!("{}_{}", op.name(), d.name())
}

/// Whether the device reduces `(op, d)`.
pub fn reduce_supported(op: ReduceOp, d: DType) -> bool {
    match d {
        DType::Bool => matches!(
            op,
            ReduceOp::Any
                | ReduceOp::All
                | ReduceOp::Max
                | ReduceOp::Min
                | ReduceOp::Sum
                | ReduceOp::Prod
        ),
        DType::String => false,
        // float sums, means and products depend on the order of the adds:
        // they run in `reduce_pairwise` / `reduce_serial`, in the CPU's order
        DType::Float16 | DType::Float32 | DType::Float64 => {
            matches!(op, ReduceOp::Max | ReduceOp::Min)
        }
        // Any/All of numbers read "nonzero": cast to bool first (the backend does)
        _ => !matches!(op, ReduceOp::Any | ReduceOp::All),
    }
}

/// A tree reduction in two kernels over `outer` rows of `inner` contiguous
/// elements: `{name}` reduces chunks of a row per block into accumulator
/// partials (shared-memory tree, then warp shuffles), `{name}_final` reduces
/// each row's partials and writes the result in the element type (a mean
/// divides the rounded sum by `inner`, as the CPU does).
pub fn reduce(op: ReduceOp, d: DType) -> Option<KernelSource> {
    if !reduce_supported(op, d) {
        return None;
    }
    let t = c_type(d)?;
    let a = acc_type(op, d);
    let float = d.is_floating();
    let x = match d {
        DType::Float16 => "(double)h2f(in[j])".to_string(),
        _ => format!("({a})in[j]"),
    };
    let (init, combine) = match (op, d) {
        (ReduceOp::Any | ReduceOp::Max | ReduceOp::Sum, DType::Bool) => ("0", "(p | q)"),
        (ReduceOp::All | ReduceOp::Min | ReduceOp::Prod, DType::Bool) => ("1", "(p & q)"),
        (ReduceOp::Sum | ReduceOp::Mean, _) => ("0", "(p + q)"),
        (ReduceOp::Prod, _) => ("1", "(p * q)"),
        (ReduceOp::Max, _) if float => (
            "-1.0/0.0",
            "((p != p || q != q) ? p + q : (p >= q ? p : q))",
        ),
        (ReduceOp::Min, _) if float => {
            ("1.0/0.0", "((p != p || q != q) ? p + q : (p <= q ? p : q))")
        }
        (ReduceOp::Max, _) => (int_extreme(d, true), "(p >= q ? p : q)"),
        (ReduceOp::Min, _) => (int_extreme(d, false), "(p <= q ? p : q)"),
        _ => return None,
    };
    // the result in the element type: round once (floats) or truncate (ints)
    let finish = match (op, d) {
        (_, DType::Bool) => "(unsigned char)(r != 0)".to_string(),
        (ReduceOp::Mean, DType::Float16) => "f2h((float)r / (float)inner)".to_string(),
        (ReduceOp::Mean, DType::Float32) => "(float)r / (float)inner".to_string(),
        (ReduceOp::Mean, DType::Float64) => "r / (double)inner".to_string(),
        (ReduceOp::Mean, _) => format!("(inner == 0 ? ({t})0 : ({t})(({t})r / ({t})inner))"),
        (_, DType::Float16) => "d2h(r)".to_string(),
        _ => format!("({t})r"),
    };
    let name = reduce_name(op, d);
    let b = BLOCK;
    Some(KernelSource {
        source: format!(
            r#"{PRELUDE}
typedef {a} acc_t;
__device__ __forceinline__ acc_t combine(acc_t p, acc_t q) {{ return {combine}; }}
__device__ acc_t block_reduce(acc_t v) {{
    __shared__ acc_t sh[{b}];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {{
        if (threadIdx.x < s) sh[threadIdx.x] = combine(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }}
    return sh[0];
}}
// grid.x = outer * chunks; block b reduces chunk (b % chunks) of row (b / chunks)
extern "C" __global__ void {name}(const {t}* in, acc_t* partial, u64 outer, u64 inner, u64 chunks) {{
    u64 blk = blockIdx.x;
    u64 row = blk / chunks, c = blk - row * chunks;
    u64 per = (inner + chunks - 1) / chunks;
    u64 lo = c * per, hi = lo + per < inner ? lo + per : inner;
    acc_t v = ({a})({init});
    for (u64 k = lo + threadIdx.x; k < hi; k += blockDim.x) {{
        u64 j = row * inner + k;
        v = combine(v, {x});
    }}
    v = block_reduce(v);
    if (threadIdx.x == 0) partial[blk] = v;
}}
extern "C" __global__ void {name}_final(const acc_t* partial, {t}* out, u64 outer, u64 chunks, u64 inner) {{
    u64 row = blockIdx.x;
    acc_t v = ({a})({init});
    for (u64 k = threadIdx.x; k < chunks; k += blockDim.x) v = combine(v, partial[row * chunks + k]);
    v = block_reduce(v);
    if (threadIdx.x == 0) {{ acc_t r = v; out[row] = {finish}; }}
}}
"#
        ),
        name,
    })
}

/// `combine(acc, x)` of a reduction in the compute type, with the CPU's
/// semantics (wrapping integers, NaN-propagating float extremes).
fn fold_expr(op: ReduceOp, d: DType) -> Option<String> {
    let ct = compute_type(d);
    let u = unsigned_of(d);
    let float = d.is_floating();
    Some(match op {
        ReduceOp::Sum | ReduceOp::Mean if float => "p + q".into(),
        ReduceOp::Prod if float => "p * q".into(),
        ReduceOp::Sum | ReduceOp::Mean => format!("({ct})(({u})p + ({u})q)"),
        ReduceOp::Prod => format!("({ct})(({u})p * ({u})q)"),
        ReduceOp::Max if float => "((p != p || q != q) ? p + q : (p >= q ? p : q))".into(),
        ReduceOp::Min if float => "((p != p || q != q) ? p + q : (p <= q ? p : q))".into(),
        ReduceOp::Max => "(p >= q ? p : q)".into(),
        ReduceOp::Min => "(p <= q ? p : q)".into(),
        ReduceOp::Any | ReduceOp::All => return None,
    })
}

/// The result of a fold over `count` elements in the element type (a mean
/// divides in the compute type by the count converted to it, as the CPU does).
fn finish_expr(op: ReduceOp, d: DType, acc: &str, count: &str) -> String {
    let ct = compute_type(d);
    let v = match op {
        ReduceOp::Mean if d.is_floating() => format!("({acc}) / ({ct})({count})"),
        ReduceOp::Mean => format!("(({count}) == 0 ? ({ct})0 : ({ct})(({acc}) / ({ct})({count})))"),
        _ => acc.to_string(),
    };
    store(d, &v)
}

/// Name of the reduction over leading axes.
pub fn reduce_rows_name(op: ReduceOp, d: DType) -> String {
    format!("{}_{}_rows", op.name(), d.name())
}

/// A reduction over the leading `rows` of a `[rows, inner]` buffer: one
/// thread per column folds the rows in order, the CPU's order for this case
/// (so float results are bit-identical).
pub fn reduce_rows(op: ReduceOp, d: DType) -> Option<KernelSource> {
    if d == DType::Bool {
        return None;
    }
    let t = c_type(d)?;
    let ct = compute_type(d);
    let fold = fold_expr(op, d)?;
    let finish = finish_expr(op, d, "p", "rows");
    let x0 = load(d, "in[j]");
    let x = load(d, "in[r * inner + j]");
    let params = format!("const {t}* in, {t}* out, u64 rows, u64 inner");
    let body = format!(
        "{ct} p = {x0};\n    \
         for (u64 r = 1; r < rows; ++r) {{ {ct} q = {x}; p = {fold}; }}\n    \
         out[j] = {finish};"
    );
    grid_stride(reduce_rows_name(op, d), &params, ("j", "inner"), &body)
}

/// Name of the pairwise float sum (its `_final` kernel combines the parts).
pub fn reduce_pairwise_name(op: ReduceOp, d: DType) -> String {
    format!("{}_{}_pairwise", op.name(), d.name())
}

/// numpy's pairwise summation of each row, exactly as the CPU computes it
/// (runs under 8 add in order, up to 128 in 8 lanes, longer ones split at
/// half rounded down to a multiple of 8), so float sums and means are
/// bit-identical to the CPU's. For parallelism the top `depth` levels of
/// the split tree are spread over `2^depth` threads per row, each summing its
/// subtree; `_pair` then adds adjacent parts, one tree level per launch (the
/// caller picks `depth` so no node above it is a leaf, which makes the top of
/// the tree a perfect binary tree), and `_final` writes each row's total.
pub fn reduce_pairwise(op: ReduceOp, d: DType) -> Option<KernelSource> {
    if !d.is_floating() || !matches!(op, ReduceOp::Sum | ReduceOp::Mean) {
        return None;
    }
    let t = c_type(d)?;
    let ct = compute_type(d);
    let x = |i: &str| load(d, &format!("a[{i}]"));
    let (x0, xi, xj) = (x("k"), x("i + k"), x("k"));
    let lanes = (0..8)
        .map(|k| x(&k.to_string()))
        .collect::<Vec<_>>()
        .join(", ");
    let finish = finish_expr(op, d, "s", "inner");
    let name = reduce_pairwise_name(op, d);
    Some(KernelSource {
        source: format!(
            r#"{PRELUDE}
typedef {ct} ct;
__device__ ct pairwise(const {t}* a, u64 n) {{
    if (n < 8) {{
        ct r = (ct)0;
        for (u64 k = 0; k < n; ++k) r = r + {x0};
        return r;
    }}
    if (n <= 128) {{
        ct r[8] = {{ {lanes} }};
        u64 whole = n - n % 8;
        for (u64 i = 8; i < whole; i += 8)
            for (int k = 0; k < 8; ++k) r[k] = r[k] + {xi};
        ct res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (u64 k = whole; k < n; ++k) res = res + {xj};
        return res;
    }}
    u64 n2 = n / 2;
    n2 -= n2 % 8;
    ct left = pairwise(a, n2);
    return left + pairwise(a + n2, n - n2);
}}
// thread (row, t): the subtree that the top `depth` bits of t choose
extern "C" __global__ void {name}(const {t}* in, ct* part, u64 outer, u64 inner, int depth) {{
    u64 per = 1ull << depth;
    for (u64 g = blockIdx.x * (u64)blockDim.x + threadIdx.x; g < outer * per; g += (u64)blockDim.x * gridDim.x) {{
        u64 row = g / per, t = g - row * per;
        const {t}* a = in + row * inner;
        u64 n = inner;
        int owner = 1;
        for (int l = depth - 1; l >= 0; --l) {{
            if (n <= 128) {{ owner = (t & ((2ull << l) - 1)) == 0; break; }}
            u64 n2 = n / 2;
            n2 -= n2 % 8;
            if ((t >> l) & 1) {{ a += n2; n -= n2; }} else {{ n = n2; }}
        }}
        if (owner) part[g] = pairwise(a, n);
    }}
}}
// one level of the split tree: the parts of every row, paired in order
extern "C" __global__ void {name}_pair(const ct* in, ct* out, u64 m) {{
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < m; i += (u64)blockDim.x * gridDim.x) {{
        out[i] = in[2 * i] + in[2 * i + 1];
    }}
}}
extern "C" __global__ void {name}_final(const ct* part, {t}* out, u64 outer, u64 inner) {{
    for (u64 row = blockIdx.x * (u64)blockDim.x + threadIdx.x; row < outer; row += (u64)blockDim.x * gridDim.x) {{
        ct s = part[row];
        out[row] = {finish};
    }}
}}
"#
        ),
        name,
    })
}

/// Name of the in-order fold of each row.
pub fn reduce_serial_name(op: ReduceOp, d: DType) -> String {
    format!("{}_{}_serial", op.name(), d.name())
}

/// A float product of each row, folded in order from one, one thread per
/// row (the CPU's order; products are rare enough not to need a tree).
pub fn reduce_serial(op: ReduceOp, d: DType) -> Option<KernelSource> {
    if !d.is_floating() || op != ReduceOp::Prod {
        return None;
    }
    let t = c_type(d)?;
    let ct = compute_type(d);
    let x = load(d, "in[row * inner + k]");
    let out = store(d, "p");
    let params = format!("const {t}* in, {t}* out, u64 outer, u64 inner");
    let body = format!(
        "{ct} p = ({ct})1;\n    \
         for (u64 k = 0; k < inner; ++k) p = p * {x};\n    \
         out[row] = {out};"
    );
    grid_stride(reduce_serial_name(op, d), &params, ("row", "outer"), &body)
}

fn int_extreme(d: DType, lowest: bool) -> &'static str {
    match (d, lowest) {
        (DType::UInt8, true) => "0",
        (DType::UInt8, false) => "255",
        (_, true) => "(long long)0x8000000000000000ULL",
        (_, false) => "0x7fffffffffffffffLL",
    }
}
