//! Python exceptions as Rust errors. Every error a script can see is a
//! `PyErr`: an exception instance (of a builtin or user class) plus the
//! traceback collected while it unwinds, and optional help lines we add where
//! we can say more than Python or TensorFlow does.

use std::cell::RefCell;
use std::rc::Rc;

use super::object::{Class, ClassKind, Instance};
use super::value::Value;
use crate::syntax::{SourceFile, Span};

/// The result of anything that can raise.
pub type PyResult<T> = Result<T, PyErr>;

macro_rules! exc_types {
    ($( $variant:ident : $name:literal < $base:ident ),* $(,)?) => {
        /// The builtin exception classes (plus TensorFlow's `tf.errors` ones).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ExcType {
            /// `BaseException`.
            BaseException,
            $( #[doc = $name] $variant, )*
        }

        impl ExcType {
            /// Every exception type, base classes before subclasses.
            pub const ALL: &'static [ExcType] = &[ExcType::BaseException, $( ExcType::$variant, )*];

            /// The class name.
            pub fn name(self) -> &'static str {
                match self {
                    ExcType::BaseException => "BaseException",
                    $( ExcType::$variant => $name, )*
                }
            }

            /// The direct base class (None for BaseException).
            pub fn base(self) -> Option<ExcType> {
                match self {
                    ExcType::BaseException => None,
                    $( ExcType::$variant => Some(ExcType::$base), )*
                }
            }
        }
    };
}

exc_types! {
    Exception: "Exception" < BaseException,
    KeyboardInterrupt: "KeyboardInterrupt" < BaseException,
    SystemExit: "SystemExit" < BaseException,
    GeneratorExit: "GeneratorExit" < BaseException,
    StopIteration: "StopIteration" < Exception,
    ArithmeticError: "ArithmeticError" < Exception,
    ZeroDivisionError: "ZeroDivisionError" < ArithmeticError,
    OverflowError: "OverflowError" < ArithmeticError,
    AssertionError: "AssertionError" < Exception,
    AttributeError: "AttributeError" < Exception,
    LookupError: "LookupError" < Exception,
    IndexError: "IndexError" < LookupError,
    KeyError: "KeyError" < LookupError,
    NameError: "NameError" < Exception,
    UnboundLocalError: "UnboundLocalError" < NameError,
    TypeError: "TypeError" < Exception,
    ValueError: "ValueError" < Exception,
    UnicodeError: "UnicodeError" < ValueError,
    UnicodeEncodeError: "UnicodeEncodeError" < UnicodeError,
    UnicodeDecodeError: "UnicodeDecodeError" < UnicodeError,
    RuntimeError: "RuntimeError" < Exception,
    NotImplementedError: "NotImplementedError" < RuntimeError,
    RecursionError: "RecursionError" < RuntimeError,
    MemoryError: "MemoryError" < Exception,
    ImportError: "ImportError" < Exception,
    ModuleNotFoundError: "ModuleNotFoundError" < ImportError,
    OSError: "OSError" < Exception,
    FileNotFoundError: "FileNotFoundError" < OSError,
    SyntaxError: "SyntaxError" < Exception,
    IndentationError: "IndentationError" < SyntaxError,
    TabError: "TabError" < IndentationError,
    Warning: "Warning" < Exception,
    UserWarning: "UserWarning" < Warning,
    DeprecationWarning: "DeprecationWarning" < Warning,
    SystemError: "SystemError" < Exception,
    EOFError: "EOFError" < Exception,
    BufferError: "BufferError" < Exception,
    ReferenceError: "ReferenceError" < Exception,
    StopAsyncIteration: "StopAsyncIteration" < Exception,
    FloatingPointError: "FloatingPointError" < ArithmeticError,
    PermissionError: "PermissionError" < OSError,
    FileExistsError: "FileExistsError" < OSError,
    IsADirectoryError: "IsADirectoryError" < OSError,
    NotADirectoryError: "NotADirectoryError" < OSError,
    TimeoutError: "TimeoutError" < OSError,
    InterruptedError: "InterruptedError" < OSError,
    BlockingIOError: "BlockingIOError" < OSError,
    ChildProcessError: "ChildProcessError" < OSError,
    ProcessLookupError: "ProcessLookupError" < OSError,
    ConnectionError: "ConnectionError" < OSError,
    BrokenPipeError: "BrokenPipeError" < ConnectionError,
    ConnectionAbortedError: "ConnectionAbortedError" < ConnectionError,
    ConnectionRefusedError: "ConnectionRefusedError" < ConnectionError,
    ConnectionResetError: "ConnectionResetError" < ConnectionError,
    RuntimeWarning: "RuntimeWarning" < Warning,
    SyntaxWarning: "SyntaxWarning" < Warning,
    FutureWarning: "FutureWarning" < Warning,
    PendingDeprecationWarning: "PendingDeprecationWarning" < Warning,
    ImportWarning: "ImportWarning" < Warning,
    UnicodeWarning: "UnicodeWarning" < Warning,
    BytesWarning: "BytesWarning" < Warning,
    ResourceWarning: "ResourceWarning" < Warning,
    EncodingWarning: "EncodingWarning" < Warning,
    BaseExceptionGroup: "BaseExceptionGroup" < BaseException,
    // Also an Exception: its class gets both bases (see `ExcType::class`).
    ExceptionGroup: "ExceptionGroup" < BaseExceptionGroup,
    // `io.UnsupportedOperation` (also a ValueError: see `ExcType::class`).
    UnsupportedOperation: "UnsupportedOperation" < OSError,
    // numpy's `numpy._core._exceptions._ArrayMemoryError` (a MemoryError).
    ArrayMemoryError: "_ArrayMemoryError" < MemoryError,
    // numpy's ufunc TypeErrors (`numpy._core._exceptions`): no loop for
    // the input types, an output the result cannot be cast into.
    UFuncNoLoopError: "_UFuncNoLoopError" < TypeError,
    UFuncOutputCastingError: "_UFuncOutputCastingError" < TypeError,
    // `numpy.exceptions.AxisError` (also an IndexError: see `ExcType::class`).
    AxisError: "AxisError" < ValueError,
    // tf.errors: OpError and its subclasses (as TensorFlow defines them).
    OpError: "OpError" < Exception,
    CancelledError: "CancelledError" < OpError,
    UnknownError: "UnknownError" < OpError,
    InvalidArgumentError: "InvalidArgumentError" < OpError,
    DeadlineExceededError: "DeadlineExceededError" < OpError,
    NotFoundError: "NotFoundError" < OpError,
    AlreadyExistsError: "AlreadyExistsError" < OpError,
    PermissionDeniedError: "PermissionDeniedError" < OpError,
    UnauthenticatedError: "UnauthenticatedError" < OpError,
    ResourceExhaustedError: "ResourceExhaustedError" < OpError,
    FailedPreconditionError: "FailedPreconditionError" < OpError,
    AbortedError: "AbortedError" < OpError,
    OutOfRangeError: "OutOfRangeError" < OpError,
    UnimplementedError: "UnimplementedError" < OpError,
    InternalError: "InternalError" < OpError,
    UnavailableError: "UnavailableError" < OpError,
    DataLossError: "DataLossError" < OpError,
    // a TypeError: a symbolic tensor used as a Python bool or iterated
    OperatorNotAllowedInGraphError: "OperatorNotAllowedInGraphError" < TypeError,
}

