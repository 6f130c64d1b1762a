//! The static constructors of `tf.data.Dataset`: `range`, `from_tensors`,
//! `from_tensor_slices`, `from_generator` and `zip`. Each builds a source
//! node with its element spec.

use std::rc::Rc;

use super::methods::{int_arg, scalar_spec};
use super::node::{dataset_of, DatasetObj, Kind};
use super::structure::{leaves, normalize, row, rows, Spec};
use crate::object::native;
use crate::runtime::{DType, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Integers in [start, stop) by step, as int64 (or `output_type`).
#[native("DatasetV2.range(*args, output_type=None, name=None)")]
pub(super) fn range(
    vm: &dyn Vm,
    args: &[Value],
    output_type: Option<&Value>,
    _name: &Value,
) -> PyResult<Value> {
    let a = args;
    let ints = a
        .iter()
        .map(|v| int_arg(vm, v, "range argument"))
        .collect::<PyResult<Vec<_>>>()?;
    let (start, stop, step) = match ints.as_slice() {
        [stop] => (0, *stop, 1),
        [start, stop] => (*start, *stop, 1),
        [start, stop, step] => (*start, *stop, *step),
        _ => {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("Invalid arguments to range: {}", a.len()),
            ))
        }
    };
    if step == 0 {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            "step must be a non-zero integer. [Op:RangeDataset]",
        ));
    }
    let dtype = match output_type {
        None => DType::Int64,
        Some(v) => crate::object::tensor::convert::dtype_arg(vm, v)?,
    };
    Ok(DatasetObj::value(
        Kind::Range {
            start,
            stop,
            step,
            dtype,
        },
        scalar_spec(dtype),
    ))
}

/// A dataset of one element.
#[native("DatasetV2.from_tensors(element, name=None)")]
pub(super) fn from_tensors(vm: &dyn Vm, element: &Value, _name: &Value) -> PyResult<Value> {
    let elem = normalize(vm, element)?;
    let spec = Spec::of(&elem);
    Ok(DatasetObj::value(Kind::Tensors(elem), spec))
}

/// The slices of tensors along the first dimension.
#[native("DatasetV2.from_tensor_slices(tensors, name=None)")]
pub(crate) fn from_tensor_slices(vm: &dyn Vm, tensors: &Value, _name: &Value) -> PyResult<Value> {
    let whole = normalize(vm, tensors)?;
    let spec = Spec::of(&whole);
    let comps = leaves(&whole);
    let mut n: Option<usize> = None;
    for t in &comps {
        let Some(&d0) = t.dims().first() else {
            return Err(PyErr::new(
                ExcType::ValueError,
                "Unbatching a tensor is only supported for rank >= 1",
            ));
        };
        match n {
            Some(m) if m != d0 => {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    format!("Dimensions {m} and {d0} are not compatible"),
                ))
            }
            _ => n = Some(d0),
        }
    }
    let elem_spec = spec.unbatched()?;
    let slices = Slices {
        comps,
        len: n.unwrap_or(0),
        spec: elem_spec.clone(),
        elements: Default::default(),
    };
    Ok(DatasetObj::value(Kind::Slices(Rc::new(slices)), elem_spec))
}

/// The tensors of `from_tensor_slices`. `batch` directly over them cuts
/// each batch's rows at once; a pass element by element cuts every row
/// once, on the first such pass, and later passes (epochs) reuse them.
pub struct Slices {
    comps: Vec<Tensor>,
    len: usize,
    spec: Spec,
    elements: std::cell::OnceCell<Rc<Vec<Value>>>,
}

impl Slices {
    /// The number of elements.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Every element: row `i` of each component, packed like the element spec.
    pub(super) fn elements(&self) -> PyResult<Rc<Vec<Value>>> {
        if let Some(e) = self.elements.get() {
            return Ok(e.clone());
        }
        let all = (0..self.len)
            .map(|i| self.pack(|t| row(t, i)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(self.elements.get_or_init(|| Rc::new(all)).clone())
    }

    /// Elements `lo..hi` stacked into one batch: rows `lo..hi` of each
    /// component, the values `batch` would stack from the elements.
    pub(super) fn batch(&self, lo: usize, hi: usize) -> PyResult<Value> {
        self.pack(|t| rows(t, lo, hi))
    }

    /// One part cut from each component, packed like the element spec.
    fn pack(&self, cut: impl Fn(&Tensor) -> PyResult<Tensor>) -> PyResult<Value> {
        let parts = self
            .comps
            .iter()
            .map(|t| cut(t).map(Value::Tensor))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(self.spec.pack(&mut parts.into_iter()))
    }
}

/// A dataset of the items a Python generator function yields, converted to output_signature.
#[native("DatasetV2.from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None, name=None)")]
pub(super) fn from_generator(
    vm: &dyn Vm,
    generator: &Value,
    output_types: &Value,
    output_shapes: &Value,
    args: &Value,
    output_signature: &Value,
    _name: &Value,
) -> PyResult<Value> {
    if !matches!(
        generator,
        Value::Function(_) | Value::NativeFunction(_) | Value::BoundMethod(_) | Value::Class(_)
    ) && vm.getattr(generator, "__call__").is_err()
    {
        return Err(PyErr::new(
            ExcType::TypeError,
            "`generator` must be a Python callable.",
        ));
    }
    let (types, shapes, signature) = (output_types, output_shapes, output_signature);
    let spec = match (signature, types) {
        (Value::None, Value::None) => {
            return Err(PyErr::new(
                ExcType::TypeError,
                "To specify the output signature you need to provide either the `output_signature` argument or the `output_types` argument.",
            ))
        }
        (sig, Value::None) => spec_of_signature(vm, sig, "output_signature")?,
        (Value::None, types) => spec_of_types(vm, types, shapes)?,
        _ => {
            return Err(PyErr::new(
                ExcType::TypeError,
                "The `output_types` argument can not be used together with the `output_signature` argument.",
            ))
        }
    };
    let call_args = match args {
        Value::None => Vec::new(),
        a => vm.collect(a)?,
    };
    Ok(DatasetObj::value(
        Kind::Generator(generator.clone(), call_args),
        spec,
    ))
}

/// `output_signature` (or another argument, `what`): a structure of
/// `tf.TensorSpec`s.
pub(super) fn spec_of_signature(vm: &dyn Vm, v: &Value, what: &str) -> PyResult<Spec> {
    if let Some(s) = v.downcast::<super::structure::SpecObj>() {
        return Ok(s.0.clone());
    }
    match v {
        Value::Tuple(_) | Value::List(_) => Ok(Spec::Tuple(
            vm.collect(v)?
                .iter()
                .map(|x| spec_of_signature(vm, x, what))
                .collect::<PyResult<_>>()?,
        )),
        Value::Dict(d) => {
            let mut out = Vec::new();
            for (k, x) in d.borrow().items() {
                out.push((k, spec_of_signature(vm, &x, what)?));
            }
            Ok(Spec::Dict(out))
        }
        other => Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "`{what}` must contain objects that are subclass of `tf.TypeSpec` but found {} which is not.",
                vm.repr(&vm.type_of(other))?
            ),
        )),
    }
}

