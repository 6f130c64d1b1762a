//! [`NdArray`]: a numpy array or scalar over a runtime tensor. Arrays are
//! mutable (item assignment is copy-on-write on the tensor buffer); scalars
//! (`np.float32(1.5)`, `arr[0]`, `t.numpy()` of a 0-d tensor) are 0-d and
//! immutable. Arithmetic follows numpy's promotion with NEP 50 weak Python
//! scalars; printing is numpy's `legacy="1.25"` style.

use std::cell::RefCell;
use std::rc::Rc;

use super::dtype::{scalar_spec, NpDType};
use crate::object::tensor::convert::runtime_err;
use crate::object::tensor::index::{index_items, Flavor};
use crate::object::types::{type_error, value_error};
use crate::object::{native, ClassSpec, NativeClass};
use crate::runtime::ops::{self, promote_types, weak_scalar_type, ScalarKind};
use crate::runtime::{
    format, BinaryOp, DType, Device, ReduceOp, Scalar, Semantics, Tensor, UnaryOp,
};
use crate::syntax::ast;
use crate::syntax::ast::BinOp;
use crate::syntax::ast::CmpOp;
use crate::value::{NativeObject, PyResult, Value, Vm};

/// A numpy array (or scalar, when `scalar` is set).
pub struct NdArray {
    /// The elements (always in host memory).
    pub t: RefCell<Tensor>,
    /// True for numpy scalars (`np.float32(1.5)`).
    pub scalar: bool,
}

/// The members of `numpy.ndarray`, which numpy's scalar types share:
/// `$extra` (a scalar type's constructor), the methods, the attributes.
macro_rules! ndarray_members {
    ($($extra:expr),* $(,)?) => {{
        use $crate::object::numpy::array as a;
        use $crate::object::numpy::methods as m;
        use $crate::object::Member;
        &[
            $($extra,)*
            Member::Method(a::tolist::DEF),
            Member::Method(a::item::DEF),
            Member::Method(a::astype::DEF),
            Member::Method(a::copy::DEF),
            Member::Method(a::flatten::DEF),
            Member::Method(a::reshape::DEF),
            Member::Method(a::sum::DEF),
            Member::Method(a::mean::DEF),
            Member::Method(a::max::DEF),
            Member::Method(a::min::DEF),
            Member::Method(a::prod::DEF),
            Member::Method(a::any::DEF),
            Member::Method(a::all::DEF),
            Member::Method(a::dunder_array::DEF),
            Member::Getter(a::shape::DEF),
            Member::Getter(a::dtype::DEF),
            Member::Getter(a::ndim::DEF),
            Member::Getter(a::size::DEF),
            Member::Getter(a::transposed::DEF),
            Member::Getter(a::real::DEF),
            Member::Getter(a::imag::DEF),
            Member::Method(a::conj::DEF),
            Member::Method(a::conjugate::DEF),
            Member::Method(m::argmax::DEF),
            Member::Method(m::argmin::DEF),
            Member::Method(m::argsort::DEF),
            Member::Method(m::sort::DEF),
            Member::Method(m::transpose::DEF),
            Member::Method(m::squeeze::DEF),
            Member::Method(m::swapaxes::DEF),
            Member::Method(m::ravel::DEF),
            Member::Method(m::repeat::DEF),
            Member::Method(m::dot::DEF),
            Member::Method(m::nonzero::DEF),
            Member::Method(m::clip::DEF),
            Member::Method(m::round::DEF),
            Member::Method(m::cumsum::DEF),
            Member::Method(m::cumprod::DEF),
            Member::Method(m::var::DEF),
            Member::Method(m::std::DEF),
            Member::Method(m::fill::DEF),
            Member::Getter(m::itemsize::DEF),
            Member::Getter(m::nbytes::DEF),
        ]
    }};
}
pub(crate) use ndarray_members;

/// `numpy.ndarray`.
pub static NDARRAY: ClassSpec = ClassSpec {
    name: "ndarray",
    module: "numpy",
    bases: &[],
    members: ndarray_members!(),
};

impl NativeClass for NdArray {
    const SPEC: &'static ClassSpec = &NDARRAY;
}

/// A numpy value for `t`: a scalar when 0-d (as numpy's ufuncs return).
pub fn wrap(t: Tensor) -> Value {
    let scalar = t.rank() == 0;
    if scalar && t.dtype() == crate::runtime::DType::String {
        // a string element is Python `bytes` (TensorFlow's object arrays
        // hold bytes; numpy's `bytes_` is a subclass of it)
        if let Some(s) = t.get(0) {
            return py_scalar(s);
        }
    }
    Value::native(NdArray {
        t: RefCell::new(t),
        scalar,
    })
}

