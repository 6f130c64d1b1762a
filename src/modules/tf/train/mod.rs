//! `_dist_checkpoint`: the natives under TensorFlow's object-based
//! checkpoints. The file formats are `runtime::checkpoint`'s; what TensorFlow
//! writes in Python (`tf.train.Checkpoint`, `CheckpointManager`, the object
//! graph walk, restore matching and deferred restoration,
//! `tf.train.list_variables` …) is `stdlib/tensorflow_checkpoint.dist`,
//! which calls these: `write_bundle` (a bundle from names and tensors),
//! `CheckpointReader` (`tf.train.load_checkpoint`'s reader) and the
//! `TrackableObjectGraph` proto as Python tuples.

mod reader;

use crate::modules::tf::gfile::tf_error;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::tensor::convert::to_tensor;
use crate::runtime::checkpoint::bundle::{self, BundleError, BundleErrorKind};
use crate::runtime::checkpoint::object_graph::{self, Node};
use crate::runtime::storage::HostData;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

pub use reader::{CheckpointReader, CHECKPOINT_READER};

/// A bundle error as TensorFlow's Python reader raises it (most statuses as
/// the base `OpError`, as `_pywrap_checkpoint_reader` does).
pub(crate) fn bundle_err(e: BundleError) -> PyErr {
    let ty = match e.kind {
        BundleErrorKind::InvalidArgument => ExcType::NotFoundError,
        BundleErrorKind::NotFound | BundleErrorKind::DataLoss | BundleErrorKind::Other => {
            ExcType::OpError
        }
        BundleErrorKind::OutOfRange => ExcType::IndexError,
        BundleErrorKind::Unimplemented => ExcType::UnimplementedError,
        BundleErrorKind::Os(errno) => {
            let io = std::io::Error::from_raw_os_error(errno);
            crate::modules::tf::gfile::io_status(&io, "").0
        }
    };
    tf_error(ty, e.message)
}

/// Writes the bundle `prefix` with `tensors[i]` under `names[i]`, their data
/// in this order (TensorFlow's `SaveV2`).
#[native("write_bundle(prefix, names, tensors)")]
fn write_bundle(vm: &dyn Vm, prefix: &str, names: &Value, tensors: &Value) -> PyResult<()> {
    let names = vm.collect(names)?;
    let tensors = vm.collect(tensors)?;
    let mut entries = Vec::with_capacity(names.len().min(tensors.len()));
    for (n, t) in names.iter().zip(&tensors) {
        let name = match n.as_builtin() {
            Value::Str(s) => s.to_string(),
            _ => {
                return Err(PyErr::new(
                    ExcType::TypeError,
                    "a tensor name must be a str",
                ))
            }
        };
        entries.push((name, to_tensor(vm, t, None)?));
    }
    bundle::write(prefix, &entries).map_err(bundle_err)
}

fn str_item(v: &Value) -> PyResult<String> {
    match v.as_builtin() {
        Value::Str(s) => Ok(s.to_string()),
        _ => Err(PyErr::new(
            ExcType::TypeError,
            format!("expected a str in the object graph, got {}", v.type_name()),
        )),
    }
}

fn int_item(v: &Value) -> PyResult<u64> {
    match v {
        Value::Int(i) if *i >= 0 => Ok(*i as u64),
        _ => Err(PyErr::new(
            ExcType::TypeError,
            "expected a node id (an int >= 0) in the object graph",
        )),
    }
}

/// The serialized `TrackableObjectGraph` of `nodes`: each node a tuple
/// `(children, attributes, slot_variables, has_checkpoint_values)` of lists
/// of `(node_id, local_name)`, `(name, full_name, checkpoint_key)` and
/// `(original_variable_node_id, slot_name, slot_variable_node_id)`.
#[native("encode_object_graph(nodes)")]
fn encode_object_graph(vm: &dyn Vm, nodes: &Value) -> PyResult<Value> {
    let mut out = Vec::new();
    for node in vm.collect(nodes)? {
        let parts = vm.collect(&node)?;
        if parts.len() != 4 {
            return Err(PyErr::new(
                ExcType::ValueError,
                "an object graph node has 4 parts",
            ));
        }
        let mut n = Node {
            has_checkpoint_values: Some(vm.truthy(&parts[3])?),
            ..Node::default()
        };
        for c in vm.collect(&parts[0])? {
            let c = vm.collect(&c)?;
            if c.len() != 2 {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    "a child is (node_id, local_name)",
                ));
            }
            n.children.push((int_item(&c[0])?, str_item(&c[1])?));
        }
        for a in vm.collect(&parts[1])? {
            let a = vm.collect(&a)?;
            if a.len() != 3 {
                return Err(PyErr::new(ExcType::ValueError, "an attribute has 3 parts"));
            }
            n.attributes
                .push((str_item(&a[0])?, str_item(&a[1])?, str_item(&a[2])?));
        }
        for s in vm.collect(&parts[2])? {
            let s = vm.collect(&s)?;
            if s.len() != 3 {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    "a slot reference has 3 parts",
                ));
            }
            n.slot_variables
                .push((int_item(&s[0])?, str_item(&s[1])?, int_item(&s[2])?));
        }
        out.push(n);
    }
    Ok(Value::Bytes(std::rc::Rc::new(object_graph::encode(&out))))
}

/// The nodes of a serialized `TrackableObjectGraph` (bytes or a string
/// scalar tensor), as `encode_object_graph` takes them
/// (`has_checkpoint_values` None where it is not set).
#[native("decode_object_graph(data)")]
fn decode_object_graph(vm: &dyn Vm, data: &Value) -> PyResult<Value> {
    let bytes = match data.as_builtin() {
        Value::Bytes(b) => b.to_vec(),
        _ => {
            let t = to_tensor(vm, data, None)?;
            match t
                .host()
                .map_err(crate::object::tensor::convert::runtime_err)?
            {
                HostData::Str(v) if v.len() == 1 => v[0].clone(),
                _ => {
                    return Err(PyErr::new(
                        ExcType::TypeError,
                        "the object graph must be bytes or a string scalar",
                    ))
                }
            }
        }
    };
    let nodes = object_graph::decode(&bytes).ok_or_else(|| {
        PyErr::new(
            ExcType::DataLossError,
            "The checkpoint's object graph (_CHECKPOINTABLE_OBJECT_GRAPH) is not a TrackableObjectGraph proto",
        )
    })?;
    let s = |t: &str| Value::str(t.to_string());
    Ok(Value::list(
        nodes
            .iter()
            .map(|n| {
                Value::tuple(vec![
                    Value::list(
                        n.children
                            .iter()
                            .map(|(id, name)| Value::tuple(vec![Value::Int(*id as i64), s(name)]))
                            .collect(),
                    ),
                    Value::list(
                        n.attributes
                            .iter()
                            .map(|(a, b, c)| Value::tuple(vec![s(a), s(b), s(c)]))
                            .collect(),
                    ),
                    Value::list(
                        n.slot_variables
                            .iter()
                            .map(|(a, b, c)| {
                                Value::tuple(vec![
                                    Value::Int(*a as i64),
                                    s(b),
                                    Value::Int(*c as i64),
                                ])
                            })
                            .collect(),
                    ),
                    n.has_checkpoint_values.map_or(Value::None, Value::Bool),
                ])
            })
            .collect(),
    ))
}

/// Builds the `_dist_checkpoint` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("_dist_checkpoint");
    m.add(write_bundle::DEF);
    m.add(encode_object_graph::DEF);
    m.add(decode_object_graph::DEF);
    m.value("CheckpointReader", Value::Class(CHECKPOINT_READER.class()));
    m.build()
}
