//! `Dataset.bucket_by_sequence_length`, built as TensorFlow builds it: a
//! `group_by_window` whose key is the bucket of each element's length,
//! whose window size is the bucket's batch size and whose reduce function
//! pads and batches the window. The three functions are natives bound to
//! the method's arguments.

use super::methods::int_arg;
use super::node::dataset_of;
use super::structure::Spec;
use crate::object::native;
use crate::runtime::Tensor;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Batches elements of similar length together, padded (group_by_window by length bucket).
#[native("DatasetV2.bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False, no_padding=False, drop_remainder=False, name=None)")]
#[expect(clippy::too_many_arguments, reason = "the Python signature has them")]
pub fn bucket_by_sequence_length(
    vm: &dyn Vm,
    this: &Value,
    element_length_func: &Value,
    bucket_boundaries: &Value,
    bucket_batch_sizes: &Value,
    padded_shapes: &Value,
    padding_values: &Value,
    pad_to_bucket_boundary: &Value,
    no_padding: &Value,
    drop_remainder: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let ints = |v: &Value, what: &str| -> PyResult<Vec<i64>> {
        vm.collect(v)?
            .iter()
            .map(|x| int_arg(vm, x, what))
            .collect()
    };
    let boundaries = ints(bucket_boundaries, "bucket_boundaries")?;
    let sizes = ints(bucket_batch_sizes, "bucket_batch_sizes")?;
    if sizes.len() != boundaries.len() + 1 {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but `len(bucket_batch_sizes)={}` and `len(bucket_boundaries)={}`.",
                sizes.len(),
                boundaries.len()
            ),
        ));
    }
    let int_list = |v: &[i64]| Value::tuple(v.iter().map(|&i| Value::Int(i)).collect());
    let key = bucket_id::DEF.function().bind(Value::tuple(vec![
        element_length_func.clone(),
        int_list(&boundaries),
    ]));
    let size = window_size::DEF.function().bind(int_list(&sizes));
    let reduce = batching::DEF.function().bind(Value::tuple(vec![
        int_list(&sizes),
        int_list(&boundaries),
        padded_shapes.clone(),
        padding_values.clone(),
        pad_to_bucket_boundary.clone(),
        no_padding.clone(),
        drop_remainder.clone(),
    ]));
    let method = vm.getattr(this, "group_by_window")?;
    vm.call(
        &method,
        vec![key, reduce],
        vec![("window_size_func".into(), size)],
    )
}

/// The values a function is bound to.
fn bound_values(bound: &Value) -> &[Value] {
    match bound {
        Value::Tuple(t) => t,
        _ => &[],
    }
}

/// The bucket of an element's length.
#[native("element_to_bucket_id(_bound, *args)")]
fn bucket_id(vm: &dyn Vm, bound: &Value, args: &[Value]) -> PyResult<Value> {
    let b = bound_values(bound);
    let (f, boundaries) = (&b[0], vm.collect(&b[1])?);
    let len = vm.call(f, args.to_vec(), Vec::new())?;
    let len = int_arg(vm, &len, "element_length_func result")?;
    let mut lo = i32::MIN as i64;
    for (i, hi) in boundaries
        .iter()
        .map(|x| int_arg(vm, x, "bucket_boundaries"))
        .chain(std::iter::once(Ok(i32::MAX as i64)))
        .enumerate()
    {
        let hi = hi?;
        if lo <= len && len < hi {
            return Ok(Value::Tensor(Tensor::scalar(i as i64)));
        }
        lo = hi;
    }
    Err(PyErr::new(
        ExcType::InvalidArgumentError,
        format!("bucket_by_sequence_length: the length {len} is in no bucket"),
    ))
}

/// The batch size of a bucket.
#[native("window_size_fn(_bound, bucket_id)")]
fn window_size(vm: &dyn Vm, bound: &Value, bucket_id: &Value) -> PyResult<Value> {
    let sizes = vm.collect(bound)?;
    let id = int_arg(vm, bucket_id, "bucket_id")?;
    sizes
        .get(id.max(0) as usize)
        .cloned()
        .map(|v| {
            Value::Tensor(Tensor::scalar(
                int_arg(vm, &v, "bucket_batch_sizes").unwrap_or(0),
            ))
        })
        .ok_or_else(|| PyErr::new(ExcType::InvalidArgumentError, "bucket id out of range"))
}

