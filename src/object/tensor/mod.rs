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
pub mod placement;
pub mod reference;
pub mod shape;

pub use hooks::*;
