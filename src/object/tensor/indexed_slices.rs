//! `tf.IndexedSlices`: slices of a dense tensor at given rows, the gradient
//! TensorFlow gives for a gather along axis 0 (`runtime::autodiff::slices`
//! makes them during backprop; this file is their Python face). Like
//! TensorFlow's class it holds whatever it was given; where a tensor is
//! needed it converts to the dense tensor (`_indexed_slices_to_tensor`, one
//! `UnsortedSegmentSum`), without TensorFlow's graph-mode size warning, which
//! eager conversions never print.

use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::tensor::shape::TENSOR_SHAPE;
use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::runtime::autodiff::Slices;
use crate::runtime::Tensor;
use crate::syntax::ast;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A `tf.IndexedSlices`.
pub struct IndexedSlicesObj {
    /// The slices (`values`).
    values: Value,
    /// Their rows in the dense tensor (`indices`).
    indices: Value,
    /// The dense tensor's shape, or None.
    dense_shape: Value,
}

/// The `tf.IndexedSlices` class.
pub static INDEXED_SLICES: ClassSpec = ClassSpec {
    name: "IndexedSlices",
    module: "tensorflow.python.framework.indexed_slices",
    bases: &[],
    members: &[
        Member::New(indexed_slices_new::DEF),
        Member::Getter(values::DEF),
        Member::Getter(indices::DEF),
        Member::Getter(dense_shape::DEF),
        Member::Getter(dtype::DEF),
        Member::Getter(device::DEF),
        Member::Getter(name::DEF),
        Member::Getter(shape::DEF),
    ],
};

impl NativeClass for IndexedSlicesObj {
    const SPEC: &'static ClassSpec = &INDEXED_SLICES;
}

/// The Python object for slices backprop made.
pub fn slices_value(s: Slices) -> Value {
    Value::native(IndexedSlicesObj {
        values: Value::Tensor(s.values),
        indices: Value::Tensor(s.indices),
        dense_shape: s.dense_shape.map_or(Value::None, Value::Tensor),
    })
}

/// The slices `v` holds, when it is a `tf.IndexedSlices` (its parts
/// converted to tensors).
pub fn as_slices(vm: &dyn Vm, v: &Value) -> PyResult<Option<Slices>> {
    let Some(s) = v.downcast::<IndexedSlicesObj>() else {
        return Ok(None);
    };
    s.slices(vm).map(Some)
}

/// Whether `v` is a `tf.IndexedSlices`.
pub fn is_indexed_slices(v: &Value) -> bool {
    v.downcast::<IndexedSlicesObj>().is_some()
}

impl IndexedSlicesObj {
    fn slices(&self, vm: &dyn Vm) -> PyResult<Slices> {
        Ok(Slices {
            values: to_tensor(vm, &self.values, None)?,
            indices: to_tensor(vm, &self.indices, None)?,
            dense_shape: if self.dense_shape.is_none() {
                None
            } else {
                Some(to_tensor(vm, &self.dense_shape, None)?)
            },
        })
    }
}

/// `tf.IndexedSlices(values, indices, dense_shape=None)`: slices of a dense
/// tensor; row `indices[i]` of it is `values[i]`.
///
/// ```python
/// s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
/// print(tf.convert_to_tensor(s).numpy().tolist())  # [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]
/// ```
#[native("IndexedSlices.__init__(values, indices, dense_shape=None)")]
fn indexed_slices_new(values: &Value, indices: &Value, dense_shape: &Value) -> Value {
    Value::native(IndexedSlicesObj {
        values: values.clone(),
        indices: indices.clone(),
        dense_shape: dense_shape.clone(),
    })
}

/// A `Tensor` containing the values of the slices.
#[native("IndexedSlices.values(self)")]
fn values(this: &IndexedSlicesObj) -> Value {
    this.values.clone()
}

/// A 1-D `Tensor` containing the indices of the slices.
#[native("IndexedSlices.indices(self)")]
fn indices(this: &IndexedSlicesObj) -> Value {
    this.indices.clone()
}

