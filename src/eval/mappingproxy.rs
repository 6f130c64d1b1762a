//! `C.__dict__`: a read-only, live view of a class's namespace
//! (`mappingproxy`). Reads go through a dict made from the namespace as it
//! is at that moment, so methods and operators answer as a dict's do;
//! item assignment and deletion are TypeErrors, as in CPython.

use std::rc::Rc;

use crate::object::types::type_error;
use crate::object::ClassSpec;
use crate::syntax::ast::BinOp;
use crate::value::object::Class;
use crate::value::{NativeObject, PyResult, Value, Vm};

/// The `__dict__` of a class.
pub struct MappingProxy(pub Rc<Class>);

impl MappingProxy {
    /// The namespace now, as a dict.
    fn snapshot(&self) -> Value {
        let mut d = crate::value::Dict::new();
        // A builtin type's slot methods (`list.__iter__`) are its own too.
        // (Not yet `object`'s: the native classes, `dict_keys` …, do not
        // say they set `__hash__ = None`, and would look hashable.)
        if let crate::value::ClassKind::Builtin(t) = self.0.kind {
            if t == crate::value::ValueType::Object {
                return self.own_dict(d);
            }
            for name in crate::object::types::slots::own_slot_names(t) {
                if let Some(m) = crate::object::types::slots::slot_method(t, name) {
                    d.set_name(name, m);
                }
            }
            // `__hash__ = None` of the unhashable types.
            if let Some(Value::None) = crate::object::types::slots::slot_method(t, "__hash__") {
                d.set_name("__hash__", Value::None);
            }
        }
        self.own_dict(d)
    }

    /// `d` with the class's own namespace added.
    fn own_dict(&self, mut d: crate::value::Dict) -> Value {
        for (k, x) in self.0.dict.borrow().iter() {
            d.set_name(k, x.clone());
        }
        Value::dict(d)
    }
}

/// The class of a class's `__dict__`.
pub static MAPPINGPROXY: ClassSpec = ClassSpec::plain("mappingproxy", "builtins");

impl NativeObject for MappingProxy {
    fn class(&self) -> Option<std::rc::Rc<crate::value::Class>> {
        // Its attributes are its own (`getattr`), not its class's.
        Some(MAPPINGPROXY.class())
    }

    fn type_name(&self) -> &str {
        "mappingproxy"
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("mappingproxy({})", vm.repr(&self.snapshot())?))
    }

    fn str(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        vm.str(&self.snapshot())
    }

    fn getattr(&self, _this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        match name {
            "get" | "keys" | "values" | "items" | "copy" | "__len__" | "__getitem__"
            | "__contains__" | "__iter__" | "__reversed__" => {
                vm.getattr(&self.snapshot(), name).map(Some)
            }
            _ => Ok(None),
        }
    }

    fn dir(&self) -> Vec<String> {
        ["copy", "get", "items", "keys", "values"]
            .map(String::from)
            .to_vec()
    }

    fn iter(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        vm.iter(&self.snapshot()).map(Some)
    }

    fn len(&self, vm: &dyn Vm) -> PyResult<Option<usize>> {
        vm.len(&self.snapshot()).map(Some)
    }

    fn contains(&self, item: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        vm.contains(&self.snapshot(), item).map(Some)
    }

    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        vm.getitem(&self.snapshot(), key).map(Some)
    }

    fn setitem(&self, _this: &Value, _key: &Value, _value: Value, _vm: &dyn Vm) -> PyResult<bool> {
        Err(type_error(
            "'mappingproxy' object does not support item assignment",
        ))
    }

    fn delitem(&self, _this: &Value, _key: &Value, _vm: &dyn Vm) -> PyResult<bool> {
        Err(type_error(
            "'mappingproxy' object does not support item deletion",
        ))
    }

    fn binop(
        &self,
        _this: &Value,
        op: BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        if op != BinOp::BitOr {
            return Ok(None);
        }
        let me = self.snapshot();
        let r = if reflected {
            vm.binop(op, other, &me)
        } else {
            vm.binop(op, &me, other)
        };
        r.map(Some)
    }

    fn equals(&self, _this: &Value, other: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        let other = match other.downcast::<MappingProxy>() {
            Some(p) => p.snapshot(),
            None => other.clone(),
        };
        vm.eq(&self.snapshot(), &other).map(Some)
    }
}
