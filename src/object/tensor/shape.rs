//! `tf.TensorShape`: what `tensor.shape` returns. Dimensions may be unknown
//! (`None`); printing, indexing, `as_list`, `num_elements` and equality with
//! lists and tuples follow TensorFlow.

use crate::object::types::{slice_indices, type_error, value_error};
use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A `tf.TensorShape`, possibly of unknown rank (`TensorShape(None)`).
pub struct TensorShapeObj {
    /// The dims, `None` where unknown; `None` for an unknown rank.
    pub dims: Option<Vec<Option<usize>>>,
}

type Dims = Vec<Option<usize>>;

/// The `tf.TensorShape` class.
pub static TENSOR_SHAPE: ClassSpec = ClassSpec {
    name: "TensorShape",
    module: "tensorflow.python.framework.tensor_shape",
    bases: &[],
    members: &[
        Member::New(shape_new::DEF),
        Member::Method(as_list::DEF),
        Member::Method(num_elements::DEF),
        Member::Method(is_fully_defined::DEF),
        Member::Getter(rank::DEF),
        Member::Getter(ndims::DEF),
        Member::Getter(dims::DEF),
        Member::Method(is_compatible_with::DEF),
        Member::Method(is_subtype_of::DEF),
        Member::Method(merge_with::DEF),
        Member::Method(most_specific_compatible_shape::DEF),
        Member::Method(concatenate::DEF),
        Member::Method(with_rank::DEF),
        Member::Method(with_rank_at_least::DEF),
        Member::Method(assert_is_compatible_with::DEF),
        Member::Method(assert_has_rank::DEF),
        Member::Method(assert_same_rank::DEF),
        Member::Method(assert_is_fully_defined::DEF),
    ],
};

impl NativeClass for TensorShapeObj {
    const SPEC: &'static ClassSpec = &TENSOR_SHAPE;
}

/// A `TensorShape` value of fully known dims.
pub fn shape_value(dims: &[usize]) -> Value {
    Value::native(TensorShapeObj::known(
        dims.iter().map(|&d| Some(d)).collect(),
    ))
}

/// The error for a shape of unknown rank where dist needs a rank: a clear
/// refusal, not a scalar's `()`.
pub fn unknown_rank(what: &str) -> crate::value::PyErr {
    crate::value::PyErr::new(
        crate::value::ExcType::NotImplementedError,
        format!("{what}: shapes of unknown rank are not supported by dist yet"),
    )
    .help("give the rank, with None for each unknown dimension: TensorSpec([None, None], ...)")
}

fn dim_value(d: Option<usize>) -> Value {
    d.map_or(Value::None, |x| Value::Int(x as i64))
}

fn shape_value_of(dims: Option<Dims>) -> Value {
    Value::native(TensorShapeObj { dims })
}

/// `(2, None, 3)` or `<unknown>`, as TensorFlow's messages show a shape.
pub fn shape_text(dims: Option<&[Option<usize>]>) -> String {
    let Some(dims) = dims else {
        return "<unknown>".to_string();
    };
    let parts: Vec<String> = dims
        .iter()
        .map(|d| d.map_or("None".to_string(), |x| x.to_string()))
        .collect();
    match parts.len() {
        1 => format!("({},)", parts[0]),
        _ => format!("({})", parts.join(", ")),
    }
}

/// Whether two shapes (None: an unknown rank) agree wherever both are known.
pub fn compatible(a: Option<&[Option<usize>]>, b: Option<&[Option<usize>]>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| x.is_none() || y.is_none() || x == y)
        }
        _ => true,
    }
}

/// A `TensorShape` argument: a shape, a list or tuple of dims, None (an
/// unknown rank).
pub fn shape_arg(vm: &dyn Vm, v: &Value) -> PyResult<Option<Dims>> {
    match v.downcast::<TensorShapeObj>() {
        Some(s) => Ok(s.dims.clone()),
        None => match shape_new(vm, v)?.downcast::<TensorShapeObj>() {
            Some(s) => Ok(s.dims.clone()),
            None => Ok(None),
        },
    }
}

// The methods had no documentation before the object layer; they keep none.
#[native("TensorShape.as_list(self)", c)]
fn as_list(this: &TensorShapeObj) -> PyResult<Vec<Value>> {
    match &this.dims {
        Some(d) => Ok(d.iter().map(|&d| dim_value(d)).collect()),
        None => Err(value_error(
            "as_list() is not defined on an unknown TensorShape.",
        )),
    }
}

