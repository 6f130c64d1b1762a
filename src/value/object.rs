//! The object model: classes (user classes, builtin types and exception
//! classes share one representation), instances, functions implemented in
//! the language, functions implemented in Rust, and bound methods.

use std::cell::RefCell;
use std::rc::Rc;

use super::error::{ExcType, PyResult};
use super::native::Vm;
use super::signature::{Args, Signature};
use super::value::{Value, ValueType};
use crate::syntax::ast::FunctionDef;
use crate::syntax::SourceFile;

/// What a class is underneath.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassKind {
    /// Defined by a `class` statement (its nearest builtin base decides the rest).
    User,
    /// A builtin exception class.
    Exception(ExcType),
    /// A builtin type (`int`, `str`, `list`, `type`, `object` …).
    Builtin(ValueType),
    /// The type of a native object (`MirroredStrategy`, `PerReplica` …).
    Native,
}

/// A class object.
pub struct Class {
    /// `__name__`.
    pub name: Rc<str>,
    /// `__qualname__`.
    pub qualname: Rc<str>,
    /// `__module__`.
    pub module: Rc<str>,
    /// The base class (single inheritance), None only for `object`.
    pub base: Option<Rc<Class>>,
    /// The class namespace: methods, class attributes.
    pub dict: RefCell<crate::value::Namespace>,
    /// What the class is underneath.
    pub kind: ClassKind,
    /// Its metaclass when that is not `type` (a user subclass of `type`):
    /// None for ordinary classes, so every metaclass check on them is one
    /// test of this field.
    pub meta: Option<Rc<Class>>,
}

impl Class {
    /// A builtin class (exceptions, builtin types, native types).
    pub fn new_builtin(
        name: &str,
        module: &str,
        base: Option<Rc<Class>>,
        kind: ClassKind,
    ) -> Rc<Class> {
        Rc::new(Class {
            name: name.into(),
            qualname: name.into(),
            module: module.into(),
            base,
            dict: RefCell::new(Default::default()),
            kind,
            meta: None,
        })
    }

    /// The method resolution order: this class, then its bases up to the root.
    pub fn mro(self: &Rc<Class>) -> Vec<Rc<Class>> {
        let mut out = vec![self.clone()];
        let mut cur = self.base.clone();
        while let Some(c) = cur {
            cur = c.base.clone();
            out.push(c);
        }
        out
    }

    /// Looks an attribute up along the MRO.
    pub fn lookup(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.dict.borrow().get(name) {
            return Some(v.clone());
        }
        let mut cur = self.base.clone();
        while let Some(c) = cur {
            if let Some(v) = c.dict.borrow().get(name) {
                return Some(v.clone());
            }
            cur = c.base.clone();
        }
        None
    }

    /// `issubclass(self, other)`.
    pub fn is_subclass_of(self: &Rc<Class>, other: &Rc<Class>) -> bool {
        if Rc::ptr_eq(self, other) {
            return true;
        }
        let mut cur = self.base.clone();
        while let Some(c) = cur {
            if Rc::ptr_eq(&c, other) {
                return true;
            }
            cur = c.base.clone();
        }
        false
    }

    /// The builtin exception type this class is or derives from, if any.
    pub fn exception_type(self: &Rc<Class>) -> Option<ExcType> {
        let mut cur = Some(self.clone());
        while let Some(c) = cur {
            if let ClassKind::Exception(t) = c.kind {
                return Some(t);
            }
            cur = c.base.clone();
        }
        None
    }

    /// A method (or other attribute) of this class's metaclass, when the
    /// class has a metaclass other than `type`.
    #[inline]
    pub fn meta_lookup(&self, name: &str) -> Option<Value> {
        match &self.meta {
            None => None,
            Some(m) => m.lookup(name),
        }
    }

    /// Sets a class attribute.
    pub fn set_attr(&self, name: &str, value: Value) {
        self.dict.borrow_mut().insert(name.into(), value);
    }
}

impl std::fmt::Debug for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<class '{}'>", self.name)
    }
}

/// An instance of a user class (or of an exception class).
#[derive(Debug)]
pub struct Instance {
    /// Its class.
    pub class: Rc<Class>,
    /// Instance attributes.
    pub dict: RefCell<crate::value::Namespace>,
}

impl Instance {
    /// A fresh instance with an empty `__dict__`.
    pub fn new(class: Rc<Class>) -> Instance {
        Instance {
            class,
            dict: RefCell::new(Default::default()),
        }
    }

    /// Reads an instance attribute (not the class's).
    pub fn get_attr(&self, name: &str) -> Option<Value> {
        self.dict.borrow().get(name).cloned()
    }

