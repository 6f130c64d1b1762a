//! Values: the `Value` enum, the object model (classes, instances, functions),
//! exceptions, signatures and the one argument binder, the `NativeObject`
//! trait natives implement.
//! Evaluation lives in `eval`; this layer only describes what values are.

pub mod dict;
pub mod error;
pub mod fmtfloat;
pub mod fmtspec;
pub mod format;
pub mod layout;
pub mod namehash;
pub mod native;
pub mod object;
pub mod percent;
pub mod round;
pub mod signature;
pub mod table;
pub mod typecache;
#[expect(
    clippy::module_inception,
    reason = "value::value holds the Value enum itself"
)]
pub mod value;

pub use dict::{Dict, Key};
pub use error::{CollectiveError, ExcType, PyErr, PyResult, TraceEntry};
pub use namehash::Namespace;
pub use native::{NativeObject, Vm};
pub use object::{
    BoundMethod, CellRef, Class, ClassKind, Function, Instance, NativeFn, NativeFunction,
};
pub use signature::{Args, Param, ParamKind, Signature};
pub use value::{Value, ValueType};
