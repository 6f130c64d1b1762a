//! Automatic differentiation: tapes that record the ops run on the tensors
//! they follow (`tape`), the gradient of every op (`grad`, the registry
//! keyed by op) and backpropagation over a tape (`backprop`). The language
//! layer's `tf.GradientTape` drives them; `forward` gives the tangents of
//! `tf.autodiff.ForwardAccumulator` from the same gradient functions; the ops in `ops/` report
//! themselves through [`tape::record`] and [`tape::primitive`].

pub mod backprop;
pub mod forward;
pub mod grad;
mod grad_linalg;
mod grad_more;
mod grad_names;
mod grad_nn;
mod grad_reduce;
pub mod slices;
pub mod tape;

pub use backprop::{gradient_of, sparse_gradient_of};
pub use grad::{GradOp, NoGrad};
pub use slices::{Grad, Slices};
pub use tape::Tape;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_linalg;
#[cfg(test)]
mod tests_more;
#[cfg(test)]
mod tests_nn;