/// `output_types` with `output_shapes` (the structure follows the types; a
/// shape is a leaf).
fn spec_of_types(vm: &dyn Vm, types: &Value, shapes: &Value) -> PyResult<Spec> {
    let part = |i: usize, key: Option<&Value>| -> PyResult<Value> {
        match (shapes, key) {
            (Value::None, _) => Ok(Value::None),
            (Value::Dict(d), Some(k)) => Ok(d.borrow().get(k)?.unwrap_or(Value::None)),
            (Value::Tuple(_) | Value::List(_), None) => {
                Ok(vm.collect(shapes)?.get(i).cloned().unwrap_or(Value::None))
            }
            _ => Err(PyErr::new(
                ExcType::TypeError,
                "`output_shapes` must have the structure of `output_types`",
            )),
        }
    };
    match types {
        Value::Tuple(_) | Value::List(_) => Ok(Spec::Tuple(
            vm.collect(types)?
                .iter()
                .enumerate()
                .map(|(i, t)| spec_of_types(vm, t, &part(i, None)?))
                .collect::<PyResult<_>>()?,
        )),
        Value::Dict(d) => {
            let mut out = Vec::new();
            for (k, t) in d.borrow().items() {
                let s = part(0, Some(&k))?;
                out.push((k, spec_of_types(vm, &t, &s)?));
            }
            Ok(Spec::Dict(out))
        }
        dtype => Ok(Spec::Tensor {
            dtype: super::dtype_of(vm, dtype)?,
            dims: super::spec_dims(vm, shapes)?,
        }),
    }
}

/// A zip node over a (possibly nested) structure of datasets; a bare
/// dataset at the top is zipped alone (its elements unchanged).
fn zip_of(vm: &dyn Vm, v: &Value, top: bool) -> PyResult<Value> {
    let spec_of = |d: &Value| dataset_of(d).map_or(Spec::Tuple(Vec::new()), |d| d.spec.clone());
    if dataset_of(v).is_some() {
        if top {
            return Ok(DatasetObj::value(
                Kind::Zip(vec![v.clone()], true),
                spec_of(v),
            ));
        }
        return Ok(v.clone());
    }
    match v {
        Value::Tuple(items) => {
            let inputs = items
                .iter()
                .map(|x| zip_of(vm, x, false))
                .collect::<PyResult<Vec<_>>>()?;
            let spec = Spec::Tuple(inputs.iter().map(spec_of).collect());
            Ok(DatasetObj::value(Kind::Zip(inputs, false), spec))
        }
        Value::Dict(d) => {
            let mut inputs = Vec::new();
            let mut specs = Vec::new();
            for (k, x) in d.borrow().items() {
                let ds = zip_of(vm, &x, false)?;
                specs.push((k, spec_of(&ds)));
                inputs.push(ds);
            }
            Ok(DatasetObj::value(Kind::Zip(inputs, false), Spec::Dict(specs)))
        }
        Value::List(_) => Err(PyErr::new(
            ExcType::TypeError,
            "Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` objects. Python `list` is not supported and you should use `tuple` instead.",
        )),
        other => Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` objects but encountered object of type {}.",
                vm.repr(&vm.type_of(other))?
            ),
        )),
    }
}

/// Elements of several datasets side by side.
#[native("DatasetV2.zip(*args, datasets=None, name=None)")]
pub(super) fn zip(
    vm: &dyn Vm,
    args: &[Value],
    datasets: Option<&Value>,
    _name: &Value,
) -> PyResult<Value> {
    let (a, given) = (args, datasets);
    match (a.len(), given) {
        (0, None) => Err(PyErr::new(
            ExcType::TypeError,
            "Must pass at least one dataset to `zip`.",
        )),
        (0, Some(d)) => zip_of(vm, d, true),
        (_, Some(_)) => Err(PyErr::new(
            ExcType::TypeError,
            "Both `*args` and `datasets` cannot be set.",
        )),
        (1, None) => zip_of(vm, &a[0], true),
        _ => zip_of(vm, &Value::tuple(a.to_vec()), true),
    }
}