/// An array value (0-d arrays stay arrays).
pub fn wrap_array(t: Tensor) -> Value {
    Value::native(NdArray {
        t: RefCell::new(t),
        scalar: false,
    })
}

/// The Python value of one element.
pub fn py_scalar(s: Scalar) -> Value {
    match s {
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Int(i) => Value::Int(i),
        Scalar::Float(f) => Value::Float(f),
        Scalar::Complex(re, im) => crate::object::types::complex::Complex::value(re, im),
        Scalar::Bytes(b) => Value::Bytes(Rc::new(b)),
    }
}

fn rt<T>(r: crate::runtime::Result<T>) -> PyResult<T> {
    r.map_err(|e| match e.kind() {
        crate::runtime::ErrorKind::InvalidArgument => value_error(e.message()),
        _ => runtime_err(e),
    })
}

fn tolist_of(t: &Tensor) -> Value {
    if t.rank() == 0 {
        return t.get(0).map_or(Value::None, py_scalar);
    }
    match ops::unstack(t, 0) {
        Ok(parts) => Value::list(parts.iter().map(tolist_of).collect()),
        Err(_) => Value::list(Vec::new()),
    }
}

// The methods had no documentation before the object layer; they keep none.
#[native("ndarray.tolist(self)", c)]
pub(crate) fn tolist(this: &NdArray) -> Value {
    tolist_of(&this.tensor())
}

#[native("ndarray.item(self)", c)]
pub(crate) fn item(this: &NdArray) -> PyResult<Value> {
    rt(this.tensor().item()).map(py_scalar)
}

#[native("ndarray.astype(self, dtype)", c)]
pub(crate) fn astype(vm: &dyn Vm, this: &NdArray, dtype: &Value) -> PyResult<Value> {
    let d = super::dtype::np_dtype_arg(vm, dtype)?;
    let t = rt(ops::cast(&this.tensor(), d))?;
    Ok(if this.scalar { wrap(t) } else { wrap_array(t) })
}

#[native("ndarray.copy(self)", c)]
pub(crate) fn copy(this: &NdArray) -> Value {
    wrap_array(this.tensor())
}

#[native("ndarray.__array__(self)", c)]
pub(crate) fn dunder_array(this: &NdArray) -> Value {
    wrap_array(this.tensor())
}

#[native("ndarray.flatten(self)", c)]
pub(crate) fn flatten(this: &NdArray) -> PyResult<Value> {
    Ok(wrap_array(rt(ops::reshape(
        &this.tensor(),
        &[-1],
        Semantics::Numpy,
    ))?))
}

#[native("ndarray.reshape(self, *shape)", c)]
pub(crate) fn reshape(vm: &dyn Vm, this: &NdArray, shape: &[Value]) -> PyResult<Value> {
    let t = this.tensor();
    let dims = match shape {
        [one] => crate::object::tensor::convert::int_list(vm, one)?,
        many => many
            .iter()
            .map(|v| crate::object::types::int_arg(v, vm))
            .collect::<PyResult<_>>()?,
    };
    Ok(wrap_array(rt(ops::reshape(&t, &dims, Semantics::Numpy))?))
}

/// numpy's reduction of `t` over `axis` (None: all), as a scalar when 0-d.
pub fn reduce(
    vm: &dyn Vm,
    op: ReduceOp,
    t: &Tensor,
    axis: &Value,
    keep: &Value,
) -> PyResult<Value> {
    let axes = crate::object::tensor::convert::axes_arg(vm, axis)?;
    let r = ops::np_reduce(op, t, axes.as_deref(), vm.truthy(keep)?).map_err(runtime_err)?;
    Ok(wrap(r))
}

/// Methods `a.f(axis=None, keepdims=False)` running one reduction.
macro_rules! reduce_methods {
    ($($name:ident $sig:literal => $op:expr;)*) => {$(
        #[native($sig, c)]
        pub(crate) fn $name(
            vm: &dyn Vm,
            this: &NdArray,
            axis: &Value,
            keepdims: &Value,
        ) -> PyResult<Value> {
            reduce(vm, $op, &this.tensor(), axis, keepdims)
        }
    )*};
}

reduce_methods! {
    sum "ndarray.sum(self, axis=None, keepdims=False)" => ReduceOp::Sum;
    mean "ndarray.mean(self, axis=None, keepdims=False)" => ReduceOp::Mean;
    max "ndarray.max(self, axis=None, keepdims=False)" => ReduceOp::Max;
    min "ndarray.min(self, axis=None, keepdims=False)" => ReduceOp::Min;
    prod "ndarray.prod(self, axis=None, keepdims=False)" => ReduceOp::Prod;
    any "ndarray.any(self, axis=None, keepdims=False)" => ReduceOp::Any;
    all "ndarray.all(self, axis=None, keepdims=False)" => ReduceOp::All;
}

