//! `Dataset.padded_batch`: batches of elements whose components may differ
//! in shape, each padded (at the end of every axis) to the shape that
//! `padded_shapes` gives or, where a dimension is unknown, to the longest
//! in the batch. The node (`Kind::PaddedBatch`) holds a [`Padding`]; its
//! stream is [`PaddedBatchStream`].

use std::rc::Rc;

use super::methods::int_arg;
use super::node::{DatasetObj, Kind};
use super::stream::{check_buffer, shape_text, too_big, Stream, MAX_BUFFERED};
use super::structure::{kernel_error, leaves, Spec};
use crate::object::native;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::runtime::{ops, DType, Scalar, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// How a `padded_batch` node batches.
pub struct Padding {
    /// Elements per batch.
    pub size: usize,
    /// Whether a short last batch is dropped.
    pub drop: bool,
    /// Per component (in flattening order): the padded dims, `None` where
    /// the longest in the batch decides.
    pub shapes: Vec<Vec<Option<usize>>>,
    /// Per component: the scalar padding value.
    pub values: Vec<Scalar>,
    /// The input's element spec (the structure of each batch).
    pub spec: Spec,
}

// `ds.padded_batch(batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None)`.
/// Stacks consecutive elements, padding each component to a common shape.
#[native("DatasetV2.padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None)")]
pub fn padded_batch(
    vm: &dyn Vm,
    this: &Value,
    batch_size: &Value,
    padded_shapes: &Value,
    padding_values: &Value,
    drop_remainder: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let ds = this;
    let Some(d) = super::node::dataset_of(ds) else {
        return Err(PyErr::new(
            ExcType::TypeError,
            "padded_batch() requires a 'DatasetV2' object",
        ));
    };
    d.spec.tensors_only("padded_batch")?;
    let size = int_arg(vm, batch_size, "batch_size")?;
    if size <= 0 {
        return Err(kernel_error(
            "PaddedBatchDatasetV2",
            "PaddedBatchDatasetV2",
            "Batch size must be greater than zero.",
        ));
    }
    let size = size as usize;
    let drop = vm.truthy(drop_remainder)?;
    let mut shapes = Vec::new();
    let mut values = Vec::new();
    let out = walk(
        vm,
        &d.spec,
        padded_shapes,
        padding_values,
        &mut shapes,
        &mut values,
    )?;
    let out_spec = out.batched(if drop { Some(size) } else { None });
    let padding = Padding {
        size,
        drop,
        shapes,
        values,
        spec: d.spec.clone(),
    };
    Ok(DatasetObj::value(
        Kind::PaddedBatch(ds.clone(), Rc::new(padding)),
        out_spec,
    ))
}

/// Walks `spec` with the matching parts of `padded_shapes` and
/// `padding_values` (a single value pads every component), collecting each
/// component's padded shape and value; returns the padded element spec.
fn walk(
    vm: &dyn Vm,
    spec: &Spec,
    shapes: &Value,
    values: &Value,
    out_shapes: &mut Vec<Vec<Option<usize>>>,
    out_values: &mut Vec<Scalar>,
) -> PyResult<Spec> {
    // The parts of `v` for the items of a tuple or dict spec (None: all None;
    // a non-structure value is given to every item when `broadcast`).
    let parts = |v: &Value,
                 keys: Option<&[Value]>,
                 n: usize,
                 broadcast: bool,
                 what: &str|
     -> PyResult<Vec<Value>> {
        match (v, keys) {
            (Value::None, _) => Ok(vec![Value::None; n]),
            (Value::Dict(d), Some(keys)) => keys
                .iter()
                .map(|k| {
                    d.borrow().get(k)?.ok_or_else(|| {
                        PyErr::new(
                            ExcType::ValueError,
                            format!("The two structures don't have the same sequence length. `{what}` lacks the key {}", vm.repr(k).unwrap_or_default()),
                        )
                    })
                })
                .collect(),
            (Value::Tuple(_) | Value::List(_), None) => {
                let items = vm.collect(v)?;
                if items.len() != n {
                    return Err(PyErr::new(
                        ExcType::ValueError,
                        format!("The two structures don't have the same sequence length. Input structure has length {n}, while shallow structure has length {}.", items.len()),
                    ));
                }
                Ok(items)
            }
            (v, _) if broadcast => Ok(vec![v.clone(); n]),
            _ => Err(PyErr::new(
                ExcType::TypeError,
                format!("`{what}` must have the structure of the dataset's elements"),
            )),
        }
    };
    match spec {
        Spec::Tensor { dtype, dims } => {
            let padded = match (shapes, dims) {
                (Value::None, Some(dims)) => dims.clone(),
                (Value::None, None) => {
                    return Err(PyErr::new(
                        ExcType::ValueError,
                        format!("You must provide `padded_shapes` argument because component {} has unknown rank.", out_shapes.len()),
                    ))
                }
                (s, _) => shape_arg(vm, s)?,
            };
            if !crate::object::tensor::shape::compatible(Some(&padded), dims.as_deref()) {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    format!(
                        "The padded shape {} is not compatible with the shape {} of the corresponding input component.",
                        shape_text(&padded),
                        crate::object::tensor::shape::shape_text(dims.as_deref())
                    ),
                ));
            }
            out_values.push(pad_value(vm, values, *dtype)?);
            out_shapes.push(padded.clone());
            Ok(Spec::Tensor {
                dtype: *dtype,
                dims: Some(padded),
            })
        }
        Spec::Tuple(items) => {
            let s = parts(shapes, None, items.len(), false, "padded_shapes")?;
            let v = parts(values, None, items.len(), true, "padding_values")?;
            Ok(Spec::Tuple(
                items
                    .iter()
                    .zip(s.iter().zip(&v))
                    .map(|(spec, (s, v))| walk(vm, spec, s, v, out_shapes, out_values))
                    .collect::<PyResult<_>>()?,
            ))
        }
        Spec::Dict(items) => {
            let keys: Vec<Value> = items.iter().map(|(k, _)| k.clone()).collect();
            let s = parts(shapes, Some(&keys), items.len(), false, "padded_shapes")?;
            let v = parts(values, Some(&keys), items.len(), true, "padding_values")?;
            let mut out = Vec::with_capacity(items.len());
            for ((k, spec), (s, v)) in items.iter().zip(s.iter().zip(&v)) {
                out.push((k.clone(), walk(vm, spec, s, v, out_shapes, out_values)?));
            }
            Ok(Spec::Dict(out))
        }
        Spec::PerReplica(_) | Spec::Dataset(_) => Err(PyErr::new(
            ExcType::NotImplementedError,
            "padded_batch of this element type is not supported in dist",
        )),
    }
}