/// A 1-D `Tensor` containing the shape of the corresponding dense tensor.
#[native("IndexedSlices.dense_shape(self)")]
fn dense_shape(this: &IndexedSlicesObj) -> Value {
    this.dense_shape.clone()
}

/// The `DType` of elements in this tensor.
#[native("IndexedSlices.dtype(self)")]
fn dtype(vm: &dyn Vm, this: &IndexedSlicesObj) -> PyResult<Value> {
    vm.getattr(&this.values, "dtype")
}

/// The name of the device on which `values` will be produced, or `None`.
#[native("IndexedSlices.device(self)")]
fn device(vm: &dyn Vm, this: &IndexedSlicesObj) -> PyResult<Value> {
    vm.getattr(&this.values, "device")
}

/// The name of this `IndexedSlices` (its values' name).
#[native("IndexedSlices.name(self)")]
fn name(vm: &dyn Vm, this: &IndexedSlicesObj) -> PyResult<Value> {
    vm.getattr(&this.values, "name")
}

/// The `tf.TensorShape` of the dense tensor.
#[native("IndexedSlices.shape(self)")]
fn shape(vm: &dyn Vm, this: &IndexedSlicesObj) -> PyResult<Value> {
    let cls = Value::Class(TENSOR_SHAPE.class());
    if this.dense_shape.is_none() {
        return vm.call(&cls, vec![Value::None], Vec::new());
    }
    let t = to_tensor(vm, &this.dense_shape, None)?;
    let dims = t
        .to_device(crate::runtime::Device::cpu(0))
        .map_err(runtime_err)?
        .to_scalars()
        .iter()
        .map(|s| Value::Int(s.as_f64() as i64))
        .collect();
    vm.call(&cls, vec![Value::list(dims)], Vec::new())
}

impl NativeObject for IndexedSlicesObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&INDEXED_SLICES)
    }
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<{}.{} object at {:#x}>",
            INDEXED_SLICES.module,
            INDEXED_SLICES.name,
            this.id()
        ))
    }
    fn str(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        let mut out = format!(
            "IndexedSlices(indices={}, values={}",
            vm.str(&self.indices)?,
            vm.str(&self.values)?
        );
        if !self.dense_shape.is_none() {
            out.push_str(&format!(", dense_shape={}", vm.str(&self.dense_shape)?));
        }
        out.push(')');
        Ok(out)
    }
    fn unary(&self, _this: &Value, op: ast::UnaryOp, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if op != ast::UnaryOp::USub {
            return Ok(None);
        }
        let values = to_tensor(vm, &self.values, None)?;
        let neg = crate::runtime::ops::unary(crate::runtime::op::UnaryOp::Neg, &values)
            .map_err(runtime_err)?;
        Ok(Some(Value::native(IndexedSlicesObj {
            values: Value::Tensor(neg),
            indices: self.indices.clone(),
            dense_shape: self.dense_shape.clone(),
        })))
    }
    fn to_tensor(&self, vm: &dyn Vm) -> PyResult<Option<Tensor>> {
        let s = self.slices(vm)?;
        s.to_dense().map(Some).map_err(runtime_err)
    }
}

/// `tf.cast` of slices: their values cast (TensorFlow's `cast` keeps an
/// `IndexedSlices` one).
pub fn cast_slices(
    vm: &dyn Vm,
    v: &Value,
    dtype: crate::runtime::DType,
) -> PyResult<Option<Value>> {
    let Some(s) = v.downcast::<IndexedSlicesObj>() else {
        return Ok(None);
    };
    let values = to_tensor(vm, &s.values, None)?;
    let cast = crate::runtime::ops::cast(&values, dtype).map_err(runtime_err)?;
    Ok(Some(Value::native(IndexedSlicesObj {
        values: Value::Tensor(cast),
        indices: s.indices.clone(),
        dense_shape: s.dense_shape.clone(),
    })))
}

/// TensorFlow's error for a dense value where slices are required.
pub fn not_slices(vm: &dyn Vm, v: &Value) -> PyResult<PyErr> {
    Ok(PyErr::new(
        ExcType::TypeError,
        format!(
            "Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: {}",
            vm.format(v, "")?
        ),
    ))
}
