//! CUDA C sources of the device kernels, generated per (op, dtype) from the
//! op markers in [`crate::runtime::op`], so kernel names derive from the same
//! names the CPU backend and the error texts use (`AddV2_float32`).
//!
//! This file is plain string generation (no CUDA needed): the CUDA backend
//! compiles a source with NVRTC on first use and caches the module per
//! (kernel, device); the tests compile every source whenever libnvrtc loads.
//! Which (op, dtype) pairs exist here is the backend's decision of what runs
//! on the device; everything else takes the explicit, counted host fallback.
//!
//! Semantics mirror `backend/cpu` bit for bit where IEEE allows: floats
//! compute in their own precision (f16 through f32, as the CPU does), f32
//! transcendental functions evaluate in double and round once (the CPU uses
//! correctly rounded libm), and the sources are compiled with `--fmad=false`
//! so `a * b + c` is never fused.

use crate::runtime::dtype::{DType, ALL_DTYPES};
use crate::runtime::op::{BinaryOp, ReduceOp, UnaryOp};

/// The largest rank a strided kernel handles (TensorFlow's GPU kernels stop at 8 too).
pub const MAX_RANK: usize = 8;

/// Threads per block for every kernel.
pub const BLOCK: u32 = 256;

/// One kernel: the module's source and the entry point's name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelSource {
    /// The `extern "C" __global__` function name, also the cache key.
    pub name: String,
    /// The complete CUDA C translation unit.
    pub source: String,
}

/// The C type that holds a dtype's elements in device memory (`None` for strings).
pub fn c_type(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::Bool | DType::UInt8 => "unsigned char",
        DType::Int8 => "signed char",
        DType::Int16 => "short",
        DType::Int32 => "int",
        DType::Int64 => "long long",
        DType::Float16 => "unsigned short",
        DType::Float32 => "float",
        DType::Float64 => "double",
        DType::String => return None,
    })
}

/// The type arithmetic happens in (f16 computes in f32, as the CPU backend does).
fn compute_type(d: DType) -> &'static str {
    match d {
        DType::Float16 => "float",
        other => c_type(other).unwrap_or("int"),
    }
}

/// The unsigned type of an integer's width (wrapping arithmetic without C's
/// signed-overflow undefined behaviour).
fn unsigned_of(d: DType) -> &'static str {
    match d {
        DType::Int8 | DType::UInt8 | DType::Bool => "unsigned char",
        DType::Int16 => "unsigned short",
        DType::Int32 => "unsigned int",
        _ => "unsigned long long",
    }
}

/// Shared helpers: f16 conversion through PTX `cvt` (no headers needed, so
/// NVRTC compiles the sources with nothing but libnvrtc) and the strided
/// offset of a flat output index.
const PRELUDE: &str = r#"
typedef unsigned long long u64;
__device__ __forceinline__ float h2f(unsigned short h) {
    float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}
