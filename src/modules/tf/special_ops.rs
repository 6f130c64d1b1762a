//! TensorFlow's special functions under `tf.math`: `lgamma`, `digamma`,
//! `erfinv`, `ndtri`, `erfcinv`, `igamma`, `igammac`, `zeta`, `polygamma`
//! and `betainc`. Operands convert as TensorFlow's generated ops convert
//! them (the first tensor's dtype wins); the work is
//! `runtime::ops::special`.

use super::convert::{operand, placed, to_tensor};
use super::math_ops::matching;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::ops::special::{special, Special};
use crate::runtime::{ops, Tensor, UnaryOp};
use crate::value::{PyResult, Value, Vm};

fn unary(vm: &dyn Vm, op: Special, x: &Value) -> PyResult<Tensor> {
    let x = to_tensor(vm, x, None)?;
    placed(vm, special(op, &[&x]))
}

fn binary(vm: &dyn Vm, op: Special, x: &Value, y: &Value) -> PyResult<Tensor> {
    let (a, b) = matching(vm, x, y)?;
    placed(vm, special(op, &[&a, &b]))
}

/// `log |Γ(x)|`, element-wise (floats).
///
/// ```python
/// import tensorflow as tf
/// print(tf.math.lgamma([0.5, 1.0, 3.0]))
/// ```
#[native("lgamma(x, name=None)")]
fn lgamma(vm: &dyn Vm, x: &Value, _name: &Value) -> PyResult<Tensor> {
    unary(vm, Special::Lgamma, x)
}

/// The digamma function `ψ(x)`, the derivative of `lgamma`, element-wise.
#[native("digamma(x, name=None)")]
fn digamma(vm: &dyn Vm, x: &Value, _name: &Value) -> PyResult<Tensor> {
    unary(vm, Special::Digamma, x)
}

/// The inverse error function, element-wise (defined on [-1, 1]).
#[native("erfinv(x, name=None)")]
fn erfinv(vm: &dyn Vm, x: &Value, _name: &Value) -> PyResult<Tensor> {
    unary(vm, Special::Erfinv, x)
}

/// The inverse of the standard normal CDF, element-wise (on [0, 1]).
#[native("ndtri(x, name=None)")]
fn ndtri(vm: &dyn Vm, x: &Value, _name: &Value) -> PyResult<Tensor> {
    unary(vm, Special::Ndtri, x)
}

/// The inverse complementary error function, `-ndtri(x / 2) / √2`
/// (TensorFlow's own composition), on [0, 2].
#[native("erfcinv(x, name=None)")]
fn erfcinv(vm: &dyn Vm, x: &Value, _name: &Value) -> PyResult<Tensor> {
    let x = to_tensor(vm, x, None)?;
    let half = operand(vm, &Value::Float(0.5), x.dtype(), x.device(), false)?;
    let root = operand(
        vm,
        &Value::Float(0.5f64.sqrt()),
        x.dtype(),
        x.device(),
        false,
    )?;
    let r = (|| {
        let n = special(Special::Ndtri, &[&ops::mul(&half, &x)?])?;
        ops::mul(&ops::unary(UnaryOp::Neg, &n)?, &root)
    })();
    placed(vm, r)
}

/// The regularized lower incomplete gamma function `P(a, x)`.
#[native("igamma(a, x, name=None)")]
fn igamma(vm: &dyn Vm, a: &Value, x: &Value, _name: &Value) -> PyResult<Tensor> {
    binary(vm, Special::Igamma, a, x)
}

/// The regularized upper incomplete gamma function `Q(a, x) = 1 - P(a, x)`.
#[native("igammac(a, x, name=None)")]
fn igammac(vm: &dyn Vm, a: &Value, x: &Value, _name: &Value) -> PyResult<Tensor> {
    binary(vm, Special::Igammac, a, x)
}

/// Hurwitz's zeta function `ζ(x, q) = Σ (q + n)^-x`.
#[native("zeta(x, q, name=None)")]
fn zeta(vm: &dyn Vm, x: &Value, q: &Value, _name: &Value) -> PyResult<Tensor> {
    binary(vm, Special::Zeta, x, q)
}

/// The polygamma function `ψ⁽ᵃ⁾(x)` (`a` a non-negative integer).
#[native("polygamma(a, x, name=None)")]
fn polygamma(vm: &dyn Vm, a: &Value, x: &Value, _name: &Value) -> PyResult<Tensor> {
    binary(vm, Special::Polygamma, a, x)
}

/// The regularized incomplete beta function `I_x(a, b)`; the non-scalar
/// operands must have one shape.
#[native("betainc(a, b, x, name=None)")]
fn betainc(vm: &dyn Vm, a: &Value, b: &Value, x: &Value, _name: &Value) -> PyResult<Tensor> {
    let vals = [a, b, x];
    // the first tensor's dtype wins; with none, `a` infers it
    let first = vals.iter().find_map(|v| match v {
        Value::Tensor(t) => Some(t.clone()),
        _ => None,
    });
    let first = match first {
        Some(t) => t,
        None => to_tensor(vm, a, None)?,
    };
    let ts = vals
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => Ok(t.clone()),
            _ => operand(vm, v, first.dtype(), first.device(), false),
        })
        .collect::<PyResult<Vec<Tensor>>>()?;
    placed(vm, special(Special::Betainc, &[&ts[0], &ts[1], &ts[2]]))
}

/// Adds the special functions to the `tf.math` namespace `n`.
pub fn register_math(n: &mut ModuleBuilder) {
    n.add(lgamma::DEF)
        .add(digamma::DEF)
        .add(erfinv::DEF)
        .add(ndtri::DEF)
        .add(erfcinv::DEF)
        .add(igamma::DEF)
        .add(igammac::DEF)
        .add(zeta::DEF)
        .add(polygamma::DEF)
        .add(betainc::DEF);
}
