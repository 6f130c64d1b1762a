//! The `NativeObject` trait that every object implemented in Rust implements
//! (strategies, per-replica values, datasets, iterators, modules …), and the
//! `Vm` trait through which natives call back into the interpreter.

use std::any::Any;
use std::rc::Rc;

use super::error::{ExcType, PyErr, PyResult};
use super::value::Value;
use crate::object::types::type_error;
use crate::syntax::ast;
use crate::syntax::ast::BinOp;
use crate::syntax::ast::CmpOp;

/// What natives may ask of the interpreter. `eval::Interp` implements it;
/// natives never see the evaluator's internals.
pub trait Vm {
    /// Calls any callable with positional and keyword arguments.
    fn call(
        &self,
        func: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value>;
    /// `repr(v)`.
    fn repr(&self, v: &Value) -> PyResult<String>;
    /// `str(v)`.
    fn str(&self, v: &Value) -> PyResult<String>;
    /// `object.__repr__(v)`: the default repr, whatever `v`'s class defines.
    fn object_repr(&self, v: &Value) -> PyResult<String> {
        Ok(format!("<{} object at {:#x}>", v.type_name(), v.id()))
    }
    /// `object.__str__(v)` (BaseException's for exceptions).
    fn object_str(&self, v: &Value) -> PyResult<String> {
        self.repr(v)
    }
    /// `getattr(v, name)`.
    fn getattr(&self, v: &Value, name: &str) -> PyResult<Value>;
    /// `bool(v)`.
    fn truthy(&self, v: &Value) -> PyResult<bool>;
    /// `v1 == v2` as a bool.
    fn eq(&self, a: &Value, b: &Value) -> PyResult<bool>;
    /// `a < b` as a bool (sorting, min, max).
    fn lt(&self, a: &Value, b: &Value) -> PyResult<bool>;
    /// `a > b` as a bool (`max`, which compares with `>` as CPython does, so
    /// its errors name that operator).
    fn gt(&self, a: &Value, b: &Value) -> PyResult<bool> {
        self.lt(b, a)
    }
    /// `a op b` with Python's dispatch (dunder methods, reflected operands).
    fn binop(&self, op: BinOp, a: &Value, b: &Value) -> PyResult<Value>;
    /// `len(v)`.
    fn len(&self, v: &Value) -> PyResult<usize>;
    /// `v[key]`.
    fn getitem(&self, v: &Value, key: &Value) -> PyResult<Value>;
    /// `v[key] = value`.
    fn setitem(&self, v: &Value, key: &Value, value: Value) -> PyResult<()>;
    /// `del v[key]`.
    fn delitem(&self, v: &Value, key: &Value) -> PyResult<()>;
    /// `a op= b` (lists, dicts and sets change in place).
    fn inplace(&self, op: BinOp, a: &Value, b: &Value) -> PyResult<Value>;
    /// The attribute names `dir(v)` lists, unsorted, possibly repeated.
    fn dir(&self, v: &Value) -> Vec<String>;
    /// `item in container`.
    fn contains(&self, container: &Value, item: &Value) -> PyResult<bool>;
    /// `hash(v)`.
    fn hash(&self, v: &Value) -> PyResult<i64>;
    /// `type(v)`: the class object.
    fn type_of(&self, v: &Value) -> Value;
    /// `type.__call__(cls, *args, **kwargs)`: makes an instance of `cls`
    /// (its `__new__`, then `__init__`) without consulting its metaclass's
    /// `__call__` (which is how such a hook reaches the default).
    fn construct(
        &self,
        cls: &Rc<super::object::Class>,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value> {
        let _ = (args, kwargs);
        Err(PyErr::new(
            ExcType::NotImplementedError,
            format!("cannot create '{}' instances here", cls.name),
        ))
    }
    /// `isinstance(v, cls)` for one class object.
    fn isinstance(&self, v: &Value, cls: &Value) -> PyResult<bool>;
    /// `format(v, spec)`.
    fn format(&self, v: &Value, spec: &str) -> PyResult<String>;
    /// `iter(v)`: an iterator object.
    fn iter(&self, v: &Value) -> PyResult<Value>;
    /// `next(it)`; None when exhausted.
    fn next(&self, it: &Value) -> PyResult<Option<Value>>;
    /// The exception being handled now (`sys.exception()`), innermost
    /// `except`/`finally`/`__exit__` first; None outside any handler.
    fn handled_exception(&self) -> Option<Value> {
        None
    }
    /// Whether a `tf.function` traces and the running Python frame is user
    /// code that autograph did not convert at this point: there, using a
    /// tensor of the graph as a Python bool, iterating it or taking its
    /// `len` is TensorFlow's error (`OperatorNotAllowedInGraphError`).
    fn graph_strict(&self) -> bool {
        false
    }
    /// `import name`: the module object (what a native needs of a module
    /// written in the language, such as `warnings.warn`).
    fn import_module(&self, name: &str) -> PyResult<Value> {
        Err(super::PyErr::new(
            super::ExcType::ModuleNotFoundError,
            format!("No module named '{name}'"),
        ))
    }
    /// The live Python frame `depth` calls out from the innermost (what
    /// `sys._getframe(depth)` gives); None past the outermost.
    fn frame(&self, _depth: usize) -> Option<Value> {
        None
    }
    /// Whether the `tf.function` being traced has autograph on (it converts
    /// `len` of a tensor, as it converts `if` and `for`).
    fn autograph(&self) -> bool {
        false
    }
    /// Collects an iterable into a vector.
    fn collect(&self, v: &Value) -> PyResult<Vec<Value>> {
        use crate::object::types::{alloc_vec, length_hint, push};
        let mut out = alloc_vec(length_hint(v))?;
        let it = self.iter(v)?;
        while let Some(x) = self.next(&it)? {
            push(&mut out, x)?;
        }
        Ok(out)
    }
    /// Runs `body(i)` for replicas `0..n` as coroutines, in replica order; a
    /// replica calling [`Vm::collective`] parks until all have arrived, then
    /// `merge` runs once on the payloads (in replica order) and each replica
    /// resumes with its element of the result.
    fn run_replicas(
        &self,
        n: usize,
        body: &dyn Fn(usize) -> PyResult<Value>,
        merge: &dyn Fn(Vec<Value>) -> PyResult<Vec<Value>>,
    ) -> PyResult<Vec<Value>>;
    /// Parks the running replica at a collective (see [`Vm::run_replicas`]).
    fn collective(&self, payload: Value) -> Result<Value, super::CollectiveError>;
    /// The replica running now, inside `run_replicas`.
    fn current_replica(&self) -> Option<usize>;
    /// Writes to standard output (respects redirection in tests and the REPL).
    fn write_stdout(&self, text: &str);
    /// Flushes what `write_stdout` buffered (before writing to stderr).
    fn flush_stdout(&self) {}
    /// The most Python frames a call chain may hold (`sys.getrecursionlimit()`).
    fn recursion_limit(&self) -> u32;
    /// Sets the recursion limit (`sys.setrecursionlimit`).
    fn set_recursion_limit(&self, n: u32);
    /// Interpreter-wide state that higher layers (`distribute`, `modules`)
    /// keep, looked up by type (a strategy stack, the device table …).
    fn state(&self) -> &State;

    /// Raises KeyboardInterrupt after Ctrl-C (and the step budget's error):
    /// long-running natives (a replayed graph's loop) call it as the
    /// interpreter's loops do.
    fn check_interrupt(&self) -> PyResult<()> {
        Ok(())
    }
}

/// A type map for the state that layers above `value` keep in the interpreter.
#[derive(Default)]
pub struct State {
    slots: std::cell::RefCell<Vec<(std::any::TypeId, Rc<dyn Any>)>>,
}

impl State {
    /// The state of type `T`, created with `Default` on first use.
    pub fn get<T: Any + Default>(&self) -> Rc<T> {
        let id = std::any::TypeId::of::<T>();
        let mut slots = self.slots.borrow_mut();
        if let Some((_, s)) = slots.iter().find(|(k, _)| *k == id) {
            if let Ok(t) = s.clone().downcast::<T>() {
                return t;
            }
        }
        let t = Rc::new(T::default());
        slots.push((id, t.clone()));
        t
    }

    /// Forgets all state (the REPL's `:reset`).
    pub fn clear(&self) {
        self.slots.borrow_mut().clear();
    }
}

/// The upcast every native object has, for downcasting to its concrete
/// type (`n.as_any().downcast_ref::<T>()`): written once here for all.
pub trait AsAny: Any {
    /// `self` as `&dyn Any`.
    fn any_ref(&self) -> &dyn Any;
}

impl<T: Any> AsAny for T {
    fn any_ref(&self) -> &dyn Any {
        self
    }
}

impl dyn NativeObject {
    /// Upcast for downcasting to the concrete type.
    #[inline]
    pub fn as_any(&self) -> &dyn Any {
        self.any_ref()
    }
}

/// An object implemented in Rust. Every method has a default that behaves
/// like a plain Python object without the corresponding dunder method.
/// `this` is the `Value` that wraps `self`, for methods that bind it.
pub trait NativeObject: AsAny {
    /// The Python type name (`MirroredStrategy`, `PerReplica` …): by default
    /// its spec's class name.
    fn type_name(&self) -> &str {
        match self.spec() {
            Some(spec) => spec.name,
            None => "object",
        }
    }

    /// The descriptor protocol's `__get__` for an instance: what
    /// `instance.name` gives when the class attribute `name` is this object
    /// (None: the object itself, as for any non-descriptor).
    fn bind(&self, _this: &Value, _receiver: &Value) -> Option<Value> {
        None
    }

    /// `repr(obj)`.
    fn repr(&self, this: &Value, vm: &dyn Vm) -> PyResult<String> {
        let _ = vm;
        Ok(format!("<{} object at {:#x}>", self.type_name(), this.id()))
    }

    /// `str(obj)` (defaults to `repr`).
    fn str(&self, this: &Value, vm: &dyn Vm) -> PyResult<String> {
        self.repr(this, vm)
    }

    /// Attribute lookup: methods (bound to `this`) and attributes. `Ok(None)`
    /// means "no such attribute" and becomes Python's AttributeError.
    fn getattr(&self, this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let _ = (this, name, vm);
        Ok(None)
    }

    /// Attribute assignment; `Ok(false)` means "not settable" (AttributeError).
    fn setattr(&self, this: &Value, name: &str, value: Value, vm: &dyn Vm) -> PyResult<bool> {
        let _ = (this, name, value, vm);
        Ok(false)
    }

    /// Names for `dir()` and tab completion: by default the public names
    /// of the class its spec describes.
    fn dir(&self) -> Vec<String> {
        match self.spec() {
            Some(spec) => crate::object::spec::public_names(&spec.class()),
            None => Vec::new(),
        }
    }

    /// Calling the object.
    fn call(
        &self,
        this: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
        vm: &dyn Vm,
    ) -> PyResult<Value> {
        let _ = (this, args, kwargs, vm);
        Err(type_error(format!(
            "'{}' object is not callable",
            self.type_name()
        )))
    }

    /// `iter(obj)`: `Ok(None)` means not iterable.
    fn iter(&self, this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let _ = (this, vm);
        Ok(None)
    }

    /// For iterator objects: the next item, None when exhausted.
    /// `Err` with `ExcType::TypeError` by default: not an iterator.
    fn next(&self, this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let _ = (this, vm);
        Err(type_error(format!(
            "'{}' object is not an iterator",
            self.type_name()
        )))
    }

    /// `len(obj)`.
    fn len(&self, vm: &dyn Vm) -> PyResult<Option<usize>> {
        let _ = vm;
        Ok(None)
    }

    /// `obj[key]`; `Ok(None)` means not subscriptable.
    fn getitem(&self, this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let _ = (this, key, vm);
        Ok(None)
    }

    /// `obj[key] = value`; `Ok(false)` means unsupported.
    fn setitem(&self, this: &Value, key: &Value, value: Value, vm: &dyn Vm) -> PyResult<bool> {
        let _ = (this, key, value, vm);
        Ok(false)
    }

    /// `del obj[key]`; `Ok(false)` means unsupported.
    fn delitem(&self, this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<bool> {
        let _ = (this, key, vm);
        Ok(false)
    }

    /// `bool(obj)`; None means "always true".
    fn truthy(&self, vm: &dyn Vm) -> PyResult<Option<bool>> {
        let _ = vm;
        Ok(None)
    }

    /// `obj op other` (or `other op obj` when `reflected`); `Ok(None)` means NotImplemented.
    fn binop(
        &self,
        this: &Value,
        op: BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let _ = (this, op, other, reflected, vm);
        Ok(None)
    }

    /// Unary `-obj`, `+obj`, `~obj` (`op` is '-', '+', '~'); `Ok(None)` means unsupported.
    fn unary(&self, this: &Value, op: ast::UnaryOp, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let _ = (this, op, vm);
        Ok(None)
    }

    /// Value equality with `other`, from which `==` and `!=` follow (the
    /// default [`NativeObject::compare`]); `Ok(None)` means NotImplemented.
    fn equals(&self, this: &Value, other: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        let _ = (this, other, vm);
        Ok(None)
    }

    /// Rich comparison; `Ok(None)` means NotImplemented. By default `==` and
    /// `!=` from [`NativeObject::equals`], and no ordering.
    fn compare(
        &self,
        this: &Value,
        op: CmpOp,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let same = match op {
            CmpOp::Eq | CmpOp::NotEq => self.equals(this, other, vm)?,
            _ => None,
        };
        Ok(same.map(|s| Value::Bool(s == (op == CmpOp::Eq))))
    }

    /// `x in obj`; `Ok(None)` means fall back to iteration.
    fn contains(&self, item: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        let _ = (item, vm);
        Ok(None)
    }

    /// For iterators: the value of the StopIteration that `next()` raises
    /// once this one is exhausted (a generator's return value).
    fn stop_value(&self) -> Value {
        Value::None
    }

    /// Whether instances can be dict keys (identity hash).
    fn hashable(&self) -> bool {
        true
    }

    /// The builtin value this object hashes and compares as when it is a dict
    /// key or set element (a named tuple: the tuple of its values). None:
    /// identity.
    fn hash_as(&self) -> Option<Value> {
        None
    }

    /// `with obj:` entry; returns the `as` value. `Ok(None)`: not a context manager.
    fn enter(&self, this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let _ = (this, vm);
        Ok(None)
    }

    /// `with obj:` exit (always called, also on error; `exc` is the exception
    /// being raised). Returns true to suppress the exception.
    fn exit(&self, this: &Value, exc: Option<&PyErr>, vm: &dyn Vm) -> PyResult<bool> {
        let _ = (this, exc, vm);
        Ok(false)
    }

    /// Conversion to a Python int/float for `int()`, `float()`, `range()`, indexing.
    fn to_number(&self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let _ = vm;
        Ok(None)
    }

    /// The tensor this object stands for when used where a tensor is needed
    /// (`tf.convert_to_tensor(variable)`, numpy arrays); `Ok(None)`: not convertible.
    fn to_tensor(&self, vm: &dyn Vm) -> PyResult<Option<crate::runtime::Tensor>> {
        let _ = vm;
        Ok(None)
    }

    /// A `tf.Variable` (converting it to a tensor of another dtype is
    /// TensorFlow's variable error, not a cast).
    fn is_variable(&self) -> bool {
        false
    }

    /// The static description of the object's class (its methods,
    /// properties and constructor): attribute lookup on the object finds
    /// them on that class before asking [`NativeObject::getattr`].
    fn spec(&self) -> Option<&'static crate::object::ClassSpec> {
        None
    }

    /// The object's class, for `type(obj)` and `isinstance` (`range`, `slice`,
    /// `dict_keys` …): by default the class of its [`NativeObject::spec`].
    /// A type whose attributes are its own rather than its class's (a
    /// module, a `super` object) names its class here and leaves `spec`
    /// None, so lookup asks its `getattr` first. Every native type has a
    /// class one way or the other: identity is by class, never by name.
    fn class(&self) -> Option<std::rc::Rc<super::object::Class>> {
        self.spec().map(crate::object::class_of_spec)
    }
}
