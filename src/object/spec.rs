//! Native classes described by static tables: a [`ClassSpec`] names the
//! class, its module, its bases and its members (methods, properties, the
//! constructor, class attributes), and [`class_of_spec`] builds the class
//! object from it once per thread. A native type says which spec is its
//! class through `NativeObject::spec`; attribute lookup on its instances
//! then finds methods and properties on that class as on any class.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::NativeDef;
use crate::value::{Class, ClassKind, Value, ValueType};

/// One member of a native class.
#[derive(Clone, Copy)]
pub enum Member {
    /// A method (`self` first), bound on access through an instance.
    Method(NativeDef),
    /// A method without a receiver (`staticmethod`).
    StaticMethod(NativeDef),
    /// A method that receives the class (`classmethod`, `cls` first).
    ClassMethod(NativeDef),
    /// A read-only attribute computed by `getter(self)`.
    Getter(NativeDef),
    /// A read-write attribute: `get(self)` and `set(self, value)` (the
    /// getter's name is the attribute's).
    Property(NativeDef, NativeDef),
    /// The constructor (`__new__`, its signature without `cls`).
    New(NativeDef),
    /// A class attribute, made when the class is built.
    Attr(&'static str, fn() -> Value),
}

/// A native class: its name, module, bases and members.
pub struct ClassSpec {
    /// `__name__`.
    pub name: &'static str,
    /// `__module__`.
    pub module: &'static str,
    /// The bases (`object` when empty), in order: the MRO is their C3 linearization.
    pub bases: &'static [&'static ClassSpec],
    /// The members.
    pub members: &'static [Member],
}

impl ClassSpec {
    /// A class with no members of its own, deriving from `object`.
    pub const fn plain(name: &'static str, module: &'static str) -> ClassSpec {
        ClassSpec {
            name,
            module,
            bases: &[],
            members: &[],
        }
    }

    /// The class object (see [`class_of_spec`]).
    pub fn class(&'static self) -> Rc<Class> {
        class_of_spec(self)
    }
}

thread_local! {
    /// The classes built so far, by the address of their spec: a cache of
    /// values computed from static data (the same spec gives the same class).
    static CLASSES: RefCell<HashMap<usize, Rc<Class>>> = RefCell::new(HashMap::new());
}

/// The class object `spec` describes, built on first use (bases first).
pub fn class_of_spec(spec: &'static ClassSpec) -> Rc<Class> {
    let key = spec as *const ClassSpec as usize;
    if let Some(c) = CLASSES.with(|m| m.borrow().get(&key).cloned()) {
        return c;
    }
    let bases = if spec.bases.is_empty() {
        vec![super::types::builtin_class(ValueType::Object)]
    } else {
        spec.bases.iter().map(|b| class_of_spec(b)).collect()
    };
    let class = Class::new_builtin_bases(spec.name, spec.module, bases, ClassKind::Native);
    for m in spec.members {
        add_member(&class, m);
    }
    CLASSES.with(|m| m.borrow_mut().insert(key, class.clone()));
    class
}

/// Puts one member into a class's namespace.
pub fn add_member(class: &Class, m: &Member) {
    let (name, value) = match m {
        Member::Method(d) => (d.name(), d.value()),
        Member::StaticMethod(d) => (
            d.name(),
            Value::native(crate::object::descr::StaticMethodObj(d.value())),
        ),
        Member::ClassMethod(d) => (
            d.name(),
            Value::native(crate::object::descr::ClassMethodObj(d.value())),
        ),
        Member::Getter(d) => (
            d.name(),
            Value::native(crate::object::descr::PropertyObj::read_only(
                d.value(),
                d.name(),
            )),
        ),
        Member::Property(get, set) => {
            let mut p = crate::object::descr::PropertyObj::read_only(get.value(), get.name());
            p.fset = Some(set.value());
            (get.name(), Value::native(p))
        }
        Member::New(d) => ("__new__", d.value()),
        Member::Attr(name, make) => (*name, make()),
    };
    class.set_attr(name, value);
}

/// The names `dir()` lists for an instance of `cls`: those defined on it
/// and its bases, without dunders, first definition first.
pub fn public_names(cls: &Rc<Class>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in cls.mro() {
        for k in c.dict.borrow().keys() {
            if !k.starts_with("__") && !out.iter().any(|o| o == &**k) {
                out.push(k.to_string());
            }
        }
    }
    out
}