thread_local! {
    static EXC_CLASSES: RefCell<Vec<Rc<Class>>> = const { RefCell::new(Vec::new()) };
}

impl ExcType {
    /// CPython's errno → `OSError` subclass table (Linux errno values).
    pub fn for_errno(errno: i64) -> Option<ExcType> {
        Some(match errno {
            11 | 114 | 115 => ExcType::BlockingIOError,
            10 => ExcType::ChildProcessError,
            32 | 108 => ExcType::BrokenPipeError,
            103 => ExcType::ConnectionAbortedError,
            111 => ExcType::ConnectionRefusedError,
            104 => ExcType::ConnectionResetError,
            17 => ExcType::FileExistsError,
            2 => ExcType::FileNotFoundError,
            21 => ExcType::IsADirectoryError,
            20 => ExcType::NotADirectoryError,
            4 => ExcType::InterruptedError,
            1 | 13 => ExcType::PermissionError,
            3 => ExcType::ProcessLookupError,
            110 => ExcType::TimeoutError,
            _ => return None,
        })
    }

    /// TensorFlow's status code of a `tf.errors` class (`error_code`; None
    /// for the base `OpError` and the other classes).
    pub fn op_error_code(self) -> Option<i64> {
        Some(match self {
            ExcType::CancelledError => 1,
            ExcType::UnknownError => 2,
            ExcType::InvalidArgumentError => 3,
            ExcType::DeadlineExceededError => 4,
            ExcType::NotFoundError => 5,
            ExcType::AlreadyExistsError => 6,
            ExcType::PermissionDeniedError => 7,
            ExcType::ResourceExhaustedError => 8,
            ExcType::FailedPreconditionError => 9,
            ExcType::AbortedError => 10,
            ExcType::OutOfRangeError => 11,
            ExcType::UnimplementedError => 12,
            ExcType::InternalError => 13,
            ExcType::UnavailableError => 14,
            ExcType::DataLossError => 15,
            ExcType::UnauthenticatedError => 16,
            _ => return None,
        })
    }

