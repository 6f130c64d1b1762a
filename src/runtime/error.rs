//! The runtime's one error type: a kind (which Python exception the language
//! layer raises) plus the exact message text TensorFlow or numpy prints.
//!
//! The runtime never formats Python tracebacks or spans; it only owns the
//! message after `InvalidArgumentError: `. Helpers build TensorFlow's
//! kernel-failure wrapper (`{{function_node __wrapped__AddV2_device_…}} … [Op:AddV2] name: `).

use std::fmt;

use super::device::Device;

/// Which exception class an [`Error`] maps to in the language layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// `tf.errors.InvalidArgumentError`.
    InvalidArgument,
    /// `tf.errors.ResourceExhaustedError` (out of memory).
    ResourceExhausted,
    /// `tf.errors.UnimplementedError`.
    Unimplemented,
    /// `tf.errors.NotFoundError` (no kernel for a dtype on this device).
    NotFound,
    /// Python `TypeError`.
    Type,
    /// Python `ValueError`.
    Value,
    /// Python `IndexError`.
    Index,
    /// numpy's `AxisError` (a `ValueError` and `IndexError`).
    Axis,
    /// Python `OverflowError` (numpy: `Python integer 300 out of bounds for int8`).
    Overflow,
    /// Python `LookupError` (an op without a gradient).
    Lookup,
    /// An internal invariant broke: a bug in the runtime, reported instead of panicking.
    Internal,
}

impl ErrorKind {
    /// The Python exception class name for this kind.
    pub fn python_name(self) -> &'static str {
        match self {
            ErrorKind::InvalidArgument => "InvalidArgumentError",
            ErrorKind::ResourceExhausted => "ResourceExhaustedError",
            ErrorKind::Unimplemented => "UnimplementedError",
            ErrorKind::NotFound => "NotFoundError",
            ErrorKind::Type => "TypeError",
            ErrorKind::Value => "ValueError",
            ErrorKind::Index => "IndexError",
            ErrorKind::Overflow => "OverflowError",
            ErrorKind::Axis => "AxisError",
            ErrorKind::Lookup => "LookupError",
            ErrorKind::Internal => "SystemError",
        }
    }
}

/// A runtime error: kind plus the exact message text (boxed to keep `Result` small).
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<ErrorInner>);

#[derive(Clone, PartialEq, Eq)]
struct ErrorInner {
    kind: ErrorKind,
    message: String,
}

/// Shorthand result type of the runtime.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error of `kind` with the exact `message` text.
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error(Box::new(ErrorInner {
            kind,
            message: message.into(),
        }))
    }

    /// `InvalidArgumentError` with the given text.
    #[cold]
    pub fn invalid_argument(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidArgument, message)
    }

    /// Python `TypeError`.
    #[cold]
    pub fn type_error(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Type, message)
    }

    /// Python `ValueError`.
    #[cold]
    pub fn value_error(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Value, message)
    }

    /// Python `IndexError`.
    #[cold]
    pub fn index_error(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Index, message)
    }

    /// `UnimplementedError`: a feature this runtime does not have yet.
    #[cold]
    pub fn unimplemented(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Unimplemented, message)
    }

    /// An internal invariant failed.
    #[cold]
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Internal, message)
    }

    /// A kernel failure in TensorFlow's eager wrapper form:
    /// `{{function_node __wrapped__<node>_device_<device>}} <msg> [Op:<op>]<name>`,
    /// where `node` is the kernel node (e.g. `AddV2`, `ConcatV2_N_2`) and `name`
    /// is the suffix TensorFlow appends (`" name: "`, `" name: concat"`, or `""`).
    #[cold]
    pub fn kernel(
        kind: ErrorKind,
        node: &str,
        device: &Device,
        msg: &str,
        op: &str,
        name: &str,
    ) -> Error {
        Error::new(
            kind,
            format!(
                "{{{{function_node __wrapped__{node}_device_{}}}}} {msg} [Op:{op}]{name}",
                device.full_name()
            ),
        )
    }

    /// The kind of this error.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The exact message text (what Python prints after `Kind: `).
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.kind.python_name(), self.0.message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for Error {}
