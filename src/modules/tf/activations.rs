//! `tf.nn` activations: `relu`, `relu6`, `leaky_relu`, `sigmoid`, `tanh`,
//! `silu`/`swish`, `softmax` and `log_softmax`. Registration and argument
//! conversion only; the work is in `runtime::ops` (`nn.rs`, `unary`).

use super::convert::{placed, Axis};
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::{ops, Tensor, UnaryOp};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// `exp(features) - 1` where negative, `features` elsewhere.
#[native("elu(features, name=None)")]
fn elu(vm: &dyn Vm, features: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::nn::elu(&features))
}

/// Scaled exponential linear unit.
#[native("selu(features, name=None)")]
fn selu(vm: &dyn Vm, features: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::nn::selu(&features))
}

/// `max(features, 0)`, element-wise.
#[native("relu(features, name=None)")]
fn relu(vm: &dyn Vm, features: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::unary(UnaryOp::Relu, &features))
}

/// `min(max(features, 0), 6)`, element-wise.
#[native("relu6(features, name=None)")]
fn relu6(vm: &dyn Vm, features: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::nn::relu6(&features))
}

/// `features` where positive, `alpha * features` elsewhere.
#[native("leaky_relu(features, alpha=0.2, name=None)")]
fn leaky_relu(vm: &dyn Vm, features: Tensor, alpha: f64, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::nn::leaky_relu(&features, alpha))
}

/// `1 / (1 + exp(-x))`, element-wise.
#[native("sigmoid(x, name=None)")]
fn sigmoid(vm: &dyn Vm, x: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::unary(UnaryOp::Sigmoid, &x))
}

/// Hyperbolic tangent, element-wise.
#[native("tanh(x, name=None)")]
fn tanh(vm: &dyn Vm, x: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::unary(UnaryOp::Tanh, &x))
}

/// `features * sigmoid(features)`.
#[native("silu(features, beta=1.0)")]
fn silu(vm: &dyn Vm, features: Tensor, beta: f64) -> PyResult<Tensor> {
    if beta != 1.0 {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.nn.silu: only beta=1.0 is supported in dist",
        ));
    }
    placed(vm, ops::nn::silu(&features))
}

/// `features * sigmoid(features)`.
#[native("swish(features, beta=1.0)")]
fn swish(vm: &dyn Vm, features: Tensor, beta: f64) -> PyResult<Tensor> {
    silu(vm, features, beta)
}

/// `exp(logits) / reduce_sum(exp(logits), axis)`, computed after subtracting the maximum.
#[native("softmax(logits, axis=None, name=None)")]
fn softmax(vm: &dyn Vm, logits: Tensor, axis: Option<Axis>, _name: &Value) -> PyResult<Tensor> {
    placed(
        vm,
        ops::nn::softmax(&logits, axis.map_or(-1, |a| a.0), false),
    )
}

/// `logits - log(reduce_sum(exp(logits), axis))`, computed after subtracting the maximum.
#[native("log_softmax(logits, axis=None, name=None)")]
fn log_softmax(vm: &dyn Vm, logits: Tensor, axis: Option<Axis>, _name: &Value) -> PyResult<Tensor> {
    placed(
        vm,
        ops::nn::softmax(&logits, axis.map_or(-1, |a| a.0), true),
    )
}

/// Adds the activations to the `tf.nn` namespace `n`.
pub fn register(n: &mut ModuleBuilder) {
    n.add(elu::DEF)
        .add(selu::DEF)
        .add(relu::DEF)
        .add(relu6::DEF)
        .add(leaky_relu::DEF)
        .add(sigmoid::DEF)
        .add(tanh::DEF)
        .add(silu::DEF)
        .add(swish::DEF)
        .add(softmax::DEF)
        .add(log_softmax::DEF);
}
