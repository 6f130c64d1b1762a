//! Module objects and the builder natives register into
//! (`fn register(m: &mut ModuleBuilder)`); dotted names come from nested
//! namespaces (`tf` → `distribute` → `MirroredStrategy`).

use std::cell::RefCell;
use std::rc::Rc;

use crate::object::ClassSpec;
use crate::value::{NativeObject, PyResult, Value, Vm};

/// A module or namespace object (`tf`, `tf.distribute`, `os.path`, `math`).
pub struct ModuleObj {
    /// The dotted name (`tensorflow.distribute`).
    pub name: Rc<str>,
    /// The attributes.
    pub dict: RefCell<crate::value::Namespace>,
    /// Told of every attribute assignment before it is stored (`sys` follows
    /// an assignment to `sys.stdout`).
    pub on_setattr: Option<SetattrHook>,
}

/// See [`ModuleObj::on_setattr`].
pub type SetattrHook = fn(vm: &dyn Vm, name: &str, value: &Value);

/// The class of module objects.
pub static MODULE: ClassSpec = ClassSpec::plain("module", "builtins");

impl NativeObject for ModuleObj {
    fn class(&self) -> Option<std::rc::Rc<crate::value::Class>> {
        // Its attributes are its own (`getattr`), not its class's.
        Some(MODULE.class())
    }

    fn type_name(&self) -> &str {
        "module"
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("<module '{}'>", self.name))
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        if name == "__name__" {
            return Ok(Some(Value::str(&*self.name)));
        }
        Ok(self.dict.borrow().get(name).cloned())
    }

    fn setattr(&self, _this: &Value, name: &str, value: Value, vm: &dyn Vm) -> PyResult<bool> {
        if let Some(hook) = self.on_setattr {
            hook(vm, name, &value);
        }
        self.dict.borrow_mut().insert(name.into(), value);
        Ok(true)
    }

    fn dir(&self) -> Vec<String> {
        self.dict.borrow().keys().map(|k| k.to_string()).collect()
    }
}

/// Builds a module's namespace.
pub struct ModuleBuilder {
    name: Rc<str>,
    dict: crate::value::Namespace,
    on_setattr: Option<SetattrHook>,
}

impl ModuleBuilder {
    /// A builder for the module with this dotted name.
    pub fn new(name: &str) -> ModuleBuilder {
        ModuleBuilder {
            name: name.into(),
            dict: Default::default(),
            on_setattr: None,
        }
    }

    /// Adds a native defined with `#[native]`, under its signature's name.
    pub fn add(&mut self, def: super::NativeDef) -> &mut Self {
        self.dict.insert(def.name().into(), def.value());
        self
    }

    /// Calls `hook` on every attribute assignment to the module.
    pub fn on_setattr(&mut self, hook: SetattrHook) -> &mut Self {
        self.on_setattr = Some(hook);
        self
    }

    /// Registers any value.
    pub fn value(&mut self, name: &str, v: Value) -> &mut Self {
        self.dict.insert(name.into(), v);
        self
    }

    /// Registers a nested namespace built by `f` (`tf.distribute`).
    pub fn namespace(&mut self, name: &str, f: impl FnOnce(&mut ModuleBuilder)) -> &mut Self {
        let mut sub = ModuleBuilder::new(&format!("{}.{}", self.name, name));
        f(&mut sub);
        self.dict.insert(name.into(), sub.build());
        self
    }

    /// The finished module value.
    pub fn build(self) -> Value {
        Value::native(ModuleObj {
            name: self.name,
            dict: RefCell::new(self.dict),
            on_setattr: self.on_setattr,
        })
    }
}