__device__ __forceinline__ unsigned short f2h(float f) {
    unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
__device__ __forceinline__ unsigned short d2h(double f) {
    unsigned short h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(f)); return h;
}
__device__ __forceinline__ int h_isnan(unsigned short h) {
    return (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
}
// info = [rank, dims[rank], strides of operand 0[rank], strides of operand 1[rank], ...]
__device__ __forceinline__ u64 strided(u64 i, const u64* info, int operand) {
    int rank = (int)info[0];
    const u64* dims = info + 1;
    const u64* st = info + 1 + rank * (1 + operand);
    u64 off = 0;
    for (int d = rank - 1; d >= 0; --d) {
        u64 q = i / dims[d];
        off += (i - q * dims[d]) * st[d];
        i = q;
    }
    return off;
}
"#;

fn load(d: DType, expr: &str) -> String {
    match d {
        DType::Float16 => format!("h2f({expr})"),
        _ => expr.to_string(),
    }
}

fn store(d: DType, expr: &str) -> String {
    match d {
        DType::Float16 => format!("f2h({expr})"),
        _ => format!("({})({expr})", c_type(d).unwrap_or("int")),
    }
}

/// Name of the element-wise unary kernel.
pub fn unary_name(op: UnaryOp, d: DType) -> String {
    format!("{}_{}", op.name(), d.name())
}

/// The expression computing `op(x)` in the compute type, or `None` when the
/// device does not run it (the backend falls back to the host).
fn unary_expr(op: UnaryOp, d: DType) -> Option<String> {
    let float = d.is_floating();
    if d == DType::Bool {
        return (op == UnaryOp::LogicalNot).then(|| "(x == 0)".into());
    }
    if !d.is_numeric() {
        return None;
    }
    let u = unsigned_of(d);
    let ct = compute_type(d);
    if !float {
        return Some(match op {
            UnaryOp::Neg => format!("({ct})(({u})0 - ({u})x)"),
            UnaryOp::Abs => format!("(x < 0 ? ({ct})(({u})0 - ({u})x) : x)"),
            UnaryOp::Square => format!("({ct})(({u})x * ({u})x)"),
            UnaryOp::Sign => format!("({ct})(x < 0 ? -1 : (x == 0 ? 0 : 1))"),
            UnaryOp::Relu => format!("(x <= 0 ? ({ct})0 : x)"),
            UnaryOp::Round => "x".into(),
            _ => return None,
        });
    }
    // libm-like functions: f64 natively; f32 and f16 evaluate in double and round once
    let via_double = |f: &str| -> String {
        match d {
            DType::Float64 => format!("{f}(x)"),
            _ => format!("(float){f}((double)x)"),
        }
    };
    Some(match op {
        UnaryOp::Neg => "-x".into(),
        UnaryOp::Abs => "fabs(x)".into(),
        UnaryOp::Square => "x * x".into(),
        UnaryOp::Sqrt => "sqrt(x)".into(),
        UnaryOp::Rsqrt => format!("({ct})1 / sqrt(x)"),
        UnaryOp::Exp => via_double("exp"),
        UnaryOp::Log => via_double("log"),
        UnaryOp::Log1p => via_double("log1p"),
        UnaryOp::Expm1 => via_double("expm1"),
        UnaryOp::Sin => via_double("sin"),
        UnaryOp::Cos => via_double("cos"),
        UnaryOp::Tanh => via_double("tanh"),
        UnaryOp::Sigmoid => format!("({ct})1 / (({ct})1 + {})", {
            match d {
                DType::Float64 => "exp(-x)".to_string(),
                _ => "(float)exp((double)-x)".to_string(),
            }
        }),
        UnaryOp::Relu => format!("(x <= 0 ? ({ct})0 : x)"),
        UnaryOp::Floor => "floor(x)".into(),
        UnaryOp::Ceil => "ceil(x)".into(),
        UnaryOp::Round => "rint(x)".into(),
        UnaryOp::Sign => {
            format!("(x != x ? x : (x < 0 ? ({ct})-1 : (x == 0 ? ({ct})0 : ({ct})1)))")
        }
        UnaryOp::Reciprocal => format!("({ct})1 / x"),
        UnaryOp::LogicalNot => return None,
    })
}

/// The unary kernel for `(op, d)`, or `None` when it runs on the host.
pub fn unary(op: UnaryOp, d: DType) -> Option<KernelSource> {
    let t = c_type(d)?;
    let ct = compute_type(d);
    let mut expr = unary_expr(op, d)?;
    // f16 math: the CPU widens to f64 and rounds straight to half
    let out = if d == DType::Float16 && !matches!(op, UnaryOp::Neg | UnaryOp::Abs) {
        expr = expr.replace("(float)", "");
        let x = "(double)h2f(in[i])";
        format!("d2h([&]() {{ double x = {x}; return (double)({expr}); }}())")
    } else {
        let x = load(d, "in[i]");
        store(d, &format!("[&]() {{ {ct} x = {x}; return ({expr}); }}()"))
    };
    let name = unary_name(op, d);
    Some(KernelSource {
        source: format!(
            "{PRELUDE}\nextern \"C\" __global__ void {name}(const {t}* in, {t}* out, u64 n) {{\n  \
             for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x) {{\n    \
             out[i] = {out};\n  }}\n}}\n"
        ),
        name,
    })
}

/// Name of the element-wise binary kernel.
pub fn binary_name(op: BinaryOp, d: DType) -> String {
    format!("{}_{}", op.name(), d.name())
}

fn binary_expr(op: BinaryOp, d: DType) -> Option<String> {
    if d == DType::Bool {
        return Some(
            match op {
                BinaryOp::LogicalAnd | BinaryOp::Mul | BinaryOp::Minimum => "(x & y)",
                BinaryOp::LogicalOr | BinaryOp::Add | BinaryOp::Maximum => "(x | y)",
                BinaryOp::Equal => "(x == y)",
                BinaryOp::NotEqual => "(x != y)",
                BinaryOp::Less => "(!x & y)",
                BinaryOp::LessEqual => "(!x | y)",
                BinaryOp::Greater => "(x & !y)",
                BinaryOp::GreaterEqual => "(x | !y)",
                _ => return None,
            }
            .into(),
        );
    }
    if !d.is_numeric() {
        return None;
    }
    let ct = compute_type(d);
    let u = unsigned_of(d);
    let float = d.is_floating();
    Some(match op {
        BinaryOp::Add if float => "x + y".into(),
        BinaryOp::Sub if float => "x - y".into(),
        BinaryOp::Mul if float => "x * y".into(),
        BinaryOp::RealDiv if float => "x / y".into(),
        BinaryOp::Add => format!("({ct})(({u})x + ({u})y)"),
        BinaryOp::Sub => format!("({ct})(({u})x - ({u})y)"),
        BinaryOp::Mul => format!("({ct})(({u})x * ({u})y)"),
        BinaryOp::Pow if float => match d {
            DType::Float64 => "pow(x, y)".into(),
            _ => "(float)pow((double)x, (double)y)".into(),
        },
        BinaryOp::Maximum if float => "((x != x || y != y) ? x + y : (x >= y ? x : y))".into(),
        BinaryOp::Minimum if float => "((x != x || y != y) ? x + y : (x <= y ? x : y))".into(),
        BinaryOp::Maximum => "(x >= y ? x : y)".into(),
        BinaryOp::Minimum => "(x <= y ? x : y)".into(),
        BinaryOp::Equal => "(x == y)".into(),
        BinaryOp::NotEqual => "(x != y)".into(),
        BinaryOp::Less => "(x < y)".into(),
        BinaryOp::LessEqual => "(x <= y)".into(),
        BinaryOp::Greater => "(x > y)".into(),
        BinaryOp::GreaterEqual => "(x >= y)".into(),
        // integer division (TF's divide-by-zero error) and floor division /
        // modulo of either kind stay on the host, where their exact rules live
        _ => return None,
    })
}

/// The broadcasting binary kernel for `(op, d)`, or `None` when it runs on
/// the host. Each operand is read contiguously when its flag says it already
/// has the output's shape, else through its strides in `info`.
pub fn binary(op: BinaryOp, d: DType) -> Option<KernelSource> {
    let t = c_type(d)?;
    let ct = compute_type(d);
    let expr = binary_expr(op, d)?;
    let (ot, out) = if op.is_comparison() || d == DType::Bool {
        ("unsigned char", format!("(unsigned char)({expr})"))
    } else {
        (t, store(d, &expr))
    };
    let (x, y) = (load(d, "a[ia]"), load(d, "b[ib]"));
    let name = binary_name(op, d);
    Some(KernelSource {
        source: format!(
            "{PRELUDE}\nextern \"C\" __global__ void {name}(const {t}* a, const {t}* b, {ot}* out, u64 n, \
             const u64* info, int a_flat, int b_flat) {{\n  \
             for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x) {{\n    \
             u64 ia = a_flat ? i : strided(i, info, 0);\n    \
             u64 ib = b_flat ? i : strided(i, info, 1);\n    \
             {ct} x = {x}; {ct} y = {y};\n    \
             out[i] = {out};\n  }}\n}}\n"
        ),
        name,
    })
}

/// Name of the `where` kernel.
pub fn select_name(d: DType) -> String {
    format!("SelectV2_{}", d.name())
}

/// `where(c, x, y)` with all three broadcast through `info` (operands 0, 1, 2).
pub fn select(d: DType) -> Option<KernelSource> {
    let t = c_type(d)?;
    let name = select_name(d);
    Some(KernelSource {
        source: format!(
            "{PRELUDE}\nextern \"C\" __global__ void {name}(const unsigned char* c, const {t}* x, const {t}* y, \
             {t}* out, u64 n, const u64* info) {{\n  \
             for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x) {{\n    \
             out[i] = c[strided(i, info, 0)] ? x[strided(i, info, 1)] : y[strided(i, info, 2)];\n  }}\n}}\n"
        ),
        name,
    })
}

/// Name of a cast kernel.
pub fn cast_name(from: DType, to: DType) -> String {
    format!("Cast_{}_{}", from.name(), to.name())
}

/// TensorFlow's `Cast` between numeric and bool dtypes, with the CPU
/// backend's rules: float to int truncates and maps NaN and out-of-range
/// values to the minimum of int32 (narrow targets, then wrapped) or int64;
/// ints wrap; anything nonzero is `true`; every conversion to a float goes
/// through double, as the CPU's does.
pub fn cast(from: DType, to: DType) -> Option<KernelSource> {
    let (tf, tt) = (c_type(from)?, c_type(to)?);
    let x = match from {
        DType::Float16 => "h2f(in[i])".to_string(),
        _ => "in[i]".to_string(),
    };
    let body = match to {
        DType::Bool => format!(
            "out[i] = (unsigned char)({});",
            if from == DType::Float16 {
                "(in[i] & 0x7fff) != 0".to_string()
            } else {
                format!("{x} != 0")
            }
        ),
        DType::Float16 => format!("out[i] = d2h((double){x});"),
        DType::Float32 => format!("out[i] = (float)(double){x};"),
        DType::Float64 => format!("out[i] = (double){x};"),
        DType::Int64 if from.is_floating() => format!(
            "double v = (double){x}; out[i] = (v != v || v < -9.223372036854776e18 || v >= 9.223372036854776e18) \
             ? (long long)0x8000000000000000ULL : (long long)v;"
        ),
        _ if from.is_floating() => format!(
            "double v = (double){x}; int w = (v != v || v < -2147483648.0 || v >= 2147483648.0) \
             ? (int)0x80000000U : (int)v; out[i] = ({tt})w;"
        ),
        _ => format!("out[i] = ({tt})(long long){x};"),
    };
    let name = cast_name(from, to);
    Some(KernelSource {
        source: format!(
            "{PRELUDE}\nextern \"C\" __global__ void {name}(const {tf}* in, {tt}* out, u64 n) {{\n  \
             for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x) {{\n    \
             {body}\n  }}\n}}\n"
        ),
        name,
    })
}

/// Name of the strided-copy kernel (transpose, broadcast, slicing with steps).
pub fn copy_name(d: DType) -> String {
    format!("StridedCopy_{}", d.name())
}

/// `out[i] = in[offset(i)]` with the input's strides in `info` (operand 0)
/// plus a base offset: the copy behind permutations and strided slices.
pub fn strided_copy(d: DType) -> Option<KernelSource> {
    let t = c_type(d)?;
    let name = copy_name(d);
    Some(KernelSource {
        source: format!(
            "{PRELUDE}\nextern \"C\" __global__ void {name}(const {t}* in, {t}* out, u64 n, const u64* info, u64 base) {{\n  \
             for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x) {{\n    \
             out[i] = in[base + strided(i, info, 0)];\n  }}\n}}\n"
        ),
        name,
    })
}

/// Name of the gather kernel.
pub fn gather_name(d: DType) -> String {
    format!("Gather_{}", d.name())
}

/// `out[i] = in[idx[i]]` (the copy behind `take` with an explicit index list).
pub fn gather(d: DType) -> Option<KernelSource> {
    let t = c_type(d)?;
    let name = gather_name(d);
    Some(KernelSource {
        source: format!(
            "{PRELUDE}\nextern \"C\" __global__ void {name}(const {t}* in, {t}* out, const u64* idx, u64 n) {{\n  \
             for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x) {{\n    \
             out[i] = in[idx[i]];\n  }}\n}}\n"
        ),
        name,
    })
}

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
    let name = reduce_rows_name(op, d);
    Some(KernelSource {
        source: format!(
            "{PRELUDE}\nextern \"C\" __global__ void {name}(const {t}* in, {t}* out, u64 rows, u64 inner) {{\n  \
             for (u64 j = blockIdx.x * (u64)blockDim.x + threadIdx.x; j < inner; j += (u64)blockDim.x * gridDim.x) {{\n    \
             {ct} p = {x0};\n    \
             for (u64 r = 1; r < rows; ++r) {{ {ct} q = {x}; p = {fold}; }}\n    \
             out[j] = {finish};\n  }}\n}}\n"
        ),
        name,
    })
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
    let name = reduce_serial_name(op, d);
    Some(KernelSource {
        source: format!(
            "{PRELUDE}\nextern \"C\" __global__ void {name}(const {t}* in, {t}* out, u64 outer, u64 inner) {{\n  \
             for (u64 row = blockIdx.x * (u64)blockDim.x + threadIdx.x; row < outer; row += (u64)blockDim.x * gridDim.x) {{\n    \
             {ct} p = ({ct})1;\n    \
             for (u64 k = 0; k < inner; ++k) p = p * {x};\n    \
             out[row] = {out};\n  }}\n}}\n"
        ),
        name,
    })
}