/// The dimensions, as a tuple.
#[native("ndarray.shape(self)")]
pub(crate) fn shape(this: &NdArray) -> Value {
    let t = this.t.borrow();
    Value::tuple(t.dims().iter().map(|&d| Value::Int(d as i64)).collect())
}

/// The element type, an `np.dtype`.
#[native("ndarray.dtype(self)")]
pub(crate) fn dtype(this: &NdArray) -> Value {
    Value::native(NpDType(this.t.borrow().dtype()))
}

/// The number of dimensions.
#[native("ndarray.ndim(self)")]
pub(crate) fn ndim(this: &NdArray) -> usize {
    this.t.borrow().rank()
}

/// The number of elements.
#[native("ndarray.size(self)")]
pub(crate) fn size(this: &NdArray) -> usize {
    this.t.borrow().numel()
}

/// The transposed array (`a.T`).
#[native("ndarray.T(self)")]
pub(crate) fn transposed(this: &NdArray) -> PyResult<Value> {
    Ok(wrap_array(rt(ops::transpose(&this.tensor(), None))?))
}

/// The real parts, the imaginary parts (zeros for a real array) or the
/// conjugates (a real array itself) of `t`, as numpy gives them.
pub fn complex_part(t: Tensor, op: crate::runtime::ops::complex::ComplexOp) -> PyResult<Tensor> {
    use crate::runtime::ops::complex::{part, ComplexOp};
    if t.dtype().is_complex() {
        return rt(part(op, &t));
    }
    match op {
        ComplexOp::Imag => rt(Tensor::zeros(t.dtype(), t.dims(), t.device())),
        _ => Ok(t),
    }
}

/// The real parts (`a.real`).
#[native("ndarray.real(self)")]
pub(crate) fn real(this: &NdArray) -> PyResult<Value> {
    let op = crate::runtime::ops::complex::ComplexOp::Real;
    Ok(wrap(complex_part(this.tensor(), op)?))
}

/// The imaginary parts (`a.imag`; zeros for a real array).
#[native("ndarray.imag(self)")]
pub(crate) fn imag(this: &NdArray) -> PyResult<Value> {
    let op = crate::runtime::ops::complex::ComplexOp::Imag;
    Ok(wrap(complex_part(this.tensor(), op)?))
}

/// The complex conjugates.
#[native("ndarray.conj(self)")]
pub(crate) fn conj(this: &NdArray) -> PyResult<Value> {
    let op = crate::runtime::ops::complex::ComplexOp::Conj;
    Ok(wrap(complex_part(this.tensor(), op)?))
}

/// The complex conjugates.
#[native("ndarray.conjugate(self)")]
pub(crate) fn conjugate(this: &NdArray) -> PyResult<Value> {
    conj(this)
}

/// A Python scalar's NEP 50 kind.
fn weak_kind(v: &Value) -> Option<ScalarKind> {
    Some(match v {
        Value::Bool(_) => ScalarKind::Bool,
        Value::Int(i) => ScalarKind::Int(*i),
        Value::Float(_) => ScalarKind::Float,
        Value::Native(_)
            if v.downcast::<crate::object::types::complex::Complex>()
                .is_some() =>
        {
            ScalarKind::Complex
        }
        _ => return None,
    })
}

fn scalar_tensor(v: &Value, d: DType) -> PyResult<Tensor> {
    let s = match v {
        Value::Bool(b) => Scalar::Bool(*b),
        Value::Int(i) => Scalar::Int(*i),
        Value::Float(f) => Scalar::Float(*f),
        _ => match v.downcast::<crate::object::types::complex::Complex>() {
            Some(c) => Scalar::Complex(c.re, c.im),
            None => return Err(type_error("expected a Python number")),
        },
    };
    rt(Tensor::fill(&[], &s, d, Device::CPU0))
}

/// The two operands of a numpy binary op with `x` an array: Python scalars
/// are weak (NEP 50); other values convert as `np.asarray` does. None when
/// `other` is not array-like (or is a tensor, which handles the op itself).
fn operands(vm: &dyn Vm, x: &Tensor, other: &Value) -> PyResult<Option<(Tensor, Tensor)>> {
    if let Some(k) = weak_kind(other) {
        let d = rt(weak_scalar_type(x.dtype(), k))?;
        return Ok(Some((rt(ops::cast(x, d))?, scalar_tensor(other, d)?)));
    }
    Ok(match other {
        Value::Tensor(_) | Value::Instance(_) | Value::None => None,
        Value::Native(n) => n
            .as_any()
            .downcast_ref::<NdArray>()
            .map(|o| (x.clone(), o.t.borrow().clone())),
        Value::List(_) | Value::Tuple(_) => {
            Some((x.clone(), super::to_np_tensor(vm, other, None)?))
        }
        _ => None,
    })
}

