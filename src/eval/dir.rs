//! Attribute listings: `dir()` of a value as CPython lists it, and the
//! REPL's completion candidates built on it.

use super::Interp;
use crate::value::{Value, Vm};

impl Interp {
    /// Completion candidates for the text before the cursor.
    pub fn complete(&self, prefix: &str) -> Vec<String> {
        let (head, partial) = match prefix.rfind('.') {
            Some(i) => (Some(&prefix[..i]), &prefix[i + 1..]),
            None => (None, prefix),
        };
        let mut names: Vec<String> = match head {
            None => {
                let mut n = self.global_names();
                n.extend(self.builtin_names());
                n
            }
            Some(path) => {
                let mut parts = path.split('.');
                let Some(first) = parts.next().and_then(|p| self.get_global(p)) else {
                    return Vec::new();
                };
                let mut v = first;
                for p in parts {
                    match self.lookup_attribute(&v, p) {
                        Ok(Some(x)) => v = x,
                        _ => return Vec::new(),
                    }
                }
                self.dir_of(&v)
            }
        };
        names.retain(|n| {
            n.starts_with(partial) && (partial.starts_with('_') || !n.starts_with('_'))
        });
        names.sort();
        names.dedup();
        names
    }

    /// Attribute names of a value (for `dir()` and completion), unsorted:
    /// its own (an instance's, a native object's), its class's and its
    /// bases' (a class: its own and its bases'), the methods its builtin
    /// type and `object` provide through slots (`__add__`, `__len__`,
    /// `__repr__` …), and the descriptors every class has (`__class__`,
    /// `__doc__`, `__new__`; `__dict__` and `__weakref__` where a class
    /// statement without `__slots__` made them), as CPython lists them.
    pub fn dir_of(&self, v: &Value) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        match v {
            Value::Instance(i) => out.extend(i.attr_names()),
            Value::Native(n) => out.extend(n.dir()),
            _ => {}
        }
        let cls = match v {
            Value::Class(c) => c.clone(),
            other => self.class_of(other),
        };
        let mro = cls.mro();
        for c in &mro {
            out.extend(c.dict.borrow().keys().map(|k| k.to_string()));
        }
        let owner = match crate::object::types::subclass::builtin_base_of(&cls) {
            Some((_, Some(t))) => t,
            _ => crate::value::ValueType::Object,
        };
        out.extend(crate::object::types::slots::slot_names(owner).map(String::from));
        out.extend(["__class__", "__doc__", "__new__"].map(String::from));
        // The attributes the interpreter keeps for functions and exceptions.
        if owner == crate::value::ValueType::Function {
            out.extend(
                [
                    "__annotations__",
                    "__closure__",
                    "__code__",
                    "__defaults__",
                    "__dict__",
                    "__kwdefaults__",
                    "__module__",
                    "__name__",
                    "__qualname__",
                ]
                .map(String::from),
            );
        }
        if mro
            .iter()
            .any(|c| matches!(c.kind, crate::value::ClassKind::Exception(_)))
        {
            out.extend(
                [
                    "__cause__",
                    "__context__",
                    "__dict__",
                    "__suppress_context__",
                    "__traceback__",
                    "args",
                ]
                .map(String::from),
            );
        }
        // A class's `__slots__` names are its instances' attributes.
        for c in &mro {
            let slots = c.dict.borrow().get("__slots__").cloned();
            match slots {
                Some(Value::Str(s)) => out.push(s.to_string()),
                Some(v @ (Value::Tuple(_) | Value::List(_))) => {
                    if let Ok(items) = self.collect(&v) {
                        out.extend(items.iter().filter_map(|n| match n {
                            Value::Str(s) => Some(s.to_string()),
                            _ => None,
                        }));
                    }
                }
                _ => {}
            }
        }
        let user_class = mro
            .iter()
            .any(|c| matches!(c.kind, crate::value::ClassKind::User));
        if user_class && cls.hooks.get() & crate::value::Class::HOOK_SLOTS == 0 {
            out.extend(["__dict__", "__weakref__"].map(String::from));
        }
        // The stdlib's markers for the interpreter are not attributes to list.
        out.retain(|n| !n.starts_with("__dist_"));
        out
    }
}
