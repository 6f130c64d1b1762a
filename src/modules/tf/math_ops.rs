//! Math ops, registered under both `tf` and `tf.math`: element-wise binary
//! and unary ops, comparisons, logical ops, reductions, `argmax`/`argmin`
//! and `matmul`. Operands convert as TensorFlow's generated ops do: Python
//! values take the dtype of the first tensor argument.

use super::convert::{axes, operand, opt_dtype, placed, runtime_err, to_tensor, Axis, Ints};
use crate::modules::ModuleBuilder;
use crate::object::{native, NativeDef};
use crate::runtime::ops;
use crate::runtime::{ArgOp, BinaryOp, DType, ReduceOp, Semantics, Tensor, UnaryOp};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

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

fn bin(op: BinaryOp, vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<Tensor> {
    let (a, b) = matching(vm, x, y)?;
    placed(vm, ops::binary(op, &a, &b))
}

/// Natives `f(x, y, name=None)` (`body` converts both operands and runs
/// the op), listed in `$table`.
macro_rules! binary_fns {
    ($table:ident: $($(#[$doc:meta])* $name:ident $sig:literal => $body:expr;)*) => {
        $(
            $(#[$doc])*
            #[native($sig)]
            fn $name(vm: &dyn Vm, x: &Value, y: &Value, _name: &Value) -> PyResult<Tensor> {
                let f: fn(&dyn Vm, &Value, &Value) -> PyResult<Tensor> = $body;
                f(vm, x, y)
            }
        )*
        const $table: &[NativeDef] = &[$($name::DEF),*];
    };
}

binary_fns! {
    BINARY:
    /// `x + y` element-wise, with broadcasting.
    add "add(x, y, name=None)" => |vm, x, y| {
        let (a, b) = hinted(vm, x, y)?;
        placed(vm, ops::add(&a, &b))
    };
    /// `x - y` element-wise.
    subtract "subtract(x, y, name=None)" => |vm, x, y| bin(BinaryOp::Sub, vm, x, y);
    /// `x * y` element-wise.
    multiply "multiply(x, y, name=None)" => |vm, x, y| bin(BinaryOp::Mul, vm, x, y);
    /// `x / y` (integers divide to floats).
    divide "divide(x, y, name=None)" => truediv_of;
    /// `x / y` (integers divide to floats).
    truediv "truediv(x, y, name=None)" => truediv_of;
    /// `x // y`, rounding down.
    floordiv "floordiv(x, y, name=None)" => |vm, x, y| bin(BinaryOp::FloorDiv, vm, x, y);
    /// `x % y` with the sign of `y`.
    mod_ "mod(x, y, name=None)" => |vm, x, y| bin(BinaryOp::FloorMod, vm, x, y);
    /// `x % y` with the sign of `y`.
    floormod "floormod(x, y, name=None)" => |vm, x, y| bin(BinaryOp::FloorMod, vm, x, y);
    /// `x ** y` element-wise.
    pow "pow(x, y, name=None)" => |vm, x, y| bin(BinaryOp::Pow, vm, x, y);
    /// The larger of `x` and `y`, element-wise.
    maximum "maximum(x, y, name=None)" => |vm, x, y| bin(BinaryOp::Maximum, vm, x, y);
    /// The smaller of `x` and `y`, element-wise.
    minimum "minimum(x, y, name=None)" => |vm, x, y| bin(BinaryOp::Minimum, vm, x, y);
    /// `x == y` element-wise.
    equal "equal(x, y, name=None)" => |vm, x, y| bin(BinaryOp::Equal, vm, x, y);
    /// `x != y` element-wise.
    not_equal "not_equal(x, y, name=None)" => |vm, x, y| bin(BinaryOp::NotEqual, vm, x, y);
    /// `x < y` element-wise.
    less "less(x, y, name=None)" => |vm, x, y| bin(BinaryOp::Less, vm, x, y);
    /// `x <= y` element-wise.
    less_equal "less_equal(x, y, name=None)" => |vm, x, y| bin(BinaryOp::LessEqual, vm, x, y);
    /// `x > y` element-wise.
    greater "greater(x, y, name=None)" => |vm, x, y| bin(BinaryOp::Greater, vm, x, y);
    /// `x >= y` element-wise.
    greater_equal "greater_equal(x, y, name=None)" =>
        |vm, x, y| bin(BinaryOp::GreaterEqual, vm, x, y);
    /// Boolean and, element-wise.
    logical_and "logical_and(x, y, name=None)" => |vm, x, y| bin(BinaryOp::LogicalAnd, vm, x, y);
    /// Boolean or, element-wise.
    logical_or "logical_or(x, y, name=None)" => |vm, x, y| bin(BinaryOp::LogicalOr, vm, x, y);
}

fn truediv_of(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<Tensor> {
    let (a, b) = hinted(vm, x, y)?;
    placed(vm, ops::truediv(&a, &b))
}

/// Natives `f(x, name=None)` running one unary op, listed in `$table`.
macro_rules! unary_fns {
    ($table:ident: $($(#[$doc:meta])* $name:ident $sig:literal => $op:expr;)*) => {
        $(
            $(#[$doc])*
            #[native($sig)]
            fn $name(vm: &dyn Vm, x: Tensor, _name: &Value) -> PyResult<Tensor> {
                placed(vm, ops::unary($op, &x))
            }
        )*
        const $table: &[NativeDef] = &[$($name::DEF),*];
    };
}

unary_fns! {
    UNARY:
    /// `-x` element-wise.
    negative "negative(x, name=None)" => UnaryOp::Neg;
    /// `|x|` element-wise.
    abs "abs(x, name=None)" => UnaryOp::Abs;
    /// `x * x` element-wise.
    square "square(x, name=None)" => UnaryOp::Square;
    /// Square root, element-wise (floats).
    sqrt "sqrt(x, name=None)" => UnaryOp::Sqrt;
    /// `e ** x`, element-wise (floats).
    exp "exp(x, name=None)" => UnaryOp::Exp;
    /// Natural logarithm, element-wise (floats).
    log "log(x, name=None)" => UnaryOp::Log;
    /// `1 / (1 + exp(-x))`, element-wise (floats).
    sigmoid "sigmoid(x, name=None)" => UnaryOp::Sigmoid;
    /// Hyperbolic tangent, element-wise (floats).
    tanh "tanh(x, name=None)" => UnaryOp::Tanh;
    /// Sine, element-wise (floats).
    sin "sin(x, name=None)" => UnaryOp::Sin;
    /// Cosine, element-wise (floats).
    cos "cos(x, name=None)" => UnaryOp::Cos;
    /// Round down, element-wise (floats).
    floor "floor(x, name=None)" => UnaryOp::Floor;
    /// Round up, element-wise (floats).
    ceil "ceil(x, name=None)" => UnaryOp::Ceil;
    /// Round half to even, element-wise.
    round "round(x, name=None)" => UnaryOp::Round;
    /// -1, 0 or 1 by the sign of `x`, element-wise.
    sign "sign(x, name=None)" => UnaryOp::Sign;
    /// `1 / x`, element-wise (floats).
    reciprocal "reciprocal(x, name=None)" => UnaryOp::Reciprocal;
    /// `1 / sqrt(x)`, element-wise (floats).
    rsqrt "rsqrt(x, name=None)" => UnaryOp::Rsqrt;
    /// `log(1 + x)`, element-wise (floats).
    log1p "log1p(x, name=None)" => UnaryOp::Log1p;
    /// `exp(x) - 1`, element-wise (floats).
    expm1 "expm1(x, name=None)" => UnaryOp::Expm1;
    /// The Gauss error function, element-wise (floats).
    erf "erf(x, name=None)" => UnaryOp::Erf;
    /// `1 - erf(x)`, element-wise (floats).
    erfc "erfc(x, name=None)" => UnaryOp::Erfc;
    /// Boolean not, element-wise.
    logical_not "logical_not(x, name=None)" => UnaryOp::LogicalNot;
    /// Tangent, element-wise (floats).
    tan "tan(x, name=None)" => UnaryOp::Tan;
    /// Arcsine, element-wise (floats).
    asin "asin(x, name=None)" => UnaryOp::Asin;
    /// Arccosine, element-wise (floats).
    acos "acos(x, name=None)" => UnaryOp::Acos;
    /// Arctangent, element-wise (floats).
    atan "atan(x, name=None)" => UnaryOp::Atan;
    /// Hyperbolic sine, element-wise (floats).
    sinh "sinh(x, name=None)" => UnaryOp::Sinh;
    /// Hyperbolic cosine, element-wise (floats).
    cosh "cosh(x, name=None)" => UnaryOp::Cosh;
    /// Inverse hyperbolic sine, element-wise (floats).
    asinh "asinh(x, name=None)" => UnaryOp::Asinh;
    /// Inverse hyperbolic cosine, element-wise (floats).
    acosh "acosh(x, name=None)" => UnaryOp::Acosh;
    /// Inverse hyperbolic tangent, element-wise (floats).
    atanh "atanh(x, name=None)" => UnaryOp::Atanh;
}

/// Natives `f(input_tensor, axis=None, keepdims=False, name=None)` running
/// one reduction, listed in `$table`.
macro_rules! reduce_fns {
    ($table:ident: $($(#[$doc:meta])* $name:ident $sig:literal => $op:expr;)*) => {
        $(
            $(#[$doc])*
            #[native($sig)]
            fn $name(
                vm: &dyn Vm,
                input_tensor: Tensor,
                axis: Option<Ints>,
                keepdims: bool,
                _name: &Value,
            ) -> PyResult<Tensor> {
                if axis.is_none() {
                    crate::runtime::graph::note_reduction_dims(&input_tensor);
                }
                placed(vm, ops::reduce($op, &input_tensor, axes(&axis), keepdims))
            }
        )*
        const $table: &[NativeDef] = &[$($name::DEF),*];
    };
}

reduce_fns! {
    REDUCE:
    /// Sum over axes.
    reduce_sum "reduce_sum(input_tensor, axis=None, keepdims=False, name=None)" => ReduceOp::Sum;
    /// Mean over axes (integer division for ints).
    reduce_mean "reduce_mean(input_tensor, axis=None, keepdims=False, name=None)" =>
        ReduceOp::Mean;
    /// Maximum over axes.
    reduce_max "reduce_max(input_tensor, axis=None, keepdims=False, name=None)" => ReduceOp::Max;
    /// Minimum over axes.
    reduce_min "reduce_min(input_tensor, axis=None, keepdims=False, name=None)" => ReduceOp::Min;
    /// Product over axes.
    reduce_prod "reduce_prod(input_tensor, axis=None, keepdims=False, name=None)" =>
        ReduceOp::Prod;
    /// Logical or over axes.
    reduce_any "reduce_any(input_tensor, axis=None, keepdims=False, name=None)" => ReduceOp::Any;
    /// Logical and over axes.
    reduce_all "reduce_all(input_tensor, axis=None, keepdims=False, name=None)" => ReduceOp::All;
}

/// `argmax`/`argmin`: the int64 indices, cast to `output_type`.
fn arg(
    vm: &dyn Vm,
    op: ArgOp,
    t: &Tensor,
    axis: Option<Axis>,
    output_type: &Value,
) -> PyResult<Value> {
    let axis = axis.map_or(0, |a| a.0);
    let r = ops::arg_reduce(op, t, axis, Semantics::Tf).map_err(runtime_err)?;
    match opt_dtype(vm, output_type)? {
        Some(d) if d != DType::Int64 => placed(vm, ops::cast(&r, d)).map(Value::Tensor),
        _ => Ok(Value::Tensor(r)),
    }
}

/// Index of the largest value along an axis.
#[native("argmax(input, axis=None, output_type=None, name=None)")]
fn argmax(
    vm: &dyn Vm,
    input: Tensor,
    axis: Option<Axis>,
    output_type: &Value,
    _name: &Value,
) -> PyResult<Value> {
    arg(vm, ArgOp::ArgMax, &input, axis, output_type)
}

/// Index of the smallest value along an axis.
#[native("argmin(input, axis=None, output_type=None, name=None)")]
fn argmin(
    vm: &dyn Vm,
    input: Tensor,
    axis: Option<Axis>,
    output_type: &Value,
    _name: &Value,
) -> PyResult<Value> {
    arg(vm, ArgOp::ArgMin, &input, axis, output_type)
}

/// The sum of a list of tensors of one shape and dtype.
#[native("add_n(inputs, name=None)")]
fn add_n(vm: &dyn Vm, inputs: &Value, _name: &Value) -> PyResult<Tensor> {
    let items = vm.collect(inputs)?;
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
    placed(vm, ops::add_n(&ts))
}

/// Matrix product `a @ b`. `adjoint_*` is `transpose_*` of the conjugate
/// (on real tensors, `transpose_*`); the sparsity and gradient hints change
/// nothing in the result.
#[native("matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's parameters")]
pub(super) fn matmul(
    vm: &dyn Vm,
    a: &Value,
    b: &Value,
    transpose_a: &Value,
    transpose_b: &Value,
    adjoint_a: &Value,
    adjoint_b: &Value,
    _a_is_sparse: &Value,
    _b_is_sparse: &Value,
    output_type: &Value,
    _grad_a: &Value,
    _grad_b: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    if !output_type.is_none() {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.matmul's output_type (int8 inputs with a wider output) is not implemented in dist",
        ));
    }
    let side = |t: &Value, adj: &Value, which: char| -> PyResult<bool> {
        let (t, adj) = (vm.truthy(t)?, vm.truthy(adj)?);
        if t && adj {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!(
                    "Only one of `transpose_{which}` and `adjoint_{which}` can be True. Received `transpose_{which}`=True, `adjoint_{which}`=True."
                ),
            ));
        }
        Ok(t || adj)
    };
    let ta = side(transpose_a, adjoint_a, 'a')?;
    let tb = side(transpose_b, adjoint_b, 'b')?;
    let (x, y) = matching(vm, a, b)?;
    let x = super::complex_ops::conj_if(x, vm.truthy(adjoint_a)?)?;
    let y = super::complex_ops::conj_if(y, vm.truthy(adjoint_b)?)?;
    placed(vm, ops::matmul(&x, &y, ta, tb))
}

/// Registers the math ops into `m` (called for `tf` and for `tf.math`).
/// A float predicate (`IsNan`, `IsInf`, `IsFinite`): TensorFlow's attr error
/// for other dtypes; the result from exact comparisons (`x - x` is 0 only
/// for a finite `x`, NaN otherwise), never recorded on a tape.
fn float_predicate(vm: &dyn Vm, op: &str, x: &Value) -> PyResult<Tensor> {
    let x = to_tensor(vm, x, None)?;
    if !x.dtype().is_floating() {
        return Err(runtime_err(ops::attr_error(op, x.dtype())));
    }
    let r = crate::runtime::autodiff::tape::suspended(|| {
        let self_eq = |t: &Tensor, eq: bool| {
            let cmp = if eq {
                BinaryOp::Equal
            } else {
                BinaryOp::NotEqual
            };
            ops::binary(cmp, t, t)
        };
        match op {
            "IsNan" => self_eq(&x, false),
            "IsFinite" => self_eq(&ops::binary(BinaryOp::Sub, &x, &x)?, true),
            _ => {
                let not_finite = self_eq(&ops::binary(BinaryOp::Sub, &x, &x)?, false)?;
                ops::binary(BinaryOp::LogicalAnd, &not_finite, &self_eq(&x, true)?)
            }
        }
    });
    placed(vm, r)
}

/// Whether each element is NaN (floats).
#[native("is_nan(x, name=None)")]
fn is_nan(vm: &dyn Vm, x: &Value, _name: &Value) -> PyResult<Tensor> {
    float_predicate(vm, "IsNan", x)
}

/// Whether each element is +inf or -inf (floats).
#[native("is_inf(x, name=None)")]
fn is_inf(vm: &dyn Vm, x: &Value, _name: &Value) -> PyResult<Tensor> {
    float_predicate(vm, "IsInf", x)
}

/// Whether each element is finite: neither NaN nor infinite (floats).
#[native("is_finite(x, name=None)")]
fn is_finite(vm: &dyn Vm, x: &Value, _name: &Value) -> PyResult<Tensor> {
    float_predicate(vm, "IsFinite", x)
}

pub fn register(m: &mut ModuleBuilder, top_level: bool) {
    if !top_level {
        // tf.math only
        m.add(is_nan::DEF);
        m.add(is_inf::DEF);
        m.add(is_finite::DEF);
    }
    let rest = [argmax::DEF, argmin::DEF, add_n::DEF, matmul::DEF];
    for &def in BINARY.iter().chain(UNARY).chain(REDUCE).chain(&rest) {
        // these exist only under tf.math; matmul only at the top level
        let name = def.name();
        if (top_level
            && matches!(
                name,
                "floordiv"
                    | "mod"
                    | "floormod"
                    | "log"
                    | "log1p"
                    | "expm1"
                    | "erf"
                    | "erfc"
                    | "ceil"
                    | "reciprocal"
                    | "rsqrt"
            ))
            || (!top_level && name == "matmul")
        {
            continue;
        }
        m.add(def);
    }
}
