//! TensorFlow's classes of tensors and the interfaces they share with
//! variables and distributed values (`type(t).__mro__`, `isinstance(t,
//! tf.Tensor)`), with TensorFlow's modules. The strategy runtime's classes
//! (`distribute::classes`) build on the interfaces here.

use crate::object::{native, ClassSpec, Member};
use crate::runtime::{ops, Tensor, UnaryOp};
use crate::value::{PyResult, Value, Vm};

use super::convert::placed;

const CORE: &str = "tensorflow.python.types.core";

/// `tensorflow.python.types.internal.NativeObject`.
pub static NATIVE_OBJECT: ClassSpec =
    ClassSpec::plain("NativeObject", "tensorflow.python.types.internal");

/// `tensorflow.python.trackable.base.Trackable`.
pub static TRACKABLE: ClassSpec = ClassSpec::plain("Trackable", "tensorflow.python.trackable.base");

/// `tensorflow.python.framework.composite_tensor.CompositeTensor`.
pub static COMPOSITE_TENSOR: ClassSpec = ClassSpec::plain(
    "CompositeTensor",
    "tensorflow.python.framework.composite_tensor",
);

/// `tensorflow.python.types.core.Tensor`, the interface.
pub static CORE_TENSOR: ClassSpec = ClassSpec::plain("Tensor", CORE);

/// `core.Symbol`: a graph tensor.
pub static CORE_SYMBOL: ClassSpec = ClassSpec {
    name: "Symbol",
    module: CORE,
    bases: &[&CORE_TENSOR],
    members: &[],
};

/// `core.Value`: an eager tensor.
pub static CORE_VALUE: ClassSpec = ClassSpec {
    name: "Value",
    module: CORE,
    bases: &[&CORE_TENSOR],
    members: &[],
};

/// `tf.Tensor`: a `NativeObject` and a `core.Symbol`.
pub static TENSOR: ClassSpec = ClassSpec {
    name: "Tensor",
    module: "tensorflow.python.framework.tensor",
    bases: &[&NATIVE_OBJECT, &CORE_SYMBOL],
    members: &[],
};

/// `_EagerTensorBase`: a `tf.Tensor` that is also a `core.Value`.
pub static EAGER_BASE: ClassSpec = ClassSpec {
    name: "_EagerTensorBase",
    module: "tensorflow.python.framework.ops",
    bases: &[&TENSOR, &CORE_VALUE],
    members: &[],
};

/// `EagerTensor`, the class of `Value::Tensor`.
pub static EAGER_TENSOR: ClassSpec = ClassSpec {
    name: "EagerTensor",
    module: "tensorflow.python.framework.ops",
    bases: &[&EAGER_BASE],
    members: &[
        Member::Method(abs::DEF),
        Member::Method(numpy::DEF),
        Member::Method(get_shape::DEF),
        Member::Method(len::DEF),
        Member::Method(array::DEF),
        Member::Method(super::reference::tensor_ref::DEF),
        Member::Attr("experimental_ref", || {
            super::reference::tensor_ref::DEF.value()
        }),
        Member::Getter(shape::DEF),
        Member::Getter(dtype::DEF),
        Member::Getter(device::DEF),
        Member::Getter(ndim::DEF),
    ],
};

/// The shape, a `tf.TensorShape`.
#[native("EagerTensor.shape(self)")]
pub(super) fn shape(this: &Tensor) -> Value {
    // a traced tensor's static shape may have unknown dims
    if crate::runtime::graph::tracing() {
        if let Some(dims) = crate::runtime::graph::static_dims(this) {
            return Value::native(super::shape::TensorShapeObj { dims });
        }
    }
    super::shape::shape_value(this.dims())
}

/// The element type, a `tf.DType`.
#[native("EagerTensor.dtype(self)")]
pub(super) fn dtype(this: &Tensor) -> Value {
    super::dtype::dtype_value(this.dtype())
}

/// The name of the device holding the tensor.
#[native("EagerTensor.device(self)")]
pub(super) fn device(this: &Tensor) -> String {
    this.device().full_name()
}

/// The number of dimensions.
#[native("EagerTensor.ndim(self)")]
pub(super) fn ndim(this: &Tensor) -> usize {
    this.rank()
}

/// `abs(t)`, element-wise.
#[native("EagerTensor.__abs__(self)", c)]
fn abs(vm: &dyn Vm, this: &Tensor) -> PyResult<Tensor> {
    placed(vm, ops::unary(UnaryOp::Abs, this))
}

/// The value as a numpy array (a numpy scalar for 0-d tensors).
#[native("EagerTensor.numpy(self)", c)]
fn numpy(this: &Tensor) -> PyResult<Value> {
    crate::runtime::autodiff::tape::note_exit(this, ".numpy()");
    crate::object::numpy::from_tensor(this)
}

/// The shape, as `t.shape`.
#[native("EagerTensor.get_shape(self)", c)]
fn get_shape(this: &Tensor) -> Value {
    shape(this)
}

/// The size of the first dimension.
#[native("EagerTensor.__len__(self)", c)]
fn len(vm: &dyn Vm, this: &Value) -> PyResult<usize> {
    super::hooks::tensor_len(vm, this)
}

/// The value as a numpy array.
#[native("EagerTensor.__array__(self, dtype=None)", c)]
fn array(this: &Tensor, _dtype: &Value) -> PyResult<Value> {
    crate::runtime::autodiff::tape::note_exit(this, "np.array()");
    crate::object::numpy::from_tensor(this)
}
