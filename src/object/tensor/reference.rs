//! `tensor.ref()` and `variable.ref()`: TensorFlow's `Reference`, a
//! hashable wrapper that compares and hashes by the identity of what it
//! wraps, so tensors and variables (unhashable themselves) can be dict
//! keys and set members; `deref()` gives the object back.

use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::value::{NativeObject, PyResult, Value, Vm};

/// A reference to a tensor or variable.
pub struct Reference(Value);

/// `tensorflow.python.util.object_identity.Reference`.
pub static REFERENCE: ClassSpec = ClassSpec {
    name: "Reference",
    module: "tensorflow.python.util.object_identity",
    bases: &[],
    members: &[Member::Method(deref::DEF)],
};

impl NativeClass for Reference {
    const SPEC: &'static ClassSpec = &REFERENCE;
}

/// A hashable reference to the object, usable as a dict key or set member;
/// `deref()` returns the object.
#[native("Tensor.ref(self)")]
pub fn tensor_ref(this: &Value) -> Value {
    Value::native(Reference(this.clone()))
}

/// The object this reference wraps.
#[native("Reference.deref(self)")]
fn deref(this: &Reference) -> Value {
    this.0.clone()
}

impl NativeObject for Reference {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&REFERENCE)
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("<Reference wrapping {}>", vm.repr(&self.0)?))
    }

    fn equals(&self, _this: &Value, other: &Value, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        Ok(other
            .downcast::<Reference>()
            .map(|o| o.0.id() == self.0.id()))
    }

    fn hash_as(&self) -> Option<Value> {
        // the wrapped object's identity, as `Reference.__hash__` is `id(obj)`
        Some(Value::Int(self.0.id() as i64))
    }
}
