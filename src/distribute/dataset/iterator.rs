//! Iterators over datasets: `iter(ds)` (`OwnedIterator`, with `next()`,
//! `get_next()`, `get_next_as_optional()` and `element_spec`), the Optional
//! that returns, and `ds.as_numpy_iterator()` (`NumpyIterator`, yielding
//! `.numpy()` of each component).

use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

use super::node::dataset_of;
use super::stream::{open, Stream};
use super::structure::Spec;
use crate::value::{Dict, ExcType, NativeFunction, NativeObject, PyErr, PyResult, Value, Vm};

/// `iter(dataset)`.
pub struct OwnedIterator {
    stream: RefCell<Box<dyn Stream>>,
    spec: Spec,
}

/// A new `OwnedIterator` over the dataset value `ds`.
pub fn owned_iterator(_vm: &dyn Vm, ds: &Value) -> PyResult<Value> {
    let spec = dataset_of(ds).map_or(Spec::Tuple(Vec::new()), |d| d.spec.clone());
    Ok(Value::native(OwnedIterator {
        stream: RefCell::new(open(ds)?),
        spec,
    }))
}

/// Pulls from a stream that a user function might be iterating already.
pub fn pull(stream: &RefCell<Box<dyn Stream>>, vm: &dyn Vm) -> PyResult<Option<Value>> {
    let Ok(mut s) = stream.try_borrow_mut() else {
        return Err(PyErr::new(
            ExcType::ValueError,
            "iterator already executing",
        ));
    };
    s.next(vm)
}

/// TensorFlow's error for `get_next()` past the end of an iterator whose
/// elements have `n` components, read on `device`.
#[cold]
pub fn end_of_sequence(spec: &Spec, device: crate::runtime::Device) -> PyErr {
    let n = spec.components();
    PyErr::new(
        ExcType::OutOfRangeError,
        format!(
            "{{{{function_node __wrapped__IteratorGetNext_output_types_{n}_device_{}}}}} End of sequence [Op:IteratorGetNext] name: ",
            device.full_name()
        ),
    )
}

/// What `get_next_as_optional()` returns: the next element, or none at the
/// end (`tf.experimental.Optional`).
pub struct OptionalObj {
    /// The element, if there was one.
    value: Option<Value>,
    /// The element's spec.
    spec: Spec,
    /// How many components an element has (named in the empty error).
    components: usize,
}

/// An Optional of `value` (None: empty) whose elements have type `spec`.
pub fn optional(value: Option<Value>, spec: Spec, components: usize) -> Value {
    Value::native(OptionalObj {
        value,
        spec,
        components,
    })
}

fn optional_has_value(_vm: &dyn Vm, args: &crate::value::Args) -> PyResult<Value> {
    let o = optional_of(args.get(0))?;
    Ok(Value::Tensor(crate::runtime::Tensor::scalar(
        o.value.is_some(),
    )))
}

fn optional_get_value(_vm: &dyn Vm, args: &crate::value::Args) -> PyResult<Value> {
    let o = optional_of(args.get(0))?;
    o.value.clone().ok_or_else(|| {
        PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "{{{{function_node __wrapped__OptionalGetValue_output_types_{}_device_{}}}}} The given optional does not have a value. [Op:OptionalGetValue] name: ",
                o.components,
                crate::runtime::Device::cpu(0).full_name()
            ),
        )
    })
}

fn optional_of(v: &Value) -> PyResult<&OptionalObj> {
    v.downcast::<OptionalObj>()
        .ok_or_else(|| PyErr::new(ExcType::TypeError, "expected an Optional"))
}

impl NativeObject for OptionalObj {
    fn type_name(&self) -> &str {
        "_OptionalImpl"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<tensorflow.python.data.ops.optional_ops._OptionalImpl object at {:#x}>",
            this.id()
        ))
    }

    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "element_spec" => Some(self.spec.to_value()),
            "has_value" => Some(HAS_VALUE.with(|f| f.bind(this.clone()))),
            "get_value" => Some(GET_VALUE.with(|f| f.bind(this.clone()))),
            _ => None,
        })
    }
}

fn iterator_get_next_as_optional(vm: &dyn Vm, args: &crate::value::Args) -> PyResult<Value> {
    let Some(it) = args.get(0).downcast::<OwnedIterator>() else {
        return Err(PyErr::new(ExcType::TypeError, "not an iterator"));
    };
    let value = pull(&it.stream, vm)?;
    Ok(optional(value, it.spec.clone(), it.spec.components()))
}

