//! `tf.nn` activations: `relu`, `relu6`, `leaky_relu`, `sigmoid`, `tanh`,
//! `silu`/`swish`, `softmax` and `log_softmax`. Registration and argument
//! conversion only; the work is in `runtime::ops` (`nn.rs`, `unary`).

use super::convert::{axis_arg, to_tensor, tv};
use crate::modules::ModuleBuilder;
use crate::runtime::{ops, UnaryOp};
use crate::value::{Args, ExcType, PyErr, PyResult, Value, Vm};

fn relu(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::unary(UnaryOp::Relu, &t))
}

fn relu6(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::nn::relu6(&t))
}

fn sigmoid(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::unary(UnaryOp::Sigmoid, &t))
}

fn tanh(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::unary(UnaryOp::Tanh, &t))
}

fn leaky_relu(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let alpha = a.float(1)?;
    tv(vm, ops::nn::leaky_relu(&t, alpha))
}

fn silu(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    if a.float(1)? != 1.0 {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.nn.silu: only beta=1.0 is supported in dist",
        ));
    }
    tv(vm, ops::nn::silu(&t))
}

fn elu(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::nn::elu(&t))
}

fn selu(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::nn::selu(&t))
}

fn softmax_impl(vm: &dyn Vm, a: &Args, log: bool) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let axis = match a.opt(1) {
        Some(v) => axis_arg(vm, v)?,
        None => -1,
    };
    tv(vm, ops::nn::softmax(&t, axis, log))
}

fn softmax(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    softmax_impl(vm, a, false)
}

fn log_softmax(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    softmax_impl(vm, a, true)
}

/// Adds the activations to the `tf.nn` namespace `n`.
pub fn register(n: &mut ModuleBuilder) {
    n.function(
        "elu(features, name=None)",
        elu,
        "`exp(features) - 1` where negative, `features` elsewhere.",
    );
    n.function(
        "selu(features, name=None)",
        selu,
        "Scaled exponential linear unit.",
    );
    n.function(
        "relu(features, name=None)",
        relu,
        "`max(features, 0)`, element-wise.",
    );
    n.function(
        "relu6(features, name=None)",
        relu6,
        "`min(max(features, 0), 6)`, element-wise.",
    );
    n.function(
        "leaky_relu(features, alpha=0.2, name=None)",
        leaky_relu,
        "`features` where positive, `alpha * features` elsewhere.",
    );
    n.function(
        "sigmoid(x, name=None)",
        sigmoid,
        "`1 / (1 + exp(-x))`, element-wise.",
    );
    n.function(
        "tanh(x, name=None)",
        tanh,
        "Hyperbolic tangent, element-wise.",
    );
    n.function(
        "silu(features, beta=1.0)",
        silu,
        "`features * sigmoid(features)`.",
    );
    n.function(
        "swish(features, beta=1.0)",
        silu,
        "`features * sigmoid(features)`.",
    );
    n.function(
        "softmax(logits, axis=None, name=None)",
        softmax,
        "`exp(logits) / reduce_sum(exp(logits), axis)`, computed after subtracting the maximum.",
    );
    n.function(
        "log_softmax(logits, axis=None, name=None)",
        log_softmax,
        "`logits - log(reduce_sum(exp(logits), axis))`, computed after subtracting the maximum.",
    );
}
