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

/// `tf.get_current_name_scope()`: the current scope without its final `/`.
#[native("get_current_name_scope()")]
pub fn get_current_name_scope(vm: &dyn Vm) -> String {
    current(vm).trim_end_matches('/').to_string()
}

/// A `tf.name_scope(name)` context manager: the name, and the scopes it
/// replaced, one per time it is entered (with the graph whose name scope
/// it entered too, inside a trace).
pub struct NameScope {
    name: String,
    saved: RefCell<Vec<(String, Option<GraphRef>)>>,
}

type GraphRef = std::rc::Rc<RefCell<crate::runtime::graph::Graph>>;

/// `tf.name_scope` (`name_scope_v2`).
pub static NAME_SCOPE: ClassSpec = ClassSpec {
    name: "name_scope_v2",
    module: "tensorflow.python.framework.ops",
    bases: &[],
    members: &[
        Member::New(name_scope::DEF),
        Member::Getter(scope_name::DEF),
        Member::Method(scope_enter::DEF),
        Member::Method(scope_exit::DEF),
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

/// Enters the scope (what `with` does): the scope's name, `"outer/inner/"`.
#[native("name_scope_v2.__enter__(self)")]
fn scope_enter(vm: &dyn Vm, this: &NameScope) -> PyResult<Value> {
    Ok(this.enter(&Value::None, vm)?.unwrap_or(Value::None))
}

/// Leaves the scope entered last.
#[native("name_scope_v2.__exit__(self, *exc_info)")]
fn scope_exit(vm: &dyn Vm, this: &NameScope, exc_info: &[Value]) -> PyResult<bool> {
    let _ = exc_info;
    this.exit(&Value::None, None, vm)
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
        // inside a trace the ops are named in the graph's scope, made unique
        // among the graph's names as TensorFlow's `Graph.name_scope` does
        let (graph, new) = match crate::runtime::graph::enter_scope(&self.name) {
            Some((g, scope)) => (Some(g), scope),
            None => (None, new),
        };
        self.saved.borrow_mut().push((old, graph));
        Ok(Some(Value::str(new)))
    }

    fn exit(&self, _this: &Value, _exc: Option<&PyErr>, vm: &dyn Vm) -> PyResult<bool> {
        let saved = self.saved.borrow_mut().pop();
        if let Some((old, graph)) = saved {
            *vm.state().get::<Current>().0.borrow_mut() = old;
            if let Some(g) = graph {
                crate::runtime::graph::exit_scope(&g);
            }
        }
        Ok(false)
    }
}
