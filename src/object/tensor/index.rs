//! Python subscripts (`t[1, ::2, ..., tf.newaxis]`) as runtime index items,
//! shared by tensors and numpy arrays.

use crate::object::types::{type_error, value_error, SliceObj};
use crate::runtime::ops::IndexItem;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Which library's message a bad index gets.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// TensorFlow's `Only integers, slices …` TypeError.
    Tf,
    /// numpy's `IndexError: only integers, slices …`.
    Numpy,
}

#[cold]
fn bad_index(vm: &dyn Vm, key: &Value, flavor: Flavor) -> PyErr {
    match flavor {
        Flavor::Tf => type_error(format!(
            "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 tensors are valid indices, got {}",
            vm.repr(key).unwrap_or_default()
        )),
        Flavor::Numpy => PyErr::new(
            ExcType::IndexError,
            "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices",
        ),
    }
}

fn slice_part(vm: &dyn Vm, v: &Value, key: &Value, flavor: Flavor) -> PyResult<Option<i64>> {
    match v {
        Value::None => Ok(None),
        other => match crate::object::tensor::convert::int_scalar(vm, other)? {
            Some(i) => Ok(Some(i)),
            None => Err(match flavor {
                Flavor::Tf => bad_index(vm, key, flavor),
                Flavor::Numpy => {
                    type_error("slice indices must be integers or None or have an __index__ method")
                }
            }),
        },
    }
}

fn item(vm: &dyn Vm, v: &Value, flavor: Flavor) -> PyResult<IndexItem> {
    match v {
        Value::None => Ok(IndexItem::NewAxis),
        Value::Int(i) => Ok(IndexItem::Int(*i)),
        Value::Native(_) if v.is(&crate::object::descr::ellipsis()) => Ok(IndexItem::Ellipsis),
        Value::Native(n) => {
            if let Some(s) = n.as_any().downcast_ref::<SliceObj>() {
                let step = slice_part(vm, &s.step, v, flavor)?;
                if step == Some(0) {
                    return Err(value_error("slice step cannot be zero"));
                }
                return Ok(IndexItem::Slice {
                    start: slice_part(vm, &s.start, v, flavor)?,
                    stop: slice_part(vm, &s.stop, v, flavor)?,
                    step,
                });
            }
            match crate::object::tensor::convert::int_scalar(vm, v)? {
                Some(i) => Ok(IndexItem::Int(i)),
                None => Err(bad_index(vm, v, flavor)),
            }
        }
        other => match crate::object::tensor::convert::int_scalar(vm, other)? {
            Some(i) if !matches!(other, Value::Bool(_)) => Ok(IndexItem::Int(i)),
            _ => Err(bad_index(vm, other, flavor)),
        },
    }
}

/// The index items of a subscript key (a tuple, or a list read as one for
/// TensorFlow, or a single item).
pub fn index_items(vm: &dyn Vm, key: &Value, flavor: Flavor) -> PyResult<Vec<IndexItem>> {
    match key {
        Value::Tuple(t) => t.iter().map(|x| item(vm, x, flavor)).collect(),
        Value::List(l) if flavor == Flavor::Tf => {
            l.borrow().iter().map(|x| item(vm, x, flavor)).collect()
        }
        other => Ok(vec![item(vm, other, flavor)?]),
    }
}