    /// Sets an instance attribute.
    pub fn set_attr(&self, name: &str, value: Value) {
        self.dict.borrow_mut().insert(name.into(), value);
    }
}

/// A closure cell: a captured variable (None while unbound).
pub type CellRef = Rc<RefCell<Option<Value>>>;

/// A function defined in the language (`def` or `lambda`).
pub struct Function {
    /// The definition (body and resolved scope).
    pub def: Rc<FunctionDef>,
    /// The file it was defined in.
    pub source: Rc<SourceFile>,
    /// The signature with evaluated defaults (built when `def` ran).
    pub sig: Rc<Signature>,
    /// Captured cells of free variables, in `Scope::free` order.
    pub closure: Vec<CellRef>,
    /// `__dict__` (function attributes; also `__wrapped__` etc.).
    pub dict: RefCell<crate::value::Namespace>,
    /// The class whose body defined this function (for zero-argument `super()`).
    pub class_cell: RefCell<Option<std::rc::Weak<Class>>>,
    /// Decided once when the function object is made: not a generator, every
    /// parameter is positional and lives in local slot `i` (no cells, no closure), so a
    /// call with exactly `sig.params.len()` positional arguments can store
    /// them straight into the new frame's first locals, without binding.
    pub plain: bool,
    /// Number of plain local slots of a frame of this function (from the
    /// resolved scope, copied here so a call needs no borrow of it).
    pub num_locals: u32,
}

/// The Rust signature of every native function: the bound arguments in
/// parameter order (defaults filled in, `*args` as a tuple, `**kwargs` as a dict).
pub type NativeFn = fn(vm: &dyn Vm, args: &Args) -> PyResult<Value>;

/// A function implemented in Rust, possibly bound to a receiver.
pub struct NativeFunction {
    /// Its Python signature (the name in it is used in error messages, e.g.
    /// `OneDeviceStrategy.__init__`); a bound receiver fills the first parameter.
    pub sig: Rc<Signature>,
    /// The implementation.
    pub func: NativeFn,
    /// The receiver, for methods.
    pub bound: Option<Value>,
    /// User documentation (`help()`): one paragraph, then an example.
    pub doc: &'static str,
    /// `sig.params.len()` when every parameter is positional (see
    /// [`Signature::all_positional`]), else `usize::MAX`: set once here, so
    /// a call site tests its argument count against it without walking the
    /// parameters at every call.
    pub positional_arity: usize,
}

/// See [`NativeFunction::positional_arity`].
fn positional_arity(sig: &Signature) -> usize {
    if sig.all_positional() {
        sig.params.len()
    } else {
        usize::MAX
    }
}

impl NativeFunction {
    /// An unbound native function from a signature string such as
    /// `"print(*args, sep=' ', end='\n')"`.
    pub fn new(sig: &str, func: NativeFn, doc: &'static str) -> Rc<NativeFunction> {
        Self::from_signature(Signature::parse(sig), func, doc)
    }

    /// A builtin that CPython writes in C (argument-count errors in its style,
    /// see [`Signature::builtin`]).
    pub fn new_builtin(sig: &str, func: NativeFn, doc: &'static str) -> Rc<NativeFunction> {
        Self::from_signature(Signature::parse(sig).c_builtin(false), func, doc)
    }

    /// A builtin type's constructor (`__new__`) that CPython writes in C.
    pub fn new_builtin_ctor(sig: &str, func: NativeFn, doc: &'static str) -> Rc<NativeFunction> {
        Self::from_signature(Signature::parse(sig).c_builtin(true), func, doc)
    }

    fn from_signature(sig: Signature, func: NativeFn, doc: &'static str) -> Rc<NativeFunction> {
        Rc::new(NativeFunction {
            positional_arity: positional_arity(&sig),
            sig: Rc::new(sig),
            func,
            bound: None,
            doc,
        })
    }

    /// The same function bound to a receiver.
    pub fn bind(self: &Rc<NativeFunction>, receiver: Value) -> Value {
        Value::NativeFunction(Rc::new(NativeFunction {
            sig: self.sig.clone(),
            func: self.func,
            bound: Some(receiver),
            doc: self.doc,
            positional_arity: self.positional_arity,
        }))
    }

    /// The function's name (last component of the signature name).
    pub fn name(&self) -> &str {
        self.sig.name.rsplit('.').next().unwrap_or(&self.sig.name)
    }
}

/// A function bound to a receiver (`obj.method`).
pub struct BoundMethod {
    /// The receiver (`__self__`).
    pub receiver: Value,
    /// The function (`__func__`).
    pub func: Value,
}