fn iterator_get_next(vm: &dyn Vm, args: &crate::value::Args) -> PyResult<Value> {
    let this = args.get(0);
    if let Some(it) = this.downcast::<OwnedIterator>() {
        return pull(&it.stream, vm)?
            .ok_or_else(|| end_of_sequence(&it.spec, crate::runtime::Device::cpu(0)));
    }
    if let Some(it) = this.downcast::<NumpyIterator>() {
        return match pull(&it.inner.stream, vm)? {
            Some(v) => to_numpy(vm, &v),
            None => Err(PyErr::new(ExcType::StopIteration, "")),
        };
    }
    Err(PyErr::new(ExcType::TypeError, "not an iterator"))
}

thread_local! {
    static GET_NEXT: Rc<NativeFunction> = NativeFunction::new("get_next(self)", iterator_get_next, "The next element; OutOfRangeError at the end.");
    static GET_NEXT_AS_OPTIONAL: Rc<NativeFunction> = NativeFunction::new("get_next_as_optional(self)", iterator_get_next_as_optional, "The next element as an Optional, empty at the end.");
    static HAS_VALUE: Rc<NativeFunction> = NativeFunction::new("has_value(self, name=None)", optional_has_value, "Whether the Optional holds a value (a bool tensor).");
    static GET_VALUE: Rc<NativeFunction> = NativeFunction::new("get_value(self, name=None)", optional_get_value, "The value; InvalidArgumentError when empty.");
    static NUMPY_NEXT: Rc<NativeFunction> = NativeFunction::new("next(self)", iterator_get_next, "The next element as numpy values.");
}

impl NativeObject for OwnedIterator {
    fn type_name(&self) -> &str {
        "OwnedIterator"
    }

    fn class(&self) -> Option<Rc<crate::value::Class>> {
        Some(crate::distribute::classes::class("OwnedIterator"))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<tensorflow.python.data.ops.iterator_ops.OwnedIterator object at {:#x}>",
            this.id()
        ))
    }

    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "element_spec" => Some(self.spec.to_value()),
            "get_next" => Some(GET_NEXT.with(|f| f.bind(this.clone()))),
            "get_next_as_optional" => Some(GET_NEXT_AS_OPTIONAL.with(|f| f.bind(this.clone()))),
            _ => None,
        })
    }

    fn iter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(this.clone()))
    }

    fn next(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        pull(&self.stream, vm)
    }
}

/// `dataset.as_numpy_iterator()`.
pub struct NumpyIterator {
    inner: OwnedIterator,
    /// The id shown for the inner iterator in the repr.
    inner_id: usize,
}

/// A new `NumpyIterator` over `ds`.
pub fn numpy_iterator(ds: &Value) -> PyResult<Value> {
    let spec = dataset_of(ds).map_or(Spec::Tuple(Vec::new()), |d| d.spec.clone());
    let inner = OwnedIterator {
        stream: RefCell::new(open(ds)?),
        spec,
    };
    let inner_id = &inner as *const OwnedIterator as usize;
    Ok(Value::native(NumpyIterator { inner, inner_id }))
}

/// An element with every tensor replaced by its `.numpy()` value.
pub fn to_numpy(vm: &dyn Vm, v: &Value) -> PyResult<Value> {
    Ok(match v {
        Value::Tensor(_) => {
            let f = vm.getattr(v, "numpy")?;
            vm.call(&f, Vec::new(), Vec::new())?
        }
        Value::Tuple(items) => Value::tuple(
            items
                .iter()
                .map(|x| to_numpy(vm, x))
                .collect::<PyResult<_>>()?,
        ),
        Value::Dict(d) => {
            let mut out = Dict::new();
            for (k, x) in d.borrow().items() {
                out.insert(k, to_numpy(vm, &x)?)?;
            }
            Value::dict(out)
        }
        other => other.clone(),
    })
}

impl NativeObject for NumpyIterator {
    fn type_name(&self) -> &str {
        "NumpyIterator"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "NumpyIterator(iterator=<tensorflow.python.data.ops.iterator_ops.OwnedIterator object at {:#x}>)",
            self.inner_id
        ))
    }

    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "next" => Some(NUMPY_NEXT.with(|f| f.bind(this.clone()))),
            _ => None,
        })
    }

    fn iter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(this.clone()))
    }

    fn next(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        match pull(&self.inner.stream, vm)? {
            Some(v) => to_numpy(vm, &v).map(Some),
            None => Ok(None),
        }
    }
}
