//! `tf.name_scope`: the current name scope (`"outer/inner/"`), which
//! prefixes the names of variables made inside it, entered and left as
//! TensorFlow's eager `name_scope_v2` does (no uniquifying; a name ending
//! in `/` is absolute; an empty name resets to the root).

use std::cell::RefCell;

use crate::distribute::classes::native_class;
use crate::object::{native, ClassSpec, Member};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// The current scope name, kept in the interpreter's state.
#[derive(Default)]
struct Current(RefCell<String>);

/// The current name scope (`""` at the root, else ending in `/`).
pub fn current(vm: &dyn Vm) -> String {
    vm.state().get::<Current>().0.borrow().clone()
}

/// `name` inside the current name scope (a variable's name).
pub fn scoped(vm: &dyn Vm, name: &str) -> String {
    format!("{}{name}", current(vm))
}

/// A `tf.name_scope(name)` context manager: the name, and the scopes it
/// replaced, one per time it is entered.
pub struct NameScope {
    name: String,
    saved: RefCell<Vec<String>>,
}

/// `tf.name_scope` (`name_scope_v2`).
pub static NAME_SCOPE: ClassSpec = ClassSpec {
    name: "name_scope_v2",
    module: "tensorflow.python.framework.ops",
    bases: &[],
    members: &[
        Member::New(name_scope::DEF),
        Member::Getter(scope_name::DEF),
    ],
};

native_class!(NameScope: NAME_SCOPE);

/// A context manager that prefixes the names of the variables made inside
/// it (`with tf.name_scope("outer") as scope:` gives `"outer/"`).
#[native("name_scope_v2.__init__(name)")]
fn name_scope(name: &Value) -> PyResult<Value> {
    let Value::Str(s) = name.as_builtin() else {
        return Err(PyErr::new(
            ExcType::ValueError,
            "name for name_scope must be a string.",
        ));
    };
    Ok(Value::native(NameScope {
        name: s.to_string(),
        saved: RefCell::new(Vec::new()),
    }))
}

/// The name given.
#[native("name_scope_v2.name(self)")]
fn scope_name(this: &NameScope) -> String {
    this.name.clone()
}

impl NativeObject for NameScope {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&NAME_SCOPE)
    }

    fn enter(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let cur = vm.state().get::<Current>();
        let old = cur.0.borrow().clone();
        let new = if self.name.is_empty() {
            String::new()
        } else if self.name.ends_with('/') {
            self.name.clone()
        } else {
            format!("{old}{}/", self.name)
        };
        *cur.0.borrow_mut() = new.clone();
        self.saved.borrow_mut().push(old);
        Ok(Some(Value::str(new)))
    }

    fn exit(&self, _this: &Value, _exc: Option<&PyErr>, vm: &dyn Vm) -> PyResult<bool> {
        if let Some(old) = self.saved.borrow_mut().pop() {
            *vm.state().get::<Current>().0.borrow_mut() = old;
        }
        Ok(false)
    }
}
