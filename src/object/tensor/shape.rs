//! `tf.TensorShape`: what `tensor.shape` returns. Dimensions may be unknown
//! (`None`); printing, indexing, `as_list`, `num_elements` and equality with
//! lists and tuples follow TensorFlow.

use crate::object::types::{slice_indices, type_error, value_error};
use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A `tf.TensorShape` of known rank.
pub struct TensorShapeObj {
    /// The dims, `None` where unknown.
    pub dims: Vec<Option<usize>>,
}

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
    ],
};

impl NativeClass for TensorShapeObj {
    const SPEC: &'static ClassSpec = &TENSOR_SHAPE;
}

/// A `TensorShape` value of fully known dims.
pub fn shape_value(dims: &[usize]) -> Value {
    Value::native(TensorShapeObj {
        dims: dims.iter().map(|&d| Some(d)).collect(),
    })
}

/// The error for a shape of unknown rank (`TensorShape(None)`), which dist's
/// shapes cannot describe yet: a clear refusal, not a scalar's `()`.
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

// The methods had no documentation before the object layer; they keep none.
#[native("TensorShape.as_list(self)", c)]
fn as_list(this: &TensorShapeObj) -> Vec<Value> {
    this.dims.iter().map(|&d| dim_value(d)).collect()
}

#[native("TensorShape.num_elements(self)", c)]
fn num_elements(this: &TensorShapeObj) -> Option<i64> {
    this.dims
        .iter()
        .try_fold(1i64, |acc, d| d.map(|x| acc.saturating_mul(x as i64)))
}

#[native("TensorShape.is_fully_defined(self)", c)]
fn is_fully_defined(this: &TensorShapeObj) -> bool {
    this.dims.iter().all(Option::is_some)
}

/// The number of dimensions.
#[native("TensorShape.rank(self)")]
fn rank(this: &TensorShapeObj) -> usize {
    this.dims.len()
}

/// The number of dimensions (`rank`).
#[native("TensorShape.ndims(self)")]
fn ndims(this: &TensorShapeObj) -> usize {
    this.dims.len()
}

/// The dimensions, as a list (`None` where unknown).
#[native("TensorShape.dims(self)")]
fn dims(this: &TensorShapeObj) -> Vec<Value> {
    this.dims.iter().map(|&d| dim_value(d)).collect()
}

/// A tensor's shape: `tf.TensorShape([2, 3])`.
#[native("TensorShape(dims)", c_ctor)]
fn shape_new(vm: &dyn Vm, dims: &Value) -> PyResult<Value> {
    let v = dims;
    if matches!(v, Value::None) {
        return Err(unknown_rank("TensorShape(None)"));
    }
    if let Some(s) = v.downcast::<TensorShapeObj>() {
        return Ok(Value::native(TensorShapeObj {
            dims: s.dims.clone(),
        }));
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
    Ok(Value::native(TensorShapeObj { dims }))
}

impl TensorShapeObj {
    fn text(&self, sep: &str) -> Vec<String> {
        let _ = sep;
        self.dims
            .iter()
            .map(|d| d.map_or("None".to_string(), |x| x.to_string()))
            .collect()
    }

    /// The dims of a list, tuple or TensorShape compared against (None when not comparable).
    fn other_dims(vm: &dyn Vm, other: &Value) -> Option<Vec<Option<usize>>> {
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
                    .collect()
            }
            _ => None,
        }
    }
}

impl NativeObject for TensorShapeObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&TENSOR_SHAPE)
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("TensorShape([{}])", self.text(", ").join(", ")))
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let parts = self.text(", ");
        Ok(match parts.len() {
            1 => format!("({},)", parts[0]),
            _ => format!("({})", parts.join(", ")),
        })
    }

    fn len(&self, _vm: &dyn Vm) -> PyResult<Option<usize>> {
        Ok(Some(self.dims.len()))
    }

    fn iter(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let l = Value::list(self.dims.iter().map(|&d| dim_value(d)).collect());
        vm.iter(&l).map(Some)
    }

    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if let Some((start, stop, step)) = slice_indices(key, self.dims.len())? {
            {
                let mut dims = Vec::new();
                let mut i = start;
                while (step > 0 && i < stop) || (step < 0 && i > stop) {
                    dims.push(self.dims[i as usize]);
                    i += step;
                }
                return Ok(Some(Value::native(TensorShapeObj { dims })));
            }
        }
        let Some(i) = crate::object::tensor::convert::int_scalar(vm, key)? else {
            return Err(type_error(format!(
                "list indices must be integers or slices, not {}",
                key.type_name()
            )));
        };
        let n = self.dims.len() as i64;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(PyErr::new(ExcType::IndexError, "list index out of range"));
        }
        Ok(Some(dim_value(self.dims[j as usize])))
    }

    fn equals(&self, _this: &Value, other: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        Ok(Some(
            Self::other_dims(vm, other).is_some_and(|d| d == self.dims),
        ))
    }
}