#[native("TensorShape.num_elements(self)", c)]
fn num_elements(this: &TensorShapeObj) -> Option<i64> {
    this.dims
        .as_ref()?
        .iter()
        .try_fold(1i64, |acc, d| d.map(|x| acc.saturating_mul(x as i64)))
}

#[native("TensorShape.is_fully_defined(self)", c)]
fn is_fully_defined(this: &TensorShapeObj) -> bool {
    this.dims
        .as_ref()
        .is_some_and(|d| d.iter().all(Option::is_some))
}

/// The number of dimensions (None: unknown).
#[native("TensorShape.rank(self)")]
fn rank(this: &TensorShapeObj) -> Option<usize> {
    this.dims.as_ref().map(Vec::len)
}

/// The number of dimensions (`rank`).
#[native("TensorShape.ndims(self)")]
fn ndims(this: &TensorShapeObj) -> Option<usize> {
    this.dims.as_ref().map(Vec::len)
}

/// The dimensions, as a list (`None` where unknown; None for an unknown rank).
#[native("TensorShape.dims(self)")]
fn dims(this: &TensorShapeObj) -> Option<Vec<Value>> {
    this.dims
        .as_ref()
        .map(|d| d.iter().map(|&d| dim_value(d)).collect())
}

/// Whether both shapes could describe the same tensor.
#[native("TensorShape.is_compatible_with(self, other)")]
fn is_compatible_with(vm: &dyn Vm, this: &TensorShapeObj, other: &Value) -> PyResult<bool> {
    let other = shape_arg(vm, other)?;
    Ok(compatible(this.dims.as_deref(), other.as_deref()))
}

/// Whether every tensor of this shape has `other`'s shape too.
#[native("TensorShape.is_subtype_of(self, other)")]
fn is_subtype_of(vm: &dyn Vm, this: &TensorShapeObj, other: &Value) -> PyResult<bool> {
    Ok(subtype(
        this.dims.as_deref(),
        shape_arg(vm, other)?.as_deref(),
    ))
}

/// Whether every shape `a` describes `b` describes too (None: an unknown rank).
pub fn subtype(a: Option<&[Option<usize>]>, b: Option<&[Option<usize>]>) -> bool {
    match (a, b) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(a), Some(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| y.is_none() || x == y)
        }
    }
}

pub use crate::runtime::graph::shapes::relaxed;

/// The shape both shapes describe, known wherever either is.
#[native("TensorShape.merge_with(self, other)")]
fn merge_with(vm: &dyn Vm, this: &TensorShapeObj, other: &Value) -> PyResult<Value> {
    let other = shape_arg(vm, other)?;
    if !compatible(this.dims.as_deref(), other.as_deref()) {
        return Err(value_error(format!(
            "Shapes {} and {} are not compatible",
            shape_text(this.dims.as_deref()),
            shape_text(other.as_deref())
        )));
    }
    Ok(shape_value_of(match (&this.dims, other) {
        (None, o) => o,
        (Some(a), None) => Some(a.clone()),
        (Some(a), Some(b)) => Some(a.iter().zip(&b).map(|(x, y)| x.or(*y)).collect()),
    }))
}

/// The most specific shape both shapes are compatible with.
#[native("TensorShape.most_specific_compatible_shape(self, other)")]
fn most_specific_compatible_shape(
    vm: &dyn Vm,
    this: &TensorShapeObj,
    other: &Value,
) -> PyResult<Value> {
    let other = shape_arg(vm, other)?;
    Ok(shape_value_of(relaxed(
        this.dims.as_deref(),
        other.as_deref(),
    )))
}

/// This shape followed by `other`'s dims.
#[native("TensorShape.concatenate(self, other)")]
fn concatenate(vm: &dyn Vm, this: &TensorShapeObj, other: &Value) -> PyResult<Value> {
    Ok(shape_value_of(match (&this.dims, shape_arg(vm, other)?) {
        (Some(a), Some(b)) => Some(a.iter().chain(&b).copied().collect()),
        _ => None,
    }))
}

fn rank_arg(vm: &dyn Vm, v: &Value) -> PyResult<usize> {
    match crate::object::tensor::convert::int_scalar(vm, v)? {
        Some(i) if i >= 0 => Ok(i as usize),
        _ => Err(type_error(format!(
            "rank must be an integer, got {}",
            vm.repr(v)?
        ))),
    }
}

/// This shape, checked to have rank `rank` (an unknown rank gets it).
#[native("TensorShape.with_rank(self, rank)")]
fn with_rank(vm: &dyn Vm, this: &TensorShapeObj, rank: &Value) -> PyResult<Value> {
    let n = rank_arg(vm, rank)?;
    match &this.dims {
        None => Ok(shape_value_of(Some(vec![None; n]))),
        Some(d) if d.len() == n => Ok(shape_value_of(Some(d.clone()))),
        Some(d) => Err(value_error(format!(
            "Shape {} must have rank {n}",
            shape_text(Some(d))
        ))),
    }
}

