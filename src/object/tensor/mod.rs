//! Tensors as Python objects: conversion of Python values to tensors
//! ([`convert`]), `tf.DType` and `tf.TensorShape` objects, indexing,
//! `EagerTensor`'s attributes and operators ([`hooks`]), and where a new
//! tensor is placed ([`placement`]). The ops themselves are in `runtime`;
//! the `tf` module's functions in `modules::tf`.

pub mod classes;
pub mod convert;
pub mod dtype;
pub mod hooks;
pub mod index;
pub mod indexed_slices;
pub mod placement;
pub mod reference;
pub mod shape;

pub use hooks::*;

/// Whether a native's arguments are constants of the `tf.function` being
/// traced: Python values, numpy arrays, dtypes, shapes and tensors that are
/// constants of the trace, in tuples, lists and dicts. A tensor a native
/// makes from such arguments (`tf.zeros([2])`, `tf.constant(np_array)`) is
/// a constant of the graph; anything else (a variable, an object, a tensor
/// the graph computes) is not.
pub fn constant_args(values: &[crate::value::Value]) -> bool {
    use crate::value::Value;
    values.iter().all(|v| match v {
        Value::None
        | Value::Bool(_)
        | Value::Int(_)
        | Value::Long(_)
        | Value::Float(_)
        | Value::Str(_)
        | Value::Bytes(_) => true,
        Value::Tensor(t) => crate::runtime::graph::is_constant(t),
        Value::Tuple(t) => constant_args(t),
        Value::List(l) => constant_args(&l.borrow()),
        Value::Dict(d) => {
            let items = d.borrow().items();
            items.iter().all(|(k, x)| {
                constant_args(std::slice::from_ref(k)) && constant_args(std::slice::from_ref(x))
            })
        }
        Value::Native(n) => {
            let any = n.as_any();
            any.is::<crate::object::tensor::dtype::DTypeObj>()
                || any.is::<crate::object::tensor::shape::TensorShapeObj>()
                || any
                    .downcast_ref::<crate::object::numpy::NdArray>()
                    .is_some_and(|a| crate::runtime::graph::is_constant(&a.t.borrow()))
        }
        _ => false,
    })
}