    /// Whether the class is a builtin name (not TensorFlow's, not `io`'s).
    pub fn is_builtin_name(self) -> bool {
        (self as usize) < ExcType::OpError as usize
            && !matches!(
                self,
                ExcType::UnsupportedOperation
                    | ExcType::ArrayMemoryError
                    | ExcType::UFuncNoLoopError
                    | ExcType::UFuncOutputCastingError
                    | ExcType::AxisError
            )
    }

    /// The class object of this exception type (created once per thread).
    pub fn class(self) -> Rc<Class> {
        EXC_CLASSES.with(|cell| {
            let mut classes = cell.borrow_mut();
            if classes.is_empty() {
                for ty in ExcType::ALL {
                    let base = match ty.base() {
                        Some(b) => classes[b as usize].clone(),
                        None => super::object::object_class(),
                    };
                    let module = if (*ty as usize) >= ExcType::OpError as usize {
                        "tensorflow.python.framework.errors_impl"
                    } else if *ty == ExcType::UnsupportedOperation {
                        "io"
                    } else if *ty == ExcType::AxisError {
                        "numpy.exceptions"
                    } else if matches!(
                        ty,
                        ExcType::ArrayMemoryError
                            | ExcType::UFuncNoLoopError
                            | ExcType::UFuncOutputCastingError
                    ) {
                        "numpy._core._exceptions"
                    } else {
                        "builtins"
                    };
                    let mut class = Class::new_builtin(
                        ty.name(),
                        module,
                        Some(base.clone()),
                        ClassKind::Exception(*ty),
                    );
                    let second = match ty {
                        // class ExceptionGroup(BaseExceptionGroup, Exception)
                        ExcType::ExceptionGroup => Some(ExcType::Exception),
                        // class UnsupportedOperation(OSError, ValueError)
                        ExcType::UnsupportedOperation => Some(ExcType::ValueError),
                        // class AxisError(ValueError, IndexError)
                        ExcType::AxisError => Some(ExcType::IndexError),
                        _ => None,
                    };
                    if let Some(second) = second {
                        let bases = vec![base, classes[second as usize].clone()];
                        if let Ok(c) = Class::new_user(
                            ty.name().into(),
                            ty.name().into(),
                            module.into(),
                            bases,
                            Default::default(),
                            ClassKind::Exception(*ty),
                            None,
                        ) {
                            class = c;
                        }
                    }
                    classes.push(class);
                }
            }
            classes[self as usize].clone()
        })
    }
}

/// One traceback entry: a call site in a source file.
#[derive(Clone, Debug)]
pub struct TraceEntry {
    /// The file.
    pub source: Rc<SourceFile>,
    /// The span of the expression or statement that was executing.
    pub span: Span,
    /// The function that was running (`<module>` at top level).
    pub func: Rc<str>,
}

/// A raised exception.
#[derive(Clone, Debug)]
pub struct PyErr(pub Box<ErrInner>);

/// The payload of a [`PyErr`].
#[derive(Clone, Debug)]
pub struct ErrInner {
    /// The exception instance.
    pub value: Value,
    /// Frames the exception passed through, innermost first.
    pub traceback: Vec<TraceEntry>,
    /// Whether the innermost span has been set (the first frame to see the
    /// error sets it; outer frames add entries).
    pub located: bool,
    /// Help lines shown under the error.
    pub help: Vec<String>,
    /// Raised by a bare `raise` (re-raising the exception being handled):
    /// how an `except*` block tells a re-raise of its part of the group
    /// from `raise e`, which CPython treats as a new exception.
    pub reraise: bool,
}

impl PyErr {
    /// A builtin exception with one message argument.
    #[cold]
    pub fn new(ty: ExcType, msg: impl Into<String>) -> PyErr {
        PyErr::with_args(ty, vec![Value::str(msg)])
    }

    /// A builtin exception with the given `args`.
    #[cold]
    pub fn with_args(ty: ExcType, args: Vec<Value>) -> PyErr {
        let inst = Instance::new(ty.class());
        inst.set_attr("args", Value::tuple(args));
        PyErr::from_value(Value::Instance(Rc::new(inst)))
    }