fn int_extreme(d: DType, lowest: bool) -> &'static str {
    match (d, lowest) {
        (DType::UInt8, true) => "0",
        (DType::UInt8, false) => "255",
        (_, true) => "(long long)0x8000000000000000ULL",
        (_, false) => "0x7fffffffffffffffLL",
    }
}

/// Every dtype a device buffer can hold: all but strings.
pub const DEVICE_DTYPES: &[DType] = ALL_DTYPES.split_at(ALL_DTYPES.len() - 1).0;

const UNARY_OPS: [UnaryOp; 20] = [
    UnaryOp::Neg,
    UnaryOp::Abs,
    UnaryOp::Square,
    UnaryOp::Sqrt,
    UnaryOp::Rsqrt,
    UnaryOp::Exp,
    UnaryOp::Log,
    UnaryOp::Log1p,
    UnaryOp::Expm1,
    UnaryOp::Sin,
    UnaryOp::Cos,
    UnaryOp::Tanh,
    UnaryOp::Sigmoid,
    UnaryOp::Relu,
    UnaryOp::Floor,
    UnaryOp::Ceil,
    UnaryOp::Round,
    UnaryOp::Sign,
    UnaryOp::Reciprocal,
    UnaryOp::LogicalNot,
];

const BINARY_OPS: [BinaryOp; 18] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::RealDiv,
    BinaryOp::TruncateDiv,
    BinaryOp::FloorDiv,
    BinaryOp::FloorMod,
    BinaryOp::Pow,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Equal,
    BinaryOp::NotEqual,
    BinaryOp::Less,
    BinaryOp::LessEqual,
    BinaryOp::Greater,
    BinaryOp::GreaterEqual,
    BinaryOp::LogicalAnd,
    BinaryOp::LogicalOr,
];

