//! Weak references (`weakref.ref`, the class `weakref.ReferenceType`) and
//! the registry that runs their callbacks. A reference holds an
//! `std::rc::Weak` to its referent, so it sees the referent die at the
//! moment CPython's reference counting would free it (dist counts
//! references too). A callback given for a class instance runs at the
//! interpreter's next safe point after the instance is freed, after the
//! instance's own `__del__`, as CPython orders them. The `_weakref` module
//! (`modules/weakref.rs`) exports the class.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use crate::object::types::type_error;
use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::syntax::ast::CmpOp;
use crate::value::dict::SetObj;
use crate::value::object::Instance;
use crate::value::{
    BoundMethod, Class, ExcType, Function, NativeObject, PyErr, PyResult, Value, Vm,
};

/// What a weak reference points at.
enum Target {
    Instance(Weak<Instance>),
    Function(Weak<Function>),
    Class(Weak<Class>),
    Set(Weak<SetObj>),
    Method(Weak<BoundMethod>),
    Native(Weak<Box<dyn NativeObject>>),
}

impl Target {
    fn upgrade(&self) -> Option<Value> {
        Some(match self {
            Target::Instance(w) => Value::Instance(w.upgrade()?),
            Target::Function(w) => Value::Function(w.upgrade()?),
            Target::Class(w) => Value::Class(w.upgrade()?),
            Target::Set(w) => Value::Set(w.upgrade()?),
            Target::Method(w) => Value::BoundMethod(w.upgrade()?),
            Target::Native(w) => Value::Native(w.upgrade()?),
        })
    }
}

/// `weakref.ref(obj[, callback])`.
pub struct WeakRef {
    target: Target,
    /// Called with this reference once the referent is freed (None: none).
    callback: RefCell<Value>,
    /// The referent's hash, taken when the reference is made (a dead
    /// reference still finds its dict entry); None: unhashable.
    hash: Option<i64>,
}

/// A weak handle on a `WeakRef` (the native object holding it).
type RefHandle = Weak<Box<dyn NativeObject>>;

/// `weakref.ReferenceType`.
pub static REFERENCE_TYPE: ClassSpec = ClassSpec {
    name: "ReferenceType",
    module: "weakref",
    bases: &[],
    members: &[Member::New(ref_new::DEF), Member::Getter(callback::DEF)],
};

impl NativeClass for WeakRef {
    const SPEC: &'static ClassSpec = &REFERENCE_TYPE;
}

// The registry is reached from `Drop for Instance`, which has no
// interpreter at hand: it is per thread, as the interpreter is.
thread_local! {
    /// The instances some live reference with a callback watches, by
    /// address, with those references.
    static WATCHED: RefCell<Vec<(usize, RefHandle)>> =
        const { RefCell::new(Vec::new()) };
    /// How many entries `WATCHED` has (read on every instance drop).
    static WATCHING: Cell<usize> = const { Cell::new(0) };
    /// References whose watched instance was freed, their callbacks due.
    /// Grouped by freed instance, in the order they were freed.
    static DUE: RefCell<Vec<Vec<RefHandle>>> =
        const { RefCell::new(Vec::new()) };
}

/// Called as an instance is freed: the callbacks of the references watching
/// it become due at the next safe point.
#[inline]
pub fn instance_freed(addr: usize) {
    if WATCHING.try_with(|w| w.get()).unwrap_or(0) == 0 {
        return;
    }
    let _ = WATCHED.try_with(|w| {
        let Ok(mut w) = w.try_borrow_mut() else {
            return;
        };
        let mut due = Vec::new();
        w.retain(|(a, r)| {
            if *a == addr {
                due.push(r.clone());
                false
            } else {
                true
            }
        });
        WATCHING.with(|c| c.set(w.len()));
        if !due.is_empty() {
            // CPython runs an object's callbacks newest reference first,
            // and objects' callbacks in the order the objects were freed.
            due.reverse();
            let _ = DUE.try_with(|d| {
                if let Ok(mut d) = d.try_borrow_mut() {
                    d.push(due);
                    crate::value::object::set_finalizers_pending(true);
                }
            });
        }
    });
}