/// This shape, checked to have rank `rank` or more.
#[native("TensorShape.with_rank_at_least(self, rank)")]
fn with_rank_at_least(vm: &dyn Vm, this: &TensorShapeObj, rank: &Value) -> PyResult<Value> {
    let n = rank_arg(vm, rank)?;
    match &this.dims {
        Some(d) if d.len() < n => Err(value_error(format!(
            "Shape {} must have rank at least {n}",
            shape_text(Some(d))
        ))),
        d => Ok(shape_value_of(d.clone())),
    }
}

/// ValueError unless `other` is compatible with this shape.
#[native("TensorShape.assert_is_compatible_with(self, other)")]
fn assert_is_compatible_with(vm: &dyn Vm, this: &TensorShapeObj, other: &Value) -> PyResult<()> {
    let dims = shape_arg(vm, other)?;
    if compatible(this.dims.as_deref(), dims.as_deref()) {
        return Ok(());
    }
    Err(value_error(format!(
        "Shapes {} and {} are incompatible",
        shape_text(this.dims.as_deref()),
        vm.str(other)?
    )))
}

/// ValueError unless this shape has rank `rank` (or an unknown one).
#[native("TensorShape.assert_has_rank(self, rank)")]
fn assert_has_rank(vm: &dyn Vm, this: &TensorShapeObj, rank: &Value) -> PyResult<()> {
    let n = rank_arg(vm, rank)?;
    match &this.dims {
        Some(d) if d.len() != n => Err(value_error(format!(
            "Shape {} must have rank {n}",
            shape_text(Some(d))
        ))),
        _ => Ok(()),
    }
}

/// ValueError unless both shapes have the same rank (or one is unknown).
#[native("TensorShape.assert_same_rank(self, other)")]
fn assert_same_rank(vm: &dyn Vm, this: &TensorShapeObj, other: &Value) -> PyResult<()> {
    let other = shape_arg(vm, other)?;
    match (&this.dims, &other) {
        (Some(a), Some(b)) if a.len() != b.len() => Err(value_error(format!(
            "Shapes {} and {} must have the same rank",
            shape_text(Some(a)),
            shape_text(Some(b))
        ))),
        _ => Ok(()),
    }
}

/// ValueError unless every dim is known.
#[native("TensorShape.assert_is_fully_defined(self)")]
fn assert_is_fully_defined(this: &TensorShapeObj) -> PyResult<()> {
    if is_fully_defined(this) {
        return Ok(());
    }
    Err(value_error(format!(
        "Shape {} is not fully defined",
        shape_text(this.dims.as_deref())
    )))
}

/// A tensor's shape: `tf.TensorShape([2, 3])`, or `TensorShape(None)` of
/// unknown rank.
#[native("TensorShape(dims)", c_ctor)]
fn shape_new(vm: &dyn Vm, dims: &Value) -> PyResult<Value> {
    let v = dims;
    if matches!(v, Value::None) {
        return Ok(shape_value_of(None));
    }
    if let Some(s) = v.downcast::<TensorShapeObj>() {
        return Ok(shape_value_of(s.dims.clone()));
    }
    let items = match v {
        Value::Int(i) => vec![Value::Int(*i)],
        other => vm.collect(other)?,
    };
    let mut dims = Vec::with_capacity(items.len());
    for x in &items {
        dims.push(match x {
            Value::None => None,
            other => match crate::object::tensor::convert::int_scalar(vm, other)? {
                Some(i) if i >= 0 => Some(i as usize),
                Some(i) => return Err(value_error(format!("Dimension {i} must be >= 0"))),
                None => {
                    return Err(type_error(format!(
                        "Dimension value must be integer or None or have an __index__ method, got value '{}' with type '{}'",
                        vm.repr(other)?,
                        other.type_name()
                    )))
                }
            },
        });
    }
    Ok(shape_value_of(Some(dims)))
}

impl TensorShapeObj {
    /// A shape of known rank.
    pub fn known(dims: Vec<Option<usize>>) -> TensorShapeObj {
        TensorShapeObj { dims: Some(dims) }
    }