const REDUCE_OPS: [ReduceOp; 7] = [
    ReduceOp::Sum,
    ReduceOp::Prod,
    ReduceOp::Max,
    ReduceOp::Min,
    ReduceOp::Mean,
    ReduceOp::Any,
    ReduceOp::All,
];

/// Every kernel source the backend can ask for (for the NVRTC test and warm-up).
pub fn all() -> Vec<KernelSource> {
    let mut out = Vec::new();
    for &d in DEVICE_DTYPES {
        out.extend(UNARY_OPS.iter().filter_map(|&op| unary(op, d)));
        out.extend(BINARY_OPS.iter().filter_map(|&op| binary(op, d)));
        out.extend(REDUCE_OPS.iter().filter_map(|&op| reduce(op, d)));
        out.extend(REDUCE_OPS.iter().filter_map(|&op| reduce_rows(op, d)));
        out.extend(REDUCE_OPS.iter().filter_map(|&op| reduce_pairwise(op, d)));
        out.extend(REDUCE_OPS.iter().filter_map(|&op| reduce_serial(op, d)));
        out.extend(DEVICE_DTYPES.iter().filter_map(|&to| cast(d, to)));
        out.extend(select(d));
        out.extend(strided_copy(d));
        out.extend(gather(d));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_derive_from_op_markers() {
        let k = binary(BinaryOp::Add, DType::Float32).map(|k| k.name);
        assert_eq!(k.as_deref(), Some("AddV2_float32"));
        assert_eq!(unary_name(UnaryOp::Exp, DType::Float16), "Exp_float16");
        assert_eq!(
            cast_name(DType::Int32, DType::Float32),
            "Cast_int32_float32"
        );
        // integer division keeps its host semantics (division-by-zero error)
        assert!(binary(BinaryOp::FloorDiv, DType::Int32).is_none());
        assert!(unary(UnaryOp::Exp, DType::Int32).is_none());
        assert!(binary(BinaryOp::Add, DType::String).is_none());
    }

    /// The pairwise kernels' plan (leaves chosen by the top `depth` bits of
    /// a thread index, then adjacent parts paired one level per launch),
    /// replayed on the host: it must add in exactly numpy's order.
    #[test]
    fn pairwise_plan_adds_in_numpys_order() {
        use crate::runtime::backend::cpu::reduce::pairwise;
        let mut seed = 7u64;
        for n in [0usize, 5, 127, 2048, 5000, 100_003, (1 << 20) + 13] {
            let a: Vec<f32> = (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    ((seed >> 40) as f32 / 16777216.0) - 0.37
                })
                .collect();
            // the backend's choice of depth
            let depth = if n >= 2048 {
                (n / 1024).ilog2().min(20)
            } else {
                0
            };
            let per = 1usize << depth;
            let mut parts = vec![f32::NAN; per];
            for (t, part) in parts.iter_mut().enumerate() {
                let (mut lo, mut len) = (0usize, n);
                let mut owner = true;
                for l in (0..depth).rev() {
                    if len <= 128 {
                        owner = t & ((2 << l) - 1) == 0;
                        break;
                    }
                    let n2 = len / 2 - (len / 2) % 8;
                    if (t >> l) & 1 == 1 {
                        lo += n2;
                        len -= n2;
                    } else {
                        len = n2;
                    }
                }
                if owner {
                    *part = pairwise(&a[lo..lo + len]);
                }
            }
            while parts.len() > 1 {
                parts = parts.chunks(2).map(|p| p[0] + p[1]).collect();
            }
            assert_eq!(
                parts[0].to_bits(),
                pairwise(&a).to_bits(),
                "n = {n}, depth {depth}"
            );
        }
    }

    #[test]
    fn every_source_defines_its_entry_point() {
        let all = all();
        assert!(all.len() > 300, "{} kernels", all.len());
        let mut names = std::collections::HashSet::new();
        for k in &all {
            assert!(names.insert(k.name.clone()), "duplicate kernel {}", k.name);
            assert!(
                k.source.contains(&format!("void {}(", k.name)),
                "{} missing from its source",
                k.name
            );
        }
    }
}
