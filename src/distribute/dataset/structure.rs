//! Dataset elements and their specs. An element is a nest of tensors: a
//! tensor, a tuple of elements or a dict of elements (Python lists are
//! tensors, as in `tf.data`). A [`Spec`] is the matching nest of
//! `TensorSpec`s, with unknown dimensions as `None`; it prints exactly as
//! TensorFlow's `element_spec` does.

use std::rc::Rc;

use crate::distribute::classes::native_class;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::tensor::shape;
use crate::object::{native, ClassSpec, Member};
use crate::runtime::{ops, DType, Device, Tensor};
use crate::syntax::ast::CmpOp;
use crate::value::{Dict, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A function from one `TensorSpec` leaf (dtype, dims; None: an unknown
/// rank) to its replacement.
pub type LeafFn<'a> = dyn FnMut(DType, Option<&[Option<usize>]>) -> PyResult<Spec> + 'a;

/// A spec's shape: its dims (`None` where unknown), or `None` for an
/// unknown rank (`TensorSpec(shape=None)`).
pub type SpecDims = Option<Vec<Option<usize>>>;

/// The type of a dataset element (`element_spec`).
#[derive(Clone)]
pub enum Spec {
    /// `TensorSpec(shape, dtype)`; `None` dims are unknown.
    Tensor {
        /// Element type.
        dtype: DType,
        /// Dimensions, `None` where unknown; `None` for an unknown rank.
        dims: SpecDims,
    },
    /// A tuple of specs.
    Tuple(Vec<Spec>),
    /// A dict of specs, in the element's key order.
    Dict(Vec<(Value, Spec)>),
    /// `PerReplicaSpec(...)`: one spec per replica (distributed datasets).
    PerReplica(Vec<Spec>),
    /// `DatasetSpec(element_spec, TensorShape([]))`: a dataset as an element
    /// (the windows of `Dataset.window`). A leaf of the element's structure
    /// that holds no tensor: [`leaves`] skips it, so ops that flatten
    /// elements into tensors refuse specs that have one ([`Spec::has_dataset`]).
    Dataset(Box<Spec>),
}

impl PartialEq for Spec {
    fn eq(&self, other: &Spec) -> bool {
        match (self, other) {
            (Spec::Tensor { dtype: a, dims: da }, Spec::Tensor { dtype: b, dims: db }) => {
                a == b && da == db
            }
            (Spec::Tuple(a), Spec::Tuple(b)) | (Spec::PerReplica(a), Spec::PerReplica(b)) => a == b,
            (Spec::Dataset(a), Spec::Dataset(b)) => a == b,
            (Spec::Dict(a), Spec::Dict(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((ka, x), (kb, y))| same_key(ka, kb) && x == y)
            }
            _ => false,
        }
    }
}

impl Spec {
    /// The spec of a tensor with fully known shape.
    pub fn of_tensor(t: &Tensor) -> Spec {
        Spec::Tensor {
            dtype: t.dtype(),
            dims: Some(t.dims().iter().map(|&d| Some(d)).collect()),
        }
    }

    /// The spec of a (normalized) element, with every dimension known.
    pub fn of(v: &Value) -> Spec {
        match v {
            Value::Tensor(t) => Spec::of_tensor(t),
            Value::Tuple(items) => Spec::Tuple(items.iter().map(Spec::of).collect()),
            Value::Dict(d) => Spec::Dict(
                d.borrow()
                    .items()
                    .iter()
                    .map(|(k, x)| (k.clone(), Spec::of(x)))
                    .collect(),
            ),
            other => match other.downcast::<crate::distribute::values::DistValues>() {
                Some(d) => Spec::PerReplica(d.values.iter().map(Spec::of).collect()),
                None => match super::node::dataset_of(other) {
                    Some(d) => Spec::Dataset(Box::new(d.spec.clone())),
                    None => Spec::Tuple(Vec::new()),
                },
            },
        }
    }

    /// Applies `f` to every `TensorSpec` leaf.
    pub fn map_leaves(&self, f: &mut LeafFn<'_>) -> PyResult<Spec> {
        Ok(match self {
            Spec::Tensor { dtype, dims } => f(*dtype, dims.as_deref())?,
            Spec::Tuple(items) => Spec::Tuple(
                items
                    .iter()
                    .map(|s| s.map_leaves(f))
                    .collect::<PyResult<_>>()?,
            ),
            Spec::Dict(items) => Spec::Dict(
                items
                    .iter()
                    .map(|(k, s)| Ok((k.clone(), s.map_leaves(f)?)))
                    .collect::<PyResult<_>>()?,
            ),
            Spec::PerReplica(items) => Spec::PerReplica(
                items
                    .iter()
                    .map(|s| s.map_leaves(f))
                    .collect::<PyResult<_>>()?,
            ),
            Spec::Dataset(_) => self.clone(),
        })
    }

    /// The element specs of the dataset components, in flattening order.
    pub fn leaf_datasets(&self) -> Vec<Spec> {
        match self {
            Spec::Tensor { .. } => Vec::new(),
            Spec::Dataset(inner) => vec![(**inner).clone()],
            Spec::Tuple(items) | Spec::PerReplica(items) => {
                items.iter().flat_map(Spec::leaf_datasets).collect()
            }
            Spec::Dict(items) => items.iter().flat_map(|(_, s)| s.leaf_datasets()).collect(),
        }
    }

    /// How many components (tensors and datasets) an element has.
    pub fn components(&self) -> usize {
        self.leaves().len() + self.leaf_datasets().len()
    }

    /// Whether a component of the element is a dataset (a window).
    pub fn has_dataset(&self) -> bool {
        match self {
            Spec::Tensor { .. } => false,
            Spec::Dataset(_) => true,
            Spec::Tuple(items) | Spec::PerReplica(items) => items.iter().any(Spec::has_dataset),
            Spec::Dict(items) => items.iter().any(|(_, s)| s.has_dataset()),
        }
    }

    /// Refuses a spec with dataset components for `op`, which works on tensors.
    pub fn tensors_only(&self, op: &str) -> PyResult<()> {
        if self.has_dataset() {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                format!("`{op}` of a dataset whose elements are datasets (windows) is not supported in dist"),
            )
            .help("flatten the windows first, e.g. `ds.flat_map(lambda w: w.batch(n))`"));
        }
        Ok(())
    }

    /// The spec with a leading batch dimension on every component (a
    /// component of unknown rank stays one).
    pub fn batched(&self, dim: Option<usize>) -> Spec {
        self.map_leaves(&mut |dtype, dims| {
            let dims = dims.map(|dims| {
                let mut d = vec![dim];
                d.extend_from_slice(dims);
                d
            });
            Ok(Spec::Tensor { dtype, dims })
        })
        .unwrap_or_else(|_| self.clone())
    }

    /// The spec without the leading dimension of every component.
    pub fn unbatched(&self) -> PyResult<Spec> {
        self.map_leaves(&mut |dtype, dims| {
            if dims.is_some_and(<[_]>::is_empty) {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    "Cannot unbatch an input with scalar components.",
                ));
            }
            Ok(Spec::Tensor {
                dtype,
                dims: dims.map(|d| d[1..].to_vec()),
            })
        })
    }

    /// The leaves in flattening order.
    pub fn leaves(&self) -> Vec<(DType, SpecDims)> {
        let mut out = Vec::new();
        let _ = self.map_leaves(&mut |dtype, dims| {
            out.push((dtype, dims.map(<[_]>::to_vec)));
            Ok(Spec::Tuple(Vec::new()))
        });
        out
    }

    /// Whether a component has an unknown rank.
    pub fn has_unknown_rank(&self) -> bool {
        self.leaves().iter().any(|(_, dims)| dims.is_none())
    }

    /// Whether every dimension of every component is known.
    pub fn fully_defined(&self) -> bool {
        self.leaves()
            .iter()
            .all(|(_, dims)| dims.as_ref().is_some_and(|d| d.iter().all(Option::is_some)))
    }

    /// The most specific spec both `self` and `other` satisfy (dims that
    /// differ become unknown); None when the structures or dtypes differ.
    pub fn relax(&self, other: &Spec) -> Option<Spec> {
        Some(match (self, other) {
            (Spec::Tensor { dtype: a, dims: da }, Spec::Tensor { dtype: b, dims: db }) => {
                if a != b {
                    return None;
                }
                Spec::Tensor {
                    dtype: *a,
                    dims: shape::relaxed(da.as_deref(), db.as_deref()),
                }
            }
            (Spec::Tuple(a), Spec::Tuple(b)) if a.len() == b.len() => Spec::Tuple(
                a.iter()
                    .zip(b)
                    .map(|(x, y)| x.relax(y))
                    .collect::<Option<_>>()?,
            ),
            (Spec::Dataset(a), Spec::Dataset(b)) => Spec::Dataset(Box::new(a.relax(b)?)),
            (Spec::Dict(a), Spec::Dict(b)) if a.len() == b.len() => Spec::Dict(
                a.iter()
                    .zip(b)
                    .map(|((ka, x), (kb, y))| {
                        if same_key(ka, kb) {
                            Some((ka.clone(), x.relax(y)?))
                        } else {
                            None
                        }
                    })
                    .collect::<Option<_>>()?,
            ),
            _ => return None,
        })
    }

    /// Rebuilds an element of this structure from its flattened tensors.
    pub fn pack(&self, leaves: &mut dyn Iterator<Item = Value>) -> Value {
        match self {
            Spec::Tensor { .. } | Spec::Dataset(_) => leaves.next().unwrap_or(Value::None),
            Spec::Tuple(items) => Value::tuple(items.iter().map(|s| s.pack(leaves)).collect()),
            Spec::Dict(items) => {
                let mut d = Dict::new();
                for (k, s) in items {
                    let v = s.pack(leaves);
                    let _ = d.insert(k.clone(), v);
                }
                Value::dict(d)
            }
            Spec::PerReplica(items) => Value::tuple(items.iter().map(|s| s.pack(leaves)).collect()),
        }
    }

    /// A zero-filled element of this spec with unknown dims set to `unknown`
    /// (padding for replicas that ran out of data, probes for `map`).
    /// A dataset component is an empty dataset of its element spec.
    pub fn placeholder(&self, unknown: usize, device: Device) -> PyResult<Value> {
        self.placeholder_filled(unknown, device, 0)
    }

    /// Like [`Spec::placeholder`], numbers filled with `fill` (strings stay empty).
    pub fn placeholder_filled(&self, unknown: usize, device: Device, fill: i64) -> PyResult<Value> {
        Ok(match self {
            Spec::Tensor { dtype, dims } => {
                let d: Vec<usize> = match dims {
                    Some(dims) => dims.iter().map(|x| x.unwrap_or(unknown)).collect(),
                    // an unknown rank: a scalar, or (filled) a vector, so
                    // that `map`'s two probes differ in rank too
                    None if fill == 0 => Vec::new(),
                    None => vec![unknown],
                };
                let t = if fill == 0 || *dtype == DType::String {
                    Tensor::zeros(*dtype, &d, device)
                } else {
                    Tensor::fill(&d, &crate::runtime::Scalar::Int(fill), *dtype, device)
                };
                Value::Tensor(t.map_err(runtime_err)?)
            }
            Spec::Tuple(items) | Spec::PerReplica(items) => Value::tuple(
                items
                    .iter()
                    .map(|s| s.placeholder_filled(unknown, device, fill))
                    .collect::<PyResult<_>>()?,
            ),
            Spec::Dict(items) => {
                let mut d = Dict::new();
                for (k, s) in items {
                    d.insert(k.clone(), s.placeholder_filled(unknown, device, fill)?)?;
                }
                Value::dict(d)
            }
            Spec::Dataset(inner) => super::node::DatasetObj::value(
                super::node::Kind::Variant(Rc::new(Vec::new())),
                (**inner).clone(),
            ),
        })
    }

    /// TensorFlow's text: `TensorSpec(shape=(None, 3), dtype=tf.int64, name=None)`.
    pub fn text(&self) -> String {
        match self {
            Spec::Tensor { dtype, dims } => {
                let shape = crate::object::tensor::shape::shape_text(dims.as_deref());
                format!(
                    "TensorSpec(shape={shape}, dtype=tf.{}, name=None)",
                    dtype.name()
                )
            }
            Spec::Tuple(items) if items.len() == 1 => format!("({},)", items[0].text()),
            Spec::Tuple(items) => format!(
                "({})",
                items.iter().map(Spec::text).collect::<Vec<_>>().join(", ")
            ),
            Spec::Dict(items) => format!(
                "{{{}}}",
                items
                    .iter()
                    .map(|(k, s)| format!("{}: {}", key_text(k), s.text()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Spec::Dataset(inner) => format!("DatasetSpec({}, TensorShape([]))", inner.text()),
            Spec::PerReplica(items) => {
                format!(
                    "PerReplicaSpec({})",
                    items.iter().map(Spec::text).collect::<Vec<_>>().join(", ")
                )
            }
        }
    }

    /// The spec as a Python value: tuples and dicts of `TensorSpec` objects.
    pub fn to_value(&self) -> Value {
        match self {
            Spec::Tuple(items) => Value::tuple(items.iter().map(Spec::to_value).collect()),
            Spec::Dict(items) => {
                let mut d = Dict::new();
                for (k, s) in items {
                    let _ = d.insert(k.clone(), s.to_value());
                }
                Value::dict(d)
            }
            other => Value::native(SpecObj(other.clone(), None)),
        }
    }
}

fn key_text(k: &Value) -> String {
    match k {
        Value::Str(s) => crate::value::format::str_repr(s),
        Value::Int(i) => i.to_string(),
        _ => "?".to_string(),
    }
}

fn same_key(a: &Value, b: &Value) -> bool {
    crate::value::dict::key_eq(a, b)
}

/// A `TensorSpec` (or `PerReplicaSpec`) object as scripts see it, with the
/// name `tf.TensorSpec(..., name=)` gave it.
pub struct SpecObj(pub Spec, pub Option<Rc<str>>);

/// `tf.TensorSpec`: a class, so that `isinstance(ds.element_spec, tf.TensorSpec)` holds.
pub static TENSOR_SPEC: ClassSpec = ClassSpec {
    name: "TensorSpec",
    module: "tensorflow.python.framework.tensor",
    bases: &[],
    members: &[
        Member::New(tensor_spec::DEF),
        Member::Getter(spec_name::DEF),
        Member::Getter(spec_dtype::DEF),
        Member::Getter(spec_shape::DEF),
        Member::StaticMethod(spec_from_tensor::DEF),
        Member::StaticMethod(spec_from_spec::DEF),
        Member::Method(spec_is_compatible_with::DEF),
        Member::Method(spec_is_subtype_of::DEF),
        Member::Method(spec_common_supertype::DEF),
    ],
};

native_class!(SpecObj: TENSOR_SPEC);

/// The type of a tensor: shape (None for unknown dims) and dtype.
#[native("TensorSpec.__new__(shape, dtype=None, name=None)")]
fn tensor_spec(vm: &dyn Vm, shape: &Value, dtype: &Value, name: &Value) -> PyResult<Value> {
    let dtype = super::dtype_of(vm, dtype)?;
    let dims = super::spec_dims(vm, shape)?;
    let name = spec_name_arg(vm, name)?;
    Ok(Value::native(SpecObj(Spec::Tensor { dtype, dims }, name)))
}

fn spec_name_arg(vm: &dyn Vm, name: &Value) -> PyResult<Option<Rc<str>>> {
    Ok(match name {
        Value::None => None,
        n => Some(Rc::from(vm.str(n)?.as_str())),
    })
}

/// The spec of a tensor (TensorFlow refuses anything else, variables too).
#[native("from_tensor(tensor, name=None)")]
fn spec_from_tensor(vm: &dyn Vm, tensor: &Value, name: &Value) -> PyResult<Value> {
    let Value::Tensor(t) = tensor else {
        let ty = vm.repr(&vm.type_of(tensor))?;
        return Err(PyErr::new(
            ExcType::ValueError,
            format!("`tensor` should be a tf.Tensor, but got type {ty}."),
        ));
    };
    let dims = Some(t.dims().iter().map(|&d| Some(d)).collect());
    Ok(Value::native(SpecObj(
        Spec::Tensor {
            dtype: t.dtype(),
            dims,
        },
        spec_name_arg(vm, name)?,
    )))
}

/// A spec with the shape and dtype of `spec`, named `name` (or as `spec` is).
#[native("from_spec(spec, name=None)")]
fn spec_from_spec(vm: &dyn Vm, spec: &SpecObj, name: &Value) -> PyResult<Value> {
    let name = spec_name_arg(vm, name)?.or_else(|| spec.1.clone());
    Ok(Value::native(SpecObj(spec.0.clone(), name)))
}

/// A tensor's dtype and shape, or a tensor spec's.
fn dtype_dims(v: &Value) -> Option<(crate::runtime::DType, SpecDims)> {
    match v {
        Value::Tensor(t) => Some((t.dtype(), Some(t.dims().iter().map(|&d| Some(d)).collect()))),
        v => match v.downcast::<SpecObj>() {
            Some(SpecObj(Spec::Tensor { dtype, dims }, _)) => Some((*dtype, dims.clone())),
            _ => None,
        },
    }
}

/// Whether a tensor or spec could be described by this spec: the same
/// dtype, and shapes that agree wherever both are known (False for any
/// other value).
#[native("TensorSpec.is_compatible_with(self, spec_or_tensor)")]
fn spec_is_compatible_with(this: &SpecObj, spec_or_tensor: &Value) -> bool {
    let (Spec::Tensor { dtype, dims }, Some((d2, dims2))) = (&this.0, dtype_dims(spec_or_tensor))
    else {
        return false;
    };
    *dtype == d2 && shape::compatible(dims.as_deref(), dims2.as_deref())
}

/// Whether every tensor this spec describes `other` describes too (the same
/// name and dtype; each of `other`'s dims unknown or equal).
#[native("TensorSpec.is_subtype_of(self, other)")]
fn spec_is_subtype_of(this: &SpecObj, other: &Value) -> bool {
    let Some(o) = other.downcast::<SpecObj>() else {
        return false;
    };
    match (&this.0, &o.0) {
        (
            Spec::Tensor { dtype, dims },
            Spec::Tensor {
                dtype: d2,
                dims: dims2,
            },
        ) => this.1 == o.1 && dtype == d2 && shape::subtype(dims.as_deref(), dims2.as_deref()),
        _ => false,
    }
}

/// The most specific spec that all of these are subtypes of (None where
/// the names or dtypes differ).
#[native("TensorSpec.most_specific_common_supertype(self, others)")]
fn spec_common_supertype(vm: &dyn Vm, this: &SpecObj, others: &Value) -> PyResult<Value> {
    let Spec::Tensor { dtype, dims } = &this.0 else {
        return Ok(Value::None);
    };
    let mut dims = dims.clone();
    for other in vm.collect(others)? {
        let Some(o) = other.downcast::<SpecObj>() else {
            return Ok(Value::None);
        };
        let Spec::Tensor {
            dtype: d2,
            dims: dims2,
        } = &o.0
        else {
            return Ok(Value::None);
        };
        if o.1 != this.1 || d2 != dtype {
            return Ok(Value::None);
        }
        dims = shape::relaxed(dims.as_deref(), dims2.as_deref());
    }
    Ok(Value::native(SpecObj(
        Spec::Tensor {
            dtype: *dtype,
            dims,
        },
        this.1.clone(),
    )))
}

/// The name `tf.TensorSpec(..., name=)` gave (or None).
#[native("TensorSpec.name(self)")]
fn spec_name(this: &SpecObj) -> Value {
    this.1.as_deref().map_or(Value::None, Value::str)
}

/// The dtype of the tensor.
#[native("TensorSpec.dtype(self)")]
fn spec_dtype(this: &SpecObj) -> Value {
    match this.0 {
        Spec::Tensor { dtype, .. } => crate::object::tensor::dtype::dtype_value(dtype),
        _ => Value::None,
    }
}

/// The shape of the tensor, a `tf.TensorShape` (None for an unknown dim).
#[native("TensorSpec.shape(self)")]
fn spec_shape(this: &SpecObj) -> Value {
    match &this.0 {
        Spec::Tensor { dims, .. } => Value::native(shape::TensorShapeObj { dims: dims.clone() }),
        _ => Value::None,
    }
}

impl NativeObject for SpecObj {
    fn type_name(&self) -> &str {
        match self.0 {
            Spec::PerReplica(_) => "PerReplicaSpec",
            Spec::Dataset(_) => "DatasetSpec",
            _ => "TensorSpec",
        }
    }

    fn spec(&self) -> Option<&'static ClassSpec> {
        match self.0 {
            Spec::Tensor { .. } => Some(&TENSOR_SPEC),
            _ => None,
        }
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let text = self.0.text();
        Ok(match (&self.1, text.strip_suffix("name=None)")) {
            (Some(n), Some(head)) => {
                format!("{head}name={})", crate::value::format::str_repr(n))
            }
            _ => text,
        })
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        // A `PerReplicaSpec` or `DatasetSpec` has no class of its own here
        // (a `TensorSpec`'s properties are its class's).
        Ok(match name {
            "name" => Some(self.1.as_deref().map_or(Value::None, Value::str)),
            _ => None,
        })
    }

    fn compare(
        &self,
        _this: &Value,
        op: CmpOp,
        other: &Value,
        _vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let Some(o) = other.downcast::<SpecObj>() else {
            return Ok(None);
        };
        Ok(match op {
            CmpOp::Eq => Some(Value::Bool(self.0 == o.0 && self.1 == o.1)),
            CmpOp::NotEq => Some(Value::Bool(self.0 != o.0 || self.1 != o.1)),
            _ => None,
        })
    }
}

/// Converts a Python value into a dataset element: tuples and dicts stay
/// structure, everything else (lists included) becomes one tensor.
pub fn normalize(vm: &dyn Vm, v: &Value) -> PyResult<Value> {
    Ok(match v {
        Value::Tensor(_) => v.clone(),
        // a dataset inside an element stays a dataset, seen as TensorFlow
        // shows one that went through a variant tensor
        v if super::node::dataset_of(v).is_some() => {
            use super::node::{dataset_of, DatasetObj, Kind};
            match dataset_of(v) {
                Some(DatasetObj {
                    kind: Kind::Variant(_) | Kind::Nested(_),
                    ..
                })
                | None => v.clone(),
                Some(d) => DatasetObj::value(Kind::Nested(v.clone()), d.spec.clone()),
            }
        }
        Value::Tuple(items) => Value::tuple(
            items
                .iter()
                .map(|x| normalize(vm, x))
                .collect::<PyResult<_>>()?,
        ),
        Value::Dict(d) => {
            let mut out = Dict::new();
            for (k, x) in d.borrow().items() {
                out.insert(k, normalize(vm, &x)?)?;
            }
            Value::dict(out)
        }
        Value::List(items) if items.borrow().iter().any(|x| matches!(x, Value::Tensor(_))) => {
            // A list holding tensors: stacked, as `tf.convert_to_tensor` does.
            let items = items.borrow().clone();
            let ts = items
                .iter()
                .map(|x| to_tensor(vm, x, None))
                .collect::<PyResult<Vec<_>>>()?;
            Value::Tensor(ops::stack(&ts, 0).map_err(runtime_err)?)
        }
        other => Value::Tensor(to_tensor(vm, other, None)?),
    })
}

/// The tensors of an element, in flattening order.
pub fn flatten(v: &Value, out: &mut Vec<Tensor>) {
    match v {
        Value::Tensor(t) => out.push(t.clone()),
        Value::Tuple(items) => items.iter().for_each(|x| flatten(x, out)),
        Value::Dict(d) => d.borrow().items().iter().for_each(|(_, x)| flatten(x, out)),
        _ => {}
    }
}

/// The tensors of an element as a vector.
pub fn leaves(v: &Value) -> Vec<Tensor> {
    let mut out = Vec::new();
    flatten(v, &mut out);
    out
}

/// Stacks elements into one batch element (`Dataset.batch`), with
/// TensorFlow's error for components whose shapes differ.
pub fn stack_elements(spec: &Spec, elems: &[Value]) -> PyResult<Value> {
    let flat: Vec<Vec<Tensor>> = elems.iter().map(leaves).collect();
    let n = flat.first().map_or(0, Vec::len);
    let mut out = Vec::with_capacity(n);
    for c in 0..n {
        let parts: Vec<Tensor> = flat.iter().map(|f| f[c].clone()).collect();
        for p in parts.iter().skip(1) {
            if p.dims() != parts[0].dims() {
                let msg = format!(
                    "Cannot add tensor to the batch: number of elements does not match. Shapes are: [tensor]: {}, [batch]: {}",
                    bracket(parts[0].dims()),
                    bracket(p.dims())
                );
                return Err(kernel_error(
                    &format!("IteratorGetNext_output_types_{n}"),
                    "IteratorGetNext",
                    &msg,
                ));
            }
        }
        out.push(Value::Tensor(ops::stack(&parts, 0).map_err(runtime_err)?));
    }
    Ok(spec.pack(&mut out.into_iter()))
}

/// An error as TensorFlow's dataset kernels raise it (on `CPU:0`).
#[cold]
pub fn kernel_error(node: &str, op: &str, msg: &str) -> PyErr {
    runtime_err(crate::runtime::Error::kernel(
        crate::runtime::ErrorKind::InvalidArgument,
        node,
        &Device::cpu(0),
        msg,
        op,
        " name: ",
    ))
}

fn bracket(dims: &[usize]) -> String {
    format!(
        "[{}]",
        dims.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// Rows `lo..hi` of one tensor.
pub fn rows(t: &Tensor, lo: usize, hi: usize) -> PyResult<Tensor> {
    let item = ops::IndexItem::Slice {
        start: Some(lo as i64),
        stop: Some(hi as i64),
        step: None,
    };
    ops::index(t, &[item], crate::runtime::Semantics::Tf).map_err(runtime_err)
}

/// Row `i` of one tensor (drops the first dimension).
pub fn row(t: &Tensor, i: usize) -> PyResult<Tensor> {
    ops::index(
        t,
        &[ops::IndexItem::Int(i as i64)],
        crate::runtime::Semantics::Tf,
    )
    .map_err(runtime_err)
}

/// An element moved to `device`, component by component.
pub fn to_device(spec: &Spec, v: &Value, device: Device) -> PyResult<Value> {
    let moved = leaves(v)
        .iter()
        .map(|t| t.to_device(device).map(Value::Tensor).map_err(runtime_err))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(spec.pack(&mut moved.into_iter()))
}

/// Shared pointer to a spec.
pub type SpecRc = Rc<Spec>;