/// A padded shape: an int (a vector's length), or a sequence of ints where
/// `None` or -1 is unknown.
fn shape_arg(vm: &dyn Vm, v: &Value) -> PyResult<Vec<Option<usize>>> {
    let dim = |d: &Value| -> PyResult<Option<usize>> {
        match d {
            Value::None => Ok(None),
            d => {
                let n = int_arg(vm, d, "padded_shapes")?;
                Ok(if n < 0 { None } else { Some(n as usize) })
            }
        }
    };
    match v {
        Value::Int(_) => Ok(vec![dim(v)?]),
        Value::Tensor(t) if t.rank() == 0 => Ok(vec![dim(v)?]),
        v => vm.collect(v)?.iter().map(dim).collect(),
    }
}

/// One component's padding value: zero (or `b''`) by default; otherwise
/// converted as `tf.convert_to_tensor` does (a Python int is int32), and
/// it must then have the component's dtype, as TensorFlow requires.
fn pad_value(vm: &dyn Vm, v: &Value, dtype: DType) -> PyResult<Scalar> {
    let t = match v {
        Value::None => {
            return Ok(match dtype {
                DType::String => Scalar::Bytes(Vec::new()),
                DType::Bool => Scalar::Bool(false),
                d if d.is_integer() => Scalar::Int(0),
                _ => Scalar::Float(0.0),
            })
        }
        Value::Tensor(t) => t.clone(),
        v => to_tensor(vm, v, None)?,
    };
    if t.rank() != 0 {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "Invalid `padding_values`. `padding_values` values should be scalars, but got {}.",
                shape_text(&t.dims().iter().map(|&d| Some(d)).collect::<Vec<_>>())
            ),
        ));
    }
    if t.dtype() != dtype {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "Invalid `padding_values`. `padding_values` values type <dtype: '{}'> does not match type <dtype: '{}'> of the corresponding input component.",
                t.dtype().name(),
                dtype.name()
            ),
        ));
    }
    t.item().map_err(runtime_err)
}