/// Pads and batches one bucket's window.
#[native("batching_fn(_bound, bucket_id, grouped_dataset)")]
fn batching(
    vm: &dyn Vm,
    bound: &Value,
    bucket_id: &Value,
    grouped_dataset: &Value,
) -> PyResult<Value> {
    let b = bound_values(bound);
    let sizes = vm.collect(&b[0])?;
    let boundaries = vm.collect(&b[1])?;
    let (padded_shapes, padding_values) = (&b[2], &b[3]);
    let (to_boundary, no_padding, drop) = (vm.truthy(&b[4])?, vm.truthy(&b[5])?, b[6].clone());
    let id = int_arg(vm, bucket_id, "bucket_id")?.max(0) as usize;
    let window = grouped_dataset;
    let batch_size = sizes.get(id).cloned().unwrap_or(Value::Int(1));
    if no_padding {
        let batch = vm.getattr(window, "batch")?;
        return vm.call(&batch, vec![batch_size, drop], Vec::new());
    }
    let filler = if to_boundary {
        match boundaries.get(id) {
            Some(bd) => Some(int_arg(vm, bd, "bucket_boundaries")? - 1),
            None => {
                return Err(PyErr::new(
                    ExcType::InvalidArgumentError,
                    "When pad_to_bucket_boundary=True, elements must have length < max(bucket_boundaries).",
                ))
            }
        }
    } else {
        None
    };
    let spec = dataset_of(window).map_or(Spec::Tuple(Vec::new()), |d| d.spec.clone());
    let shapes = shapes_value(vm, &spec, padded_shapes, filler)?;
    let padded = vm.getattr(window, "padded_batch")?;
    vm.call(
        &padded,
        vec![batch_size, shapes, padding_values.clone(), drop],
        Vec::new(),
    )
}

/// The padded shapes (`given`, or the element's shapes) with unknown dims
/// replaced by `filler`, in the structure of `spec`.
fn shapes_value(vm: &dyn Vm, spec: &Spec, given: &Value, filler: Option<i64>) -> PyResult<Value> {
    let fill = |d: Option<i64>| match (d, filler) {
        (Some(d), _) if d >= 0 => Value::Int(d),
        (_, Some(f)) => Value::Int(f),
        _ => Value::None,
    };
    match spec {
        Spec::Tensor { dims, .. } => {
            let dims: Vec<Option<i64>> = match given {
                Value::None => dims.iter().flatten().map(|d| d.map(|d| d as i64)).collect(),
                Value::Int(i) => vec![Some(*i)],
                g => vm
                    .collect(g)?
                    .iter()
                    .map(|d| match d {
                        Value::None => Ok(None),
                        d => int_arg(vm, d, "padded_shapes").map(Some),
                    })
                    .collect::<PyResult<_>>()?,
            };
            Ok(Value::list(dims.into_iter().map(fill).collect()))
        }
        Spec::Tuple(items) => {
            let parts = match given {
                Value::None => vec![Value::None; items.len()],
                g => vm.collect(g)?,
            };
            Ok(Value::tuple(
                items
                    .iter()
                    .zip(parts.iter().chain(std::iter::repeat(&Value::None)))
                    .map(|(s, g)| shapes_value(vm, s, g, filler))
                    .collect::<PyResult<_>>()?,
            ))
        }
        Spec::Dict(items) => {
            let mut out = crate::value::Dict::new();
            for (k, s) in items {
                let g = match given {
                    Value::Dict(d) => d.borrow().get(k)?.unwrap_or(Value::None),
                    _ => Value::None,
                };
                out.insert(k.clone(), shapes_value(vm, s, &g, filler)?)?;
            }
            Ok(Value::dict(out))
        }
        Spec::PerReplica(_) | Spec::Dataset(_) => Err(PyErr::new(
            ExcType::NotImplementedError,
            "bucket_by_sequence_length of this element type is not supported in dist",
        )),
    }
}
