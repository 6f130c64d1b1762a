//! Element-wise ops: TensorFlow's binary ops (equal dtypes required,
//! broadcasting, kernel errors), numpy's (type promotion first), unary
//! math, casts and `where`.

use super::promote::promote_types;
use super::{attr_error, dtype_mismatch, wrap};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, ErrorKind, Result};
use crate::runtime::op::{BinaryOp, Semantics, UnaryOp};
use crate::runtime::shape::Shape;
use crate::runtime::storage::{HostData, Storage};
use crate::runtime::tensor::Tensor;

/// The broadcast output shape, or TensorFlow's `Incompatible shapes` error.
pub(super) fn broadcast_shape(op: &str, a: &Tensor, b: &Tensor, sem: Semantics) -> Result<Shape> {
    if a.shape() == b.shape() {
        return Ok(a.shape().clone());
    }
    a.shape().broadcast(b.shape()).ok_or_else(|| match sem {
        Semantics::Tf => Error::kernel(
            ErrorKind::InvalidArgument,
            op,
            &a.device(),
            &format!(
                "Incompatible shapes: {} vs. {}",
                a.shape().bracket_text(),
                b.shape().bracket_text()
            ),
            op,
            " name: ",
        ),
        Semantics::Numpy => Error::value_error(np_broadcast_message(&[a.shape(), b.shape()])),
    })
}

/// numpy's ValueError text for operands of `shapes` that do not broadcast.
pub fn np_broadcast_message(shapes: &[&Shape]) -> String {
    let text: Vec<String> = shapes.iter().map(|s| np_shape(s)).collect();
    format!(
        "operands could not be broadcast together with shapes {} ",
        text.join(" ")
    )
}

/// numpy's compact shape text in broadcast errors: `(2,3)`, `(3,)`.
pub fn np_shape(s: &Shape) -> String {
    match s.rank() {
        1 => format!("({},)", s.0[0]),
        _ => format!(
            "({})",
            s.0.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}

fn run_binary(op: BinaryOp, sem: Semantics, a: &Tensor, b: &Tensor, out: Shape) -> Result<Tensor> {
    let storage = a
        .storage()
        .backend()
        .binary(
            op,
            sem,
            (a.storage(), a.shape()),
            (b.storage(), b.shape()),
            &out,
        )
        .map_err(|e| match sem {
            Semantics::Tf => wrap(e, op.name(), &a.device(), op.name(), " name: "),
            Semantics::Numpy => Error::value_error(e.message().to_string()),
        })?;
    Ok(Tensor::from_parts(
        storage.dtype(),
        out,
        storage,
        a.device(),
    ))
}

/// A TensorFlow binary op (`AddV2`, `Mul`, `Less`…): both inputs must have
/// the same dtype; shapes broadcast.
fn binary_impl(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op(op.name(), a.device());
    let name = op.name();
    if op.is_logical() {
        if a.dtype() != DType::Bool {
            return Err(dtype_mismatch(name, 0, DType::Bool, a.dtype(), " name: "));
        }
        if b.dtype() != DType::Bool {
            return Err(dtype_mismatch(name, 1, DType::Bool, b.dtype(), " name: "));
        }
    } else if a.dtype() != b.dtype() {
        return Err(dtype_mismatch(name, 1, a.dtype(), b.dtype(), " name: "));
    }
    let d = a.dtype();
    let numeric_only = !op.is_logical() && !matches!(op, BinaryOp::Equal | BinaryOp::NotEqual);
    if numeric_only && (d == DType::Bool || (d == DType::String && op != BinaryOp::Add)) {
        return Err(attr_error(name, d));
    }
    if op == BinaryOp::RealDiv && !d.is_floating() && !d.is_complex() {
        return Err(attr_error(name, d));
    }
    // complex numbers have no order
    if d.is_complex()
        && (op.is_comparison() && !matches!(op, BinaryOp::Equal | BinaryOp::NotEqual)
            || matches!(
                op,
                BinaryOp::Maximum | BinaryOp::Minimum | BinaryOp::FloorDiv | BinaryOp::FloorMod
            ))
    {
        return Err(attr_error(name, d));
    }
    let out = broadcast_shape(name, a, b, Semantics::Tf)?;
    run_binary(op, Semantics::Tf, a, b, out)
}

/// `a + b` (`AddV2`).
pub fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::Add, a, b)
}

