//! Math ops, registered under both `tf` and `tf.math`: element-wise binary
//! and unary ops, comparisons, logical ops, reductions, `argmax`/`argmin`
//! and `matmul`. Operands convert as TensorFlow's generated ops do: Python
//! values take the dtype of the first tensor argument.

use super::convert::{axes_arg, axis_arg, operand, opt_dtype, runtime_err, to_tensor, tv};
use crate::modules::ModuleBuilder;
use crate::runtime::ops;
use crate::runtime::{ArgOp, BinaryOp, DType, ReduceOp, Semantics, Tensor, UnaryOp};
use crate::value::{Args, NativeFn, PyResult, Value, Vm};

/// Converts two operands the way `args_to_matching_eager` does: the first
/// tensor's dtype wins; with none, `x` infers and `y` follows it.
pub fn matching(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<(Tensor, Tensor)> {
    match (x, y) {
        (Value::Tensor(a), _) => Ok((a.clone(), operand(vm, y, a.dtype(), a.device(), false)?)),
        (_, Value::Tensor(b)) => Ok((operand(vm, x, b.dtype(), b.device(), false)?, b.clone())),
        _ => {
            let a = to_tensor(vm, x, None)?;
            let b = operand(vm, y, a.dtype(), a.device(), false)?;
            Ok((a, b))
        }
    }
}

/// `tf.add`'s conversion: `x` infers, `y` uses x's dtype only as a hint.
fn hinted(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<(Tensor, Tensor)> {
    let a = to_tensor(vm, x, None)?;
    let b = operand(vm, y, a.dtype(), a.device(), true)?;
    Ok((a, b))
}

macro_rules! binary_fns {
    ($($name:ident => $body:expr),* $(,)?) => {
        $(fn $name(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
            let f: fn(&dyn Vm, &Value, &Value) -> PyResult<Value> = $body;
            f(vm, a.get(0), a.get(1))
        })*
    };
}

fn bin(op: BinaryOp, vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<Value> {
    let (a, b) = matching(vm, x, y)?;
    tv(vm, ops::binary(op, &a, &b))
}

binary_fns! {
    add => |vm, x, y| { let (a, b) = hinted(vm, x, y)?; tv(vm, ops::add(&a, &b)) },
    subtract => |vm, x, y| bin(BinaryOp::Sub, vm, x, y),
    multiply => |vm, x, y| bin(BinaryOp::Mul, vm, x, y),
    truediv => |vm, x, y| { let (a, b) = hinted(vm, x, y)?; tv(vm, ops::truediv(&a, &b)) },
    floordiv => |vm, x, y| bin(BinaryOp::FloorDiv, vm, x, y),
    floormod => |vm, x, y| bin(BinaryOp::FloorMod, vm, x, y),
    pow => |vm, x, y| bin(BinaryOp::Pow, vm, x, y),
    maximum => |vm, x, y| bin(BinaryOp::Maximum, vm, x, y),
    minimum => |vm, x, y| bin(BinaryOp::Minimum, vm, x, y),
    equal => |vm, x, y| bin(BinaryOp::Equal, vm, x, y),
    not_equal => |vm, x, y| bin(BinaryOp::NotEqual, vm, x, y),
    less => |vm, x, y| bin(BinaryOp::Less, vm, x, y),
    less_equal => |vm, x, y| bin(BinaryOp::LessEqual, vm, x, y),
    greater => |vm, x, y| bin(BinaryOp::Greater, vm, x, y),
    greater_equal => |vm, x, y| bin(BinaryOp::GreaterEqual, vm, x, y),
    logical_and => |vm, x, y| bin(BinaryOp::LogicalAnd, vm, x, y),
    logical_or => |vm, x, y| bin(BinaryOp::LogicalOr, vm, x, y),
}

macro_rules! unary_fns {
    ($($name:ident => $op:expr),* $(,)?) => {
        $(fn $name(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
            let t = to_tensor(vm, a.get(0), None)?;
            tv(vm, ops::unary($op, &t))
        })*
    };
}

unary_fns! {
    negative => UnaryOp::Neg,
    abs => UnaryOp::Abs,
    square => UnaryOp::Square,
    sqrt => UnaryOp::Sqrt,
    exp => UnaryOp::Exp,
    log => UnaryOp::Log,
    logical_not => UnaryOp::LogicalNot,
    sigmoid => UnaryOp::Sigmoid,
    tanh => UnaryOp::Tanh,
    sin => UnaryOp::Sin,
    cos => UnaryOp::Cos,
    floor => UnaryOp::Floor,
    ceil => UnaryOp::Ceil,
    round => UnaryOp::Round,
    sign => UnaryOp::Sign,
    reciprocal => UnaryOp::Reciprocal,
    rsqrt => UnaryOp::Rsqrt,
    log1p => UnaryOp::Log1p,
    expm1 => UnaryOp::Expm1,
}

macro_rules! reduce_fns {
    ($($name:ident => $op:expr),* $(,)?) => {
        $(fn $name(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
            let t = to_tensor(vm, a.get(0), None)?;
            let axes = axes_arg(vm, a.get(1))?;
            let keep = vm.truthy(a.get(2))?;
            tv(vm, ops::reduce($op, &t, axes.as_deref(), keep))
        })*
    };
}

reduce_fns! {
    reduce_sum => ReduceOp::Sum,
    reduce_mean => ReduceOp::Mean,
    reduce_max => ReduceOp::Max,
    reduce_min => ReduceOp::Min,
    reduce_prod => ReduceOp::Prod,
    reduce_any => ReduceOp::Any,
    reduce_all => ReduceOp::All,
}

fn arg(op: ArgOp, vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let axis = match a.opt(1) {
        Some(v) => axis_arg(vm, v)?,
        None => 0,
    };
    let r = ops::arg_reduce(op, &t, axis, Semantics::Tf).map_err(runtime_err)?;
    match opt_dtype(vm, a.get(2))? {
        Some(d) if d != DType::Int64 => tv(vm, ops::cast(&r, d)),
        _ => Ok(Value::Tensor(r)),
    }
}

fn argmax(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    arg(ArgOp::ArgMax, vm, a)
}

fn argmin(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    arg(ArgOp::ArgMin, vm, a)
}

/// `tf.math.add_n(inputs)`: the sum of a list of equally shaped tensors.
fn add_n(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let items = vm.collect(a.get(0))?;
    if items.is_empty() {
        return Err(crate::value::PyErr::new(
            crate::value::ExcType::ValueError,
            "inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and shape",
        ));
    }
    let mut ts = Vec::with_capacity(items.len());
    for v in &items {
        ts.push(match ts.first() {
            Some(first) => {
                let first: &Tensor = first;
                operand(vm, v, first.dtype(), first.device(), false)?
            }
            None => to_tensor(vm, v, None)?,
        });
    }
    tv(vm, ops::add_n(&ts))
}

/// `tf.matmul` / `tf.linalg.matmul`.
pub fn matmul(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (x, y) = matching(vm, a.get(0), a.get(1))?;
    let ta = vm.truthy(a.get(2))?;
    let tb = vm.truthy(a.get(3))?;
    tv(vm, ops::matmul(&x, &y, ta, tb))
}

type Entry = (&'static str, NativeFn, &'static str);

const FUNCTIONS: &[Entry] = &[
    ("add(x, y, name=None)", add, "`x + y` element-wise, with broadcasting."),
    ("subtract(x, y, name=None)", subtract, "`x - y` element-wise."),
    ("multiply(x, y, name=None)", multiply, "`x * y` element-wise."),
    ("divide(x, y, name=None)", truediv, "`x / y` (integers divide to floats)."),
    ("truediv(x, y, name=None)", truediv, "`x / y` (integers divide to floats)."),
    ("floordiv(x, y, name=None)", floordiv, "`x // y`, rounding down."),
    ("mod(x, y, name=None)", floormod, "`x % y` with the sign of `y`."),
    ("floormod(x, y, name=None)", floormod, "`x % y` with the sign of `y`."),
    ("pow(x, y, name=None)", pow, "`x ** y` element-wise."),
    ("maximum(x, y, name=None)", maximum, "The larger of `x` and `y`, element-wise."),
    ("minimum(x, y, name=None)", minimum, "The smaller of `x` and `y`, element-wise."),
    ("negative(x, name=None)", negative, "`-x` element-wise."),
    ("abs(x, name=None)", abs, "`|x|` element-wise."),
    ("square(x, name=None)", square, "`x * x` element-wise."),
    ("sqrt(x, name=None)", sqrt, "Square root, element-wise (floats)."),
    ("exp(x, name=None)", exp, "`e ** x`, element-wise (floats)."),
    ("log(x, name=None)", log, "Natural logarithm, element-wise (floats)."),
    ("sigmoid(x, name=None)", sigmoid, "`1 / (1 + exp(-x))`, element-wise (floats)."),
    ("tanh(x, name=None)", tanh, "Hyperbolic tangent, element-wise (floats)."),
    ("sin(x, name=None)", sin, "Sine, element-wise (floats)."),
    ("cos(x, name=None)", cos, "Cosine, element-wise (floats)."),
    ("floor(x, name=None)", floor, "Round down, element-wise (floats)."),
    ("ceil(x, name=None)", ceil, "Round up, element-wise (floats)."),
    ("round(x, name=None)", round, "Round half to even, element-wise."),
    ("sign(x, name=None)", sign, "-1, 0 or 1 by the sign of `x`, element-wise."),
    ("reciprocal(x, name=None)", reciprocal, "`1 / x`, element-wise (floats)."),
    ("rsqrt(x, name=None)", rsqrt, "`1 / sqrt(x)`, element-wise (floats)."),
    ("log1p(x, name=None)", log1p, "`log(1 + x)`, element-wise (floats)."),
    ("expm1(x, name=None)", expm1, "`exp(x) - 1`, element-wise (floats)."),
    ("equal(x, y, name=None)", equal, "`x == y` element-wise."),
    ("not_equal(x, y, name=None)", not_equal, "`x != y` element-wise."),
    ("less(x, y, name=None)", less, "`x < y` element-wise."),
    ("less_equal(x, y, name=None)", less_equal, "`x <= y` element-wise."),
    ("greater(x, y, name=None)", greater, "`x > y` element-wise."),
    ("greater_equal(x, y, name=None)", greater_equal, "`x >= y` element-wise."),
    ("logical_and(x, y, name=None)", logical_and, "Boolean and, element-wise."),
    ("logical_or(x, y, name=None)", logical_or, "Boolean or, element-wise."),
    ("logical_not(x, name=None)", logical_not, "Boolean not, element-wise."),
    ("reduce_sum(input_tensor, axis=None, keepdims=False, name=None)", reduce_sum, "Sum over axes."),
    ("reduce_mean(input_tensor, axis=None, keepdims=False, name=None)", reduce_mean, "Mean over axes (integer division for ints)."),
    ("reduce_max(input_tensor, axis=None, keepdims=False, name=None)", reduce_max, "Maximum over axes."),
    ("reduce_min(input_tensor, axis=None, keepdims=False, name=None)", reduce_min, "Minimum over axes."),
    ("reduce_prod(input_tensor, axis=None, keepdims=False, name=None)", reduce_prod, "Product over axes."),
    ("reduce_any(input_tensor, axis=None, keepdims=False, name=None)", reduce_any, "Logical or over axes."),
    ("reduce_all(input_tensor, axis=None, keepdims=False, name=None)", reduce_all, "Logical and over axes."),
    ("argmax(input, axis=None, output_type=None, name=None)", argmax, "Index of the largest value along an axis."),
    ("argmin(input, axis=None, output_type=None, name=None)", argmin, "Index of the smallest value along an axis."),
    ("add_n(inputs, name=None)", add_n, "The sum of a list of tensors of one shape and dtype."),
    ("matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False, b_is_sparse=False, output_type=None, name=None)", matmul, "Matrix product `a @ b`."),
];

/// Registers the math ops into `m` (called for `tf` and for `tf.math`).
pub fn register(m: &mut ModuleBuilder, top_level: bool) {
    for &(sig, f, doc) in FUNCTIONS {
        // these exist only under tf.math; matmul only at the top level
        let name = sig.split('(').next().unwrap_or("");
        if (top_level
            && matches!(
                name,
                "floordiv"
                    | "mod"
                    | "floormod"
                    | "log"
                    | "log1p"
                    | "expm1"
                    | "ceil"
                    | "reciprocal"
                    | "rsqrt"
            ))
            || (!top_level && name == "matmul")
        {
            continue;
        }
        m.function(sig, f, doc);
    }
}