    /// An `OSError` (or subclass) with its fields, as
    /// `OSError(errno, strerror, filename)` makes it: `[Errno 2] No such
    /// file or directory: 'x'`.
    #[cold]
    pub fn os_error(ty: ExcType, errno: i64, strerror: &str, filename: Option<&str>) -> PyErr {
        let inst = Instance::new(ty.class());
        let (errno, strerror) = (Value::Int(errno), Value::str(strerror));
        inst.set_attr("args", Value::tuple(vec![errno.clone(), strerror.clone()]));
        inst.set_attr("errno", errno);
        inst.set_attr("strerror", strerror);
        if let Some(f) = filename {
            inst.set_attr("filename", Value::str(f));
        }
        PyErr::from_value(Value::Instance(Rc::new(inst)))
    }

    /// The `OSError` subclass CPython raises for an I/O error on `filename`
    /// (`FileNotFoundError` for `ENOENT` …), with the C library's message.
    #[cold]
    pub fn from_io(e: &std::io::Error, filename: Option<&str>) -> PyErr {
        let errno = e.raw_os_error().unwrap_or(0);
        let ty = ExcType::for_errno(errno.into()).unwrap_or(ExcType::OSError);
        // `io::Error`'s text is `strerror (os error N)`.
        let text = e.to_string();
        let strerror = text.split(" (os error").next().unwrap_or(&text);
        PyErr::os_error(ty, errno as i64, strerror, filename)
    }

    /// Wraps an exception instance.
    #[cold]
    pub fn from_value(value: Value) -> PyErr {
        PyErr(Box::new(ErrInner {
            value,
            traceback: Vec::new(),
            located: false,
            help: Vec::new(),
            reraise: false,
        }))
    }

    /// Adds a help line.
    #[cold]
    pub fn help(mut self, line: impl Into<String>) -> PyErr {
        self.0.help.push(line.into());
        self
    }

    /// The exception instance.
    pub fn value(&self) -> &Value {
        &self.0.value
    }

    /// The exception's class.
    pub fn class(&self) -> Rc<Class> {
        match &self.0.value {
            Value::Instance(i) => i.class.clone(),
            _ => ExcType::Exception.class(),
        }
    }

    /// True if the exception is an instance of the builtin type `ty` (or a subclass).
    pub fn is(&self, ty: ExcType) -> bool {
        self.class().is_subclass_of(&ty.class())
    }

    /// The exception's `args` tuple.
    pub fn args(&self) -> Vec<Value> {
        match &self.0.value {
            Value::Instance(i) => match i.get_attr("args") {
                Some(Value::Tuple(t)) => t.to_vec(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// Records where the error happened (the innermost frame calls this first;
    /// later calls from outer frames add traceback entries).
    pub fn add_frame(&mut self, source: &Rc<SourceFile>, span: Span, func: &Rc<str>) {
        self.0.traceback.push(TraceEntry {
            source: source.clone(),
            span,
            func: func.clone(),
        });
        self.0.located = true;
    }
}

/// What a replica parked at a collective gets instead of its share of the
/// result (`Vm::collective`).
#[derive(Clone, Debug)]
pub enum CollectiveError {
    /// Replicas `finished` returned from the replica function while
    /// replicas `waiting` were parked at the collective (TensorFlow would
    /// hang there).
    Abandoned {
        /// The replicas that returned.
        finished: Vec<usize>,
        /// The replicas parked at the collective.
        waiting: Vec<usize>,
    },
    /// An error raised while merging, or by another replica.
    Raised(PyErr),
}

impl CollectiveError {
    /// The exception to raise at the replica's call site; `collective`
    /// names the collective (`ReplicaContext.all_reduce`) when the caller
    /// knows it.
    #[cold]
    pub fn into_pyerr(self, collective: Option<&str>) -> PyErr {
        let (finished, waiting) = match self {
            CollectiveError::Raised(e) => return e,
            CollectiveError::Abandoned { finished, waiting } => (finished, waiting),
        };
        let list = |v: &[usize]| {
            v.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let name = collective.map(|n| format!(" {n}")).unwrap_or_default();
        let msg = format!(
            "replica {} returned without reaching the collective{name} that replica {} {} waiting at; \
             every replica must reach the same collectives in the same order",
            list(&finished),
            list(&waiting),
            if waiting.len() == 1 { "is" } else { "are" }
        );
        let help = match collective {
            Some(n) => format!(
                "TensorFlow would hang here; every replica must call {n} the same number of times, in the same order"
            ),
            None => "TensorFlow would hang here; make every replica call the collective".into(),
        };
        PyErr::new(ExcType::RuntimeError, msg).help(help)
    }
}