/// The sum of equally shaped tensors of one dtype, added in order
/// (`AddN`): one pass through the backend's kernel where it has one for the
/// dtype, chained `AddV2` otherwise (the same rounding either way).
fn add_n_impl(ts: &[Tensor]) -> Result<Tensor> {
    let Some(first) = ts.first() else {
        return Err(Error::internal("add_n of no tensors"));
    };
    // AddN does not broadcast: every input has the first one's shape.
    if let Some((i, t)) = ts
        .iter()
        .enumerate()
        .find(|(_, t)| t.shape() != first.shape())
    {
        let node = format!("AddN_N_{}", ts.len());
        let msg = format!(
            "Inputs to operation AddN of type AddN must have the same size and shape.  Input 0: {} != input {i}: {}",
            first.shape().bracket_text(),
            t.shape().bracket_text()
        );
        return Err(Error::kernel(
            ErrorKind::InvalidArgument,
            &node,
            &first.device(),
            &msg,
            "AddN",
            " name: ",
        ));
    }
    let uniform = ts
        .iter()
        .all(|t| t.dtype() == first.dtype() && t.device() == first.device());
    if ts.len() > 1 && uniform {
        let parts: Vec<&Storage> = ts.iter().map(|t| t.storage()).collect();
        if let Some(s) = first.storage().backend().add_n(&parts)? {
            return Ok(with_storage(first, first.shape().clone(), s));
        }
    }
    let mut acc = first.clone();
    for t in &ts[1..] {
        acc = add(&acc, t)?;
    }
    Ok(acc)
}

/// `a - b` (`Sub`).
pub fn sub(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::Sub, a, b)
}

/// `a * b` (`Mul`).
pub fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::Mul, a, b)
}

/// Python's `a / b` on tensors (`tf.math.truediv`): integers are cast to a
/// float first (int8/uint8/int16 → float32, int32/int64 → float64).
pub fn truediv(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dtype() != b.dtype() {
        return Err(Error::type_error(format!(
            "`x` and `y` must have the same dtype, got tf.{} != tf.{}.",
            a.dtype().name(),
            b.dtype().name()
        )));
    }
    let target = match a.dtype() {
        DType::Int8 | DType::UInt8 | DType::Int16 => Some(DType::Float32),
        DType::Int32 | DType::Int64 => Some(DType::Float64),
        _ => None,
    };
    match target {
        Some(t) => binary(BinaryOp::RealDiv, &cast(a, t)?, &cast(b, t)?),
        None => binary(BinaryOp::RealDiv, a, b),
    }
}

/// `a // b` (`FloorDiv`).
pub fn floordiv(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::FloorDiv, a, b)
}

/// `a % b` (`FloorMod`).
pub fn floormod(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::FloorMod, a, b)
}

/// `a ** b` (`Pow`).
pub fn pow(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::Pow, a, b)
}

/// numpy's binary ufunc: operands are promoted to a common dtype
/// (`promote_types`; the language layer applies NEP 50 for Python
/// scalars), integer division by zero gives 0, `/` of ints is float64.
pub fn np_binary(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op(op.name(), a.device());
    let mut common = promote_types(a.dtype(), b.dtype())?;
    if op == BinaryOp::RealDiv && !common.is_floating() {
        common = DType::Float64;
    }
    if op.is_logical() {
        common = DType::Bool;
    }
    let a = cast(a, common)?;
    let b = cast(b, common)?;
    let out = broadcast_shape(op.name(), &a, &b, Semantics::Numpy)?;
    if common == DType::Bool && !op.is_logical() && !op.is_comparison() {
        // numpy: bool + bool is logical or, bool * bool is and; others go through int
        match op {
            BinaryOp::Add | BinaryOp::Mul | BinaryOp::Maximum | BinaryOp::Minimum => {}
            BinaryOp::Sub => {
                return Err(Error::type_error(
                    "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.",
                ))
            }
            _ => {
                let ai = cast(&a, DType::Int8)?;
                let bi = cast(&b, DType::Int8)?;
                return run_binary(op, Semantics::Numpy, &ai, &bi, out);
            }
        }
    }
    run_binary(op, Semantics::Numpy, &a, &b, out)
}

/// A TensorFlow unary op (`Neg`, `Sqrt`, `LogicalNot`…).
fn unary_impl(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op(op.name(), x.device());
    let d = x.dtype();
    if op == UnaryOp::LogicalNot {
        if d != DType::Bool {
            return Err(dtype_mismatch(op.name(), 0, DType::Bool, d, " name: "));
        }
    } else if d == DType::String
        || d == DType::Bool
        || (op.float_only() && !d.is_floating() && !(d.is_complex() && op.complex_too()))
        || (op == UnaryOp::Neg && d == DType::UInt8)
        || (d.is_complex() && matches!(op, UnaryOp::Relu | UnaryOp::Round))
    {
        return Err(attr_error(op.name(), d));
    }
    let storage = x
        .storage()
        .backend()
        .unary(op, x.storage())
        .map_err(|e| wrap(e, op.name(), &x.device(), op.name(), " name: "))?;
    Ok(Tensor::from_parts(
        storage.dtype(),
        x.shape().clone(),
        storage,
        x.device(),
    ))
}

/// `tf.cast` / `ndarray.astype`: float → int truncates toward zero.
fn cast_impl(x: &Tensor, to: DType) -> Result<Tensor> {
    if x.dtype() == to {
        return Ok(x.clone());
    }
    let _trace = crate::runtime::trace::op("Cast", x.device());
    if (x.dtype() == DType::String) != (to == DType::String) {
        return Err(Error::kernel(
            ErrorKind::Unimplemented,
            "Cast",
            &x.device(),
            &format!(
                "Cast {} to {} is not supported",
                x.dtype().name(),
                to.name()
            ),
            "Cast",
            " name: ",
        ));
    }
    let storage = x.storage().backend().cast(x.storage(), to)?;
    Ok(Tensor::from_parts(
        to,
        x.shape().clone(),
        storage,
        x.device(),
    ))
}