/// The callbacks due for the next freed instance, each with the reference
/// to pass it (a reference that was itself freed meanwhile is skipped, as in
/// CPython). They are taken together and run in turn, so that a safe point
/// inside one of them runs only the callbacks of instances freed since.
pub fn take_due_callbacks() -> Option<Vec<(Value, Value)>> {
    let group = DUE.with(|d| {
        let mut d = d.borrow_mut();
        (!d.is_empty()).then(|| d.remove(0))
    })?;
    let mut out = Vec::new();
    for r in group {
        let Some(r) = r.upgrade() else { continue };
        let this = Value::Native(r);
        let Some(w) = this.downcast::<WeakRef>() else {
            continue;
        };
        let cb = w.callback.replace(Value::None);
        if !matches!(cb, Value::None) {
            out.push((cb, this));
        }
    }
    Some(out)
}

/// A weak reference to `object`: calling it returns the object while it lives, then None.
#[native("ref(object, callback=None, /)", c_ctor)]
fn ref_new(vm: &dyn Vm, object: &Value, callback: Value) -> PyResult<Value> {
    let target = match object {
        Value::Instance(i) => Target::Instance(Rc::downgrade(i)),
        Value::Function(f) => Target::Function(Rc::downgrade(f)),
        Value::Class(c) => Target::Class(Rc::downgrade(c)),
        Value::Set(s) => Target::Set(Rc::downgrade(s)),
        Value::BoundMethod(m) => Target::Method(Rc::downgrade(m)),
        Value::Native(n) => Target::Native(Rc::downgrade(n)),
        other => {
            return Err(type_error(format!(
                "cannot create weak reference to '{}' object",
                other.type_name()
            )))
        }
    };
    let watched = match (&callback, object) {
        (Value::None, _) => None,
        (_, Value::Instance(i)) => Some(Rc::as_ptr(i) as usize),
        (_, other) => {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                format!(
                    "weakref callbacks are supported for class instances only in dist, not for a '{}' object",
                    other.type_name()
                ),
            ))
        }
    };
    let r = Value::native(WeakRef {
        target,
        callback: RefCell::new(callback),
        hash: vm.hash(object).ok(),
    });
    if let (Some(addr), Value::Native(n)) = (watched, &r) {
        WATCHED.with(|w| {
            let mut w = w.borrow_mut();
            w.push((addr, Rc::downgrade(n)));
            WATCHING.with(|c| c.set(w.len()));
        });
    }
    Ok(r)
}

impl NativeObject for WeakRef {
    fn type_name(&self) -> &str {
        "weakref.ReferenceType"
    }

    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&REFERENCE_TYPE)
    }

    fn repr(&self, this: &Value, vm: &dyn Vm) -> PyResult<String> {
        Ok(match self.target.upgrade() {
            Some(obj) => {
                let ty = vm.type_of(&obj);
                let name = match &ty {
                    Value::Class(c) => c.name.to_string(),
                    _ => obj.type_name(),
                };
                format!(
                    "<weakref at {:#x}; to '{}' at {:#x}>",
                    this.id(),
                    name,
                    obj.id()
                )
            }
            None => format!("<weakref at {:#x}; dead>", this.id()),
        })
    }

    fn call(
        &self,
        _this: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
        _vm: &dyn Vm,
    ) -> PyResult<Value> {
        if !kwargs.is_empty() {
            return Err(type_error("weakref() takes no keyword arguments"));
        }
        if !args.is_empty() {
            return Err(type_error(format!(
                "weakref() expected 0 arguments, got {}",
                args.len()
            )));
        }
        Ok(self.target.upgrade().unwrap_or(Value::None))
    }

    fn compare(
        &self,
        this: &Value,
        op: CmpOp,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let Some(o) = other.downcast::<WeakRef>() else {
            return Ok(None);
        };
        let eq = match (self.target.upgrade(), o.target.upgrade()) {
            // Two live references compare as their referents do.
            (Some(a), Some(b)) => vm.eq(&a, &b)?,
            _ => this.id() == other.id(),
        };
        Ok(match op {
            CmpOp::Eq => Some(Value::Bool(eq)),
            CmpOp::NotEq => Some(Value::Bool(!eq)),
            _ => None,
        })
    }

    fn hash_as(&self) -> Option<Value> {
        // A live reference is a dict key as its referent is (equal
        // referents, equal references); a dead one keeps its hash.
        self.target.upgrade().or_else(|| self.hash.map(Value::Int))
    }
}

/// The callback, None when there is none (or it has run).
#[native("ReferenceType.__callback__(self)")]
fn callback(this: &WeakRef) -> Value {
    this.callback.borrow().clone()
}
