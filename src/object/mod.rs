//! The object layer: what every value with a Python name is and does,
//! below the evaluator (`eval`), the natives (`modules`) and the strategy
//! runtime (`distribute`), which reach the interpreter only through the
//! [`Vm`](crate::value::Vm) trait.
//!
//! - [`native`]: how a typed Rust function becomes a Python native
//!   (`#[native]`, argument and result conversion);
//! - [`spec`]: native classes from static tables of members, built once;
//! - [`module`]: module objects and the builder natives register into;
//! - [`types`]: the builtin types (`int`, `str`, `list`, `dict` …): their
//!   methods, slots and protocols;
//! - [`weakref`]: weak references and the registry of their callbacks;
//! - [`state`]: interpreter state the layers above share (`PrintMute`).
//! - [`tf_api`]: the public names of TensorFlow and numpy, for the error
//!   that says dist lacks one.
//!
//! `value` holds the data these act on (the `Value` enum, classes,
//! instances, functions, the binder); the two form one layer.

pub mod attr;
pub mod descr;
pub mod module;
pub mod native;
pub mod numpy;
pub mod spec;
pub mod state;
pub mod tensor;
pub mod tf_api;
pub mod types;
pub mod weakref;

pub use native::{
    native, ArgCtx, FromArg, Given, IntoResult, IntoValue, Kwargs, NativeClass, NativeDef,
    SigStyle, This,
};
pub use spec::{class_of_spec, ClassSpec, Member};