/// `tf.where(cond, x, y)`: elements of `x` where `cond`, else of `y`, all broadcast.
fn where_select_impl(cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let op = "SelectV2";
    if cond.dtype() != DType::Bool {
        return Err(dtype_mismatch(op, 0, DType::Bool, cond.dtype(), " name: "));
    }
    if x.dtype() != y.dtype() {
        return Err(dtype_mismatch(op, 2, x.dtype(), y.dtype(), " name: "));
    }
    let out = cond
        .shape()
        .broadcast(x.shape())
        .and_then(|s| s.broadcast(y.shape()))
        .ok_or_else(|| {
            super::kernel_error(
                op,
                &x.device(),
                &format!(
                    "condition {}, then {}, and else {} must be broadcastable",
                    cond.shape().bracket_text(),
                    x.shape().bracket_text(),
                    y.shape().bracket_text()
                ),
                " name: ",
            )
        })?;
    out.checked_numel()?;
    let storage = x.storage().backend().select(
        (cond.storage(), cond.shape()),
        (x.storage(), x.shape()),
        (y.storage(), y.shape()),
        &out,
    )?;
    Ok(Tensor::from_parts(x.dtype(), out, storage, x.device()))
}

/// `tf.where(cond)`: int64 coordinates `[n, rank]` of the true elements.
pub fn where_true(cond: &Tensor) -> Result<Tensor> {
    let mask = match cond.host()? {
        HostData::Bool(v) => v.clone(),
        _ => match cast(cond, DType::Bool)?.host()? {
            HostData::Bool(v) => v.clone(),
            _ => return Err(Error::internal("where: cast to bool")),
        },
    };
    let dims = cond.dims();
    let strides = cond.shape().strides();
    let mut out = Vec::new();
    let mut n = 0;
    for (i, &m) in mask.iter().enumerate() {
        if m {
            n += 1;
            for (d, s) in dims.iter().zip(&strides) {
                out.push(((i / s) % d) as i64);
            }
        }
    }
    Tensor::from_host(
        HostData::I64(out),
        Shape(vec![n, dims.len()]),
        cond.device(),
    )
}

/// A new tensor that holds `x`'s elements in `storage` order, used by
/// shape ops after a backend `take`.
pub(crate) fn with_storage(x: &Tensor, shape: Shape, storage: Storage) -> Tensor {
    Tensor::from_parts(x.dtype(), shape, storage, x.device())
}

/// A TensorFlow binary op (`AddV2`, `Mul`, `Less`…): both inputs must have
/// the same dtype; shapes broadcast. Recorded on the gradient tapes.
pub fn binary(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let mut out = binary_impl(op, a, b)?;
    if op == BinaryOp::RealDiv
        && (b.dtype().is_floating() || b.dtype().is_complex())
        && crate::runtime::graph::is_folded_constant(b)
        && !crate::runtime::graph::is_folded_constant(a)
    {
        // a function graph divides a computed value by a constant as
        // `a * (1 / b)` (grappler's constant folding; a constant divided by
        // one folds to the quotient), the way its replays run it
        let r = unary_impl(UnaryOp::Reciprocal, b)?;
        out = binary_impl(BinaryOp::Mul, a, &r)?;
    }
    tape::record(|| GradOp::Binary(op), &[a, b], &[&out]);
    Ok(out)
}

/// The sum of equally shaped tensors of one dtype, added in order (`AddN`).
pub fn add_n(ts: &[Tensor]) -> Result<Tensor> {
    let refs: Vec<&Tensor> = ts.iter().collect();
    tape::primitive(|| GradOp::AddN, &refs, || add_n_impl(ts))
}

/// A TensorFlow unary op (`Neg`, `Sqrt`, `LogicalNot`…). Recorded on the gradient tapes.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    if op == UnaryOp::Abs && x.dtype().is_complex() {
        // `tf.abs` of complex numbers is `ComplexAbs`, to their part type
        return super::complex::part(super::complex::ComplexOp::Abs, x);
    }
    let out = unary_impl(op, x)?;
    tape::record(|| GradOp::Unary(op), &[x], &[&out]);
    Ok(out)
}

/// `tf.cast` / `ndarray.astype`: float → int truncates toward zero.
pub fn cast(x: &Tensor, to: DType) -> Result<Tensor> {
    let out = cast_impl(x, to)?;
    tape::record(|| GradOp::Cast, &[x], &[&out]);
    Ok(out)
}

/// `tf.where(cond, x, y)`: elements of `x` where `cond`, else of `y`, all broadcast.
pub fn where_select(cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let out = where_select_impl(cond, x, y)?;
    tape::record(|| GradOp::Select, &[cond, x, y], &[&out]);
    Ok(out)
}