/// The stream of a `padded_batch` node.
pub struct PaddedBatchStream {
    input: Box<dyn Stream>,
    padding: Rc<Padding>,
}

impl PaddedBatchStream {
    /// Batches `input` as `padding` says.
    pub fn open(input: &Value, padding: &Rc<Padding>) -> PyResult<PaddedBatchStream> {
        check_buffer(input, padding.size, "padded_batch")?;
        Ok(PaddedBatchStream {
            input: super::stream::open(input)?,
            padding: padding.clone(),
        })
    }
}

impl Stream for PaddedBatchStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let p = &*self.padding;
        let mut items = Vec::new();
        while items.len() < p.size {
            match self.input.next(vm)? {
                Some(v) => items.push(leaves(&v)),
                None => break,
            }
            if items.len() >= MAX_BUFFERED {
                return Err(too_big("padded_batch"));
            }
        }
        if items.is_empty() || (p.drop && items.len() < p.size) {
            return Ok(None);
        }
        let n = p.shapes.len();
        let mut out = Vec::with_capacity(n);
        for c in 0..n {
            let parts: Vec<&Tensor> = items.iter().filter_map(|it| it.get(c)).collect();
            let rank = p.shapes[c].len();
            let mut target = Vec::with_capacity(rank);
            for a in 0..rank {
                let longest = parts
                    .iter()
                    .map(|t| t.dims().get(a).copied().unwrap_or(0))
                    .max()
                    .unwrap_or(0);
                target.push(p.shapes[c][a].unwrap_or(longest));
            }
            let mut padded = Vec::with_capacity(parts.len());
            for t in parts {
                if t.rank() != rank {
                    return Err(kernel_error(
                        &format!("IteratorGetNext_output_types_{n}"),
                        "IteratorGetNext",
                        &format!(
                            "All elements in a batch must have the same rank as the padded shape for component{c}: expected rank {rank} but got element with rank {}",
                            t.rank()
                        ),
                    ));
                }
                if t.dims().iter().zip(&target).any(|(d, t)| d > t) {
                    return Err(PyErr::new(
                        ExcType::DataLossError,
                        format!(
                            "{{{{function_node __wrapped__IteratorGetNext_output_types_{n}_device_{}}}}} Attempted to pad to a smaller size than the input element. [Op:IteratorGetNext] name: ",
                            crate::runtime::Device::cpu(0).full_name()
                        ),
                    ));
                }
                padded.push(pad_to(t, &target, &p.values[c])?);
            }
            out.push(Value::Tensor(ops::stack(&padded, 0).map_err(runtime_err)?));
        }
        Ok(Some(p.spec.pack(&mut out.into_iter())))
    }
}

/// `t` padded with `value` at the end of each axis up to `target`.
fn pad_to(t: &Tensor, target: &[usize], value: &Scalar) -> PyResult<Tensor> {
    let mut cur = t.clone();
    for (a, &want) in target.iter().enumerate() {
        let have = cur.dims()[a];
        if have < want {
            let mut fill_dims = cur.dims().to_vec();
            fill_dims[a] = want - have;
            let fill =
                Tensor::fill(&fill_dims, value, cur.dtype(), cur.device()).map_err(runtime_err)?;
            cur = ops::concat(&[cur, fill], a as i64).map_err(runtime_err)?;
        }
    }
    Ok(cur)
}
