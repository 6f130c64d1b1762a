//! Iterators over datasets: `iter(ds)` (`OwnedIterator`, with `next()`,
//! `get_next()` and `element_spec`) and `ds.as_numpy_iterator()`
//! (`NumpyIterator`, yielding `.numpy()` of each component).

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
    let n = spec.leaves().len();
    PyErr::new(
        ExcType::OutOfRangeError,
        format!(
            "{{{{function_node __wrapped__IteratorGetNext_output_types_{n}_device_{}}}}} End of sequence [Op:IteratorGetNext] name: ",
            device.full_name()
        ),
    )
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
    static NUMPY_NEXT: Rc<NativeFunction> = NativeFunction::new("next(self)", iterator_get_next, "The next element as numpy values.");
}

impl NativeObject for OwnedIterator {
    fn type_name(&self) -> &str {
        "OwnedIterator"
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
