//! The element-wise kernels: unary and binary ops, `SelectV2`, casts,
//! strided copies and gathers, one CUDA C source per (op, dtype). Reductions
//! are in `reduction.rs`; the shared prelude and type mapping in `mod.rs`.

use super::{c_type, compute_type, grid_stride, load, store, unsigned_of, KernelSource};
use crate::runtime::dtype::DType;
use crate::runtime::op::{BinaryOp, UnaryOp};

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
        UnaryOp::Erf => via_double("erf"),
        UnaryOp::Erfc => via_double("erfc"),
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
        UnaryOp::Tan => via_double("tan"),
        UnaryOp::Asin => via_double("asin"),
        UnaryOp::Acos => via_double("acos"),
        UnaryOp::Atan => via_double("atan"),
        UnaryOp::Sinh => via_double("sinh"),
        UnaryOp::Cosh => via_double("cosh"),
        UnaryOp::Asinh => via_double("asinh"),
        UnaryOp::Acosh => via_double("acosh"),
        UnaryOp::Atanh => via_double("atanh"),
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
    let params = format!("const {t}* in, {t}* out, u64 n");
    grid_stride(
        unary_name(op, d),
        &params,
        ("i", "n"),
        &format!("out[i] = {out};"),
    )
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
    let params = format!(
        "const {t}* a, const {t}* b, {ot}* out, u64 n, const u64* info, int a_flat, int b_flat"
    );
    let body = format!(
        "u64 ia = a_flat ? i : strided(i, info, 0);\n    \
         u64 ib = b_flat ? i : strided(i, info, 1);\n    \
         {ct} x = {x}; {ct} y = {y};\n    \
         out[i] = {out};"
    );
    grid_stride(binary_name(op, d), &params, ("i", "n"), &body)
}

/// Name of the `where` kernel.
pub fn select_name(d: DType) -> String {
    format!("SelectV2_{}", d.name())
}

/// `where(c, x, y)` with all three broadcast through `info` (operands 0, 1, 2).
pub fn select(d: DType) -> Option<KernelSource> {
    let t = c_type(d)?;
    let params = format!(
        "const unsigned char* c, const {t}* x, const {t}* y, {t}* out, u64 n, const u64* info"
    );
    let body = "out[i] = c[strided(i, info, 0)] ? x[strided(i, info, 1)] : y[strided(i, info, 2)];";
    grid_stride(select_name(d), &params, ("i", "n"), body)
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
    let params = format!("const {tf}* in, {tt}* out, u64 n");
    grid_stride(cast_name(from, to), &params, ("i", "n"), &body)
}

/// Name of the strided-copy kernel (transpose, broadcast, slicing with steps).
pub fn copy_name(d: DType) -> String {
    format!("StridedCopy_{}", d.name())
}

/// `out[i] = in[offset(i)]` with the input's strides in `info` (operand 0)
/// plus a base offset: the copy behind permutations and strided slices.
pub fn strided_copy(d: DType) -> Option<KernelSource> {
    let t = c_type(d)?;
    let params = format!("const {t}* in, {t}* out, u64 n, const u64* info, u64 base");
    let body = "out[i] = in[base + strided(i, info, 0)];";
    grid_stride(copy_name(d), &params, ("i", "n"), body)
}

/// Name of the gather kernel.
pub fn gather_name(d: DType) -> String {
    format!("Gather_{}", d.name())
}

/// `out[i] = in[idx[i]]` (the copy behind `take` with an explicit index list).
pub fn gather(d: DType) -> Option<KernelSource> {
    let t = c_type(d)?;
    let params = format!("const {t}* in, {t}* out, const u64* idx, u64 n");
    grid_stride(gather_name(d), &params, ("i", "n"), "out[i] = in[idx[i]];")
}