    /// The dims of a list, tuple or TensorShape compared against (None when
    /// not comparable; `Some(None)`: a shape of unknown rank).
    fn other_dims(vm: &dyn Vm, other: &Value) -> Option<Option<Dims>> {
        match other {
            Value::Native(_) => other.downcast::<TensorShapeObj>().map(|s| s.dims.clone()),
            Value::List(_) | Value::Tuple(_) => {
                let items = vm.collect(other).ok()?;
                items
                    .iter()
                    .map(|x| match x {
                        Value::None => Some(None),
                        Value::Int(i) if *i >= 0 => Some(Some(*i as usize)),
                        _ => None,
                    })
                    .collect::<Option<Dims>>()
                    .map(Some)
            }
            _ => None,
        }
    }
}

impl NativeObject for TensorShapeObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&TENSOR_SHAPE)
    }

    /// TensorFlow's conversion of a fully known shape: an int32 vector of
    /// its dims (int64 when one does not fit).
    fn to_tensor(&self, _vm: &dyn Vm) -> PyResult<Option<crate::runtime::Tensor>> {
        let known: Option<Vec<usize>> =
            self.dims.as_ref().and_then(|d| d.iter().copied().collect());
        let Some(dims) = known else {
            return Err(crate::value::PyErr::new(
                crate::value::ExcType::ValueError,
                format!(
                    "Cannot convert a partially known TensorShape {} to a Tensor.",
                    shape_text(self.dims.as_deref())
                ),
            ));
        };
        let wide = dims.iter().any(|&d| d >= 1 << 31);
        let t = if wide {
            let v: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
            let n = v.len();
            crate::runtime::Tensor::from_vec(v, &[n])
        } else {
            let v: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
            let n = v.len();
            crate::runtime::Tensor::from_vec(v, &[n])
        };
        Ok(Some(
            t.map_err(crate::object::tensor::convert::runtime_err)?,
        ))
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(match &self.dims {
            None => "TensorShape(None)".to_string(),
            Some(d) => {
                let parts: Vec<String> = d
                    .iter()
                    .map(|d| d.map_or("None".to_string(), |x| x.to_string()))
                    .collect();
                format!("TensorShape([{}])", parts.join(", "))
            }
        })
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(shape_text(self.dims.as_deref()))
    }

    fn truthy(&self, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        Ok(Some(self.dims.is_some()))
    }

    fn binop(
        &self,
        _this: &Value,
        op: crate::syntax::ast::BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        if op != crate::syntax::ast::BinOp::Add {
            return Ok(None);
        }
        let other = shape_arg(vm, other)?;
        let (a, b) = if reflected {
            (other, self.dims.clone())
        } else {
            (self.dims.clone(), other)
        };
        Ok(Some(shape_value_of(match (a, b) {
            (Some(a), Some(b)) => Some(a.into_iter().chain(b).collect()),
            _ => None,
        })))
    }

    fn len(&self, _vm: &dyn Vm) -> PyResult<Option<usize>> {
        match &self.dims {
            Some(d) => Ok(Some(d.len())),
            None => Err(value_error(
                "Cannot take the length of shape with unknown rank.",
            )),
        }
    }

    fn iter(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let Some(d) = &self.dims else {
            return Err(value_error(
                "Cannot iterate over a shape with unknown rank.",
            ));
        };
        let l = Value::list(d.iter().map(|&d| dim_value(d)).collect());
        vm.iter(&l).map(Some)
    }

    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let Some(all) = &self.dims else {
            // an unknown rank: a slice is unknown, a dim is None
            let sliced = key
                .downcast::<crate::object::types::slice::SliceObj>()
                .is_some();
            return Ok(Some(if sliced {
                shape_value_of(None)
            } else {
                Value::None
            }));
        };
        if let Some((start, stop, step)) = slice_indices(key, all.len())? {
            let mut dims = Vec::new();
            let mut i = start;
            while (step > 0 && i < stop) || (step < 0 && i > stop) {
                dims.push(all[i as usize]);
                i += step;
            }
            return Ok(Some(shape_value_of(Some(dims))));
        }
        let Some(i) = crate::object::tensor::convert::int_scalar(vm, key)? else {
            return Err(type_error(format!(
                "list indices must be integers or slices, not {}",
                key.type_name()
            )));
        };
        let n = all.len() as i64;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(PyErr::new(ExcType::IndexError, "list index out of range"));
        }
        Ok(Some(dim_value(all[j as usize])))
    }

    fn equals(&self, _this: &Value, other: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        Ok(Some(
            Self::other_dims(vm, other).is_some_and(|d| d == self.dims),
        ))
    }

    fn hash_as(&self) -> Option<Value> {
        // TensorFlow hashes the tuple of dims (an unknown rank: None)
        Some(match &self.dims {
            Some(d) => Value::tuple(d.iter().map(|&x| dim_value(x)).collect()),
            None => Value::None,
        })
    }
}