fn binop_of(op: BinOp) -> Option<BinaryOp> {
    Some(match op {
        BinOp::Add => BinaryOp::Add,
        BinOp::Sub => BinaryOp::Sub,
        BinOp::Mult => BinaryOp::Mul,
        BinOp::Div => BinaryOp::RealDiv,
        BinOp::FloorDiv => BinaryOp::FloorDiv,
        BinOp::Mod => BinaryOp::FloorMod,
        BinOp::Pow => BinaryOp::Pow,
        _ => return None,
    })
}

/// The ufunc an arithmetic operator is (named in numpy's error messages).
fn ufunc_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "subtract",
        BinOp::Mult => "multiply",
        BinOp::Div => "divide",
        BinOp::FloorDiv => "floor_divide",
        BinOp::Mod => "remainder",
        _ => "power",
    }
}

/// numpy's function of a bitwise operator.
fn bitwise_of(op: BinOp) -> Option<ops::np_math::NpBinary> {
    use ops::np_math::NpBinary;
    Some(match op {
        BinOp::BitAnd => NpBinary::BitwiseAnd,
        BinOp::BitOr => NpBinary::BitwiseOr,
        BinOp::BitXor => NpBinary::BitwiseXor,
        BinOp::LShift => NpBinary::LeftShift,
        BinOp::RShift => NpBinary::RightShift,
        _ => return None,
    })
}

/// The operands of a numpy function of two values: Python scalars beside
/// an array are weak (NEP 50); everything else converts as `np.asarray`.
pub fn nep50_pair(vm: &dyn Vm, a: &Value, b: &Value) -> PyResult<(Tensor, Tensor)> {
    let conv = |v: &Value| super::to_np_tensor(vm, v, None);
    match (weak_kind(a), weak_kind(b)) {
        (None, Some(k)) => {
            let x = conv(a)?;
            let d = rt(weak_scalar_type(x.dtype(), k))?;
            Ok((x, scalar_tensor(b, d)?))
        }
        (Some(k), None) => {
            let y = conv(b)?;
            let d = rt(weak_scalar_type(y.dtype(), k))?;
            Ok((scalar_tensor(a, d)?, y))
        }
        _ => Ok((conv(a)?, conv(b)?)),
    }
}

impl NdArray {
    /// The elements (a cheap handle on the buffer).
    pub fn tensor(&self) -> Tensor {
        self.t.borrow().clone()
    }
}

impl NativeObject for NdArray {
    fn type_name(&self) -> &str {
        if self.scalar {
            "numpy scalar"
        } else {
            "numpy.ndarray"
        }
    }

    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(if self.scalar {
            scalar_spec(self.t.borrow().dtype())
        } else {
            &NDARRAY
        })
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let t = self.t.borrow();
        Ok(if self.scalar {
            t.get(0)
                .map_or_else(String::new, |s| format::numpy_scalar_text(&s, t.dtype()))
        } else {
            format::numpy_repr(&t)
        })
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let t = self.t.borrow();
        Ok(format::numpy_str(&t))
    }

    fn len(&self, _vm: &dyn Vm) -> PyResult<Option<usize>> {
        match self.t.borrow().dims().first() {
            Some(&n) => Ok(Some(n)),
            None => Err(type_error("len() of unsized object")),
        }
    }

    fn iter(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let t = self.tensor();
        if t.rank() == 0 {
            return Err(type_error("iteration over a 0-d array"));
        }
        let parts = rt(ops::unstack(&t, 0))?;
        vm.iter(&Value::list(parts.into_iter().map(wrap).collect()))
            .map(Some)
    }

    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let items = index_items(vm, key, Flavor::Numpy)?;
        let t = self.tensor();
        let r = ops::index(&t, &items, Semantics::Numpy).map_err(runtime_err)?;
        let all_ints = items.iter().all(|i| matches!(i, ops::IndexItem::Int(_)));
        Ok(Some(if all_ints { wrap(r) } else { wrap_array(r) }))
    }

    fn setitem(&self, _this: &Value, key: &Value, value: Value, vm: &dyn Vm) -> PyResult<bool> {
        if self.scalar {
            return Ok(false);
        }
        let items = index_items(vm, key, Flavor::Numpy)?;
        let v = super::to_np_tensor(vm, &value, None)?;
        let mut t = self.t.borrow_mut();
        ops::index_assign(&mut t, &items, &v).map_err(runtime_err)?;
        Ok(true)
    }

    fn truthy(&self, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        let t = self.t.borrow();
        match t.numel() {
            1 => Ok(Some(t.get(0).is_some_and(|s| !s.is_zero()))),
            0 => Ok(Some(false)),
            _ => Err(value_error(
                "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
            )),
        }
    }

    fn binop(
        &self,
        _this: &Value,
        op: BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let x = self.tensor();
        if let Value::Long(n) = other {
            // An int past 64 bits: a float array takes it as a float
            // (NEP 50's weak scalar), any other is numpy's OverflowError.
            if x.dtype().is_floating() {
                let f = Value::Float(crate::object::types::long::to_f64(n)?);
                return self.binop(_this, op, &f, reflected, vm);
            }
            return Err(crate::value::PyErr::new(
                crate::value::ExcType::OverflowError,
                "Python int too large to convert to C long",
            ));
        }
        let Some((a, b)) = operands(vm, &x, other)? else {
            return Ok(None);
        };
        let (a, b) = if reflected { (b, a) } else { (a, b) };
        let r = if op == BinOp::MatMult {
            let d = rt(promote_types(a.dtype(), b.dtype()))?;
            ops::matmul(&rt(ops::cast(&a, d))?, &rt(ops::cast(&b, d))?, false, false)
                .map_err(|e| crate::runtime::Error::value_error(e.message().to_string()))
        } else if let Some(f) = bitwise_of(op) {
            ops::np_math::np_binary_fn(f, &a, &b)
        } else {
            match binop_of(op) {
                Some(bop) => {
                    let r = rt(ops::np_binary(bop, &a, &b))?;
                    // numpy scalars' operators name themselves `scalar …`
                    let scalar =
                        self.scalar && other.downcast::<NdArray>().is_none_or(|o| o.scalar);
                    super::fperr::check(vm, ufunc_name(op), scalar, &[&a, &b], &r)?;
                    Ok(r)
                }
                None => return Ok(None),
            }
        };
        Ok(Some(wrap(rt(r)?)))
    }

    fn unary(&self, _this: &Value, op: ast::UnaryOp, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let x = self.tensor();
        Ok(match op {
            ast::UnaryOp::USub => Some(wrap(rt(ops::unary(UnaryOp::Neg, &x))?)),
            ast::UnaryOp::UAdd => Some(wrap(x)),
            ast::UnaryOp::Invert => Some(wrap(rt(ops::np_math::np_unary(
                ops::np_math::NpUnary::Invert,
                &x,
            ))?)),
            _ => None,
        })
    }

    fn compare(
        &self,
        _this: &Value,
        op: CmpOp,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let bop = match op {
            CmpOp::Eq => BinaryOp::Equal,
            CmpOp::NotEq => BinaryOp::NotEqual,
            CmpOp::Lt => BinaryOp::Less,
            CmpOp::LtE => BinaryOp::LessEqual,
            CmpOp::Gt => BinaryOp::Greater,
            CmpOp::GtE => BinaryOp::GreaterEqual,
            _ => return Ok(None),
        };
        let x = self.tensor();
        let Some((a, b)) = operands(vm, &x, other)? else {
            return Ok(None);
        };
        Ok(Some(wrap(rt(ops::np_binary(bop, &a, &b))?)))
    }

    fn to_number(&self, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let t = self.t.borrow();
        if t.rank() != 0 {
            return Err(type_error(
                "only 0-dimensional arrays can be converted to Python scalars",
            ));
        }
        Ok(t.get(0).map(py_scalar))
    }

    fn to_tensor(&self, _vm: &dyn Vm) -> PyResult<Option<Tensor>> {
        Ok(Some(self.tensor()))
    }
}

/// `format(x, spec)` of a numpy value: 0-d values format their Python
/// number (as numpy's scalar `__format__` does, also for an empty spec);
/// arrays print with an empty spec only.
pub fn format_np(vm: &dyn Vm, v: &Value, spec: &str) -> PyResult<String> {
    let Some(a) = v.downcast::<NdArray>() else {
        return vm.str(v);
    };
    let t = a.tensor();
    if t.rank() == 0 {
        return vm.format(&py_scalar(rt(t.item())?), spec);
    }
    if spec.is_empty() {
        return Ok(format::numpy_str(&t));
    }
    Err(type_error(
        "unsupported format string passed to numpy.ndarray.__format__",
    ))
}
