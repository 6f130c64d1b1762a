//! Class objects of this layer's native types (`MirroredStrategy`,
//! `PerReplica`, `MirroredVariable` …) with TensorFlow's module names, so
//! `type(x)`, `isinstance` and class reprs read as in TensorFlow. Methods
//! live in each class's dict and are bound on attribute access.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::object::types::builtin_class;
use crate::value::{Class, ClassKind, NativeFn, NativeFunction, Value, ValueType};

thread_local! {
    static CLASSES: RefCell<HashMap<&'static str, Rc<Class>>> = RefCell::new(HashMap::new());
}

/// `(name, module, bases)` of each class this layer defines, by key. The key
/// is the class name, qualified where TensorFlow has two classes of one name
/// (`values.PerReplica` is the concrete class, `types.PerReplica` the
/// interface that `tf.types.experimental.distributed.PerReplica` names).
/// The bases give TensorFlow's MROs (`type(v).__mro__`, `isinstance`).
fn spec(key: &str) -> (&str, &'static str, &'static [&'static str]) {
    const DL: &str = "tensorflow.python.distribute.distribute_lib";
    const VALUES: &str = "tensorflow.python.distribute.values";
    const TYPES: &str = "tensorflow.python.types.distribute";
    const MIRRORED: &str = "tensorflow.python.distribute.mirrored_strategy";
    const ONE_DEVICE: &str = "tensorflow.python.distribute.one_device_strategy";
    const CROSS: &str = "tensorflow.python.distribute.cross_device_ops";
    const INPUT: &str = "tensorflow.python.distribute.input_lib";
    let (module, bases): (&'static str, &'static [&'static str]) = match key {
        "Strategy"
        | "StrategyExtendedV2"
        | "ReplicaContext"
        | "ValueContext"
        | "InputContext"
        | "RunOptions"
        | "InputOptions"
        | "InputReplicationMode" => (DL, &[]),
        "_DefaultDistributionStrategy" => (DL, &["Strategy"]),
        "StrategyExtendedV1" => (DL, &["StrategyExtendedV2"]),
        "_DefaultDistributionExtended" => (DL, &["StrategyExtendedV1"]),
        "_DefaultReplicaContext" => (DL, &["ReplicaContext"]),
        "MirroredStrategy" => (MIRRORED, &["Strategy"]),
        "MirroredExtended" => (MIRRORED, &["StrategyExtendedV1"]),
        "OneDeviceStrategy" => (ONE_DEVICE, &["Strategy"]),
        "OneDeviceExtended" => (ONE_DEVICE, &["StrategyExtendedV1"]),
        "_MirroredReplicaContext" => (
            "tensorflow.python.distribute.mirrored_run",
            &["ReplicaContext"],
        ),
        "_OneDeviceReplicaContext" => (ONE_DEVICE, &["ReplicaContext"]),
        // tf.distribute.DistributedValues is the interface in types.distribute
        "DistributedValues" => (TYPES, &[]),
        "types.PerReplica" | "types.Mirrored" => (TYPES, &["DistributedValues"]),
        "values.DistributedValues" => (VALUES, &["DistributedValues"]),
        "DistributedDelegate" => (VALUES, &["values.DistributedValues"]),
        "PerReplica" => (
            VALUES,
            &[
                "values.DistributedValues",
                "CompositeTensor",
                "types.PerReplica",
            ],
        ),
        "Mirrored" => (VALUES, &["DistributedDelegate", "types.Mirrored"]),
        "DistributedVariable" => (VALUES, &["DistributedDelegate", "Variable", "core.Tensor"]),
        "MirroredVariable" => (VALUES, &["DistributedVariable", "Mirrored"]),
        "SyncOnReadVariable" => (VALUES, &["DistributedVariable"]),
        "Variable" => ("tensorflow.python.ops.variables", &["Trackable"]),
        "BaseResourceVariable" => (
            "tensorflow.python.ops.resource_variable_ops",
            &["Variable", "core.Tensor", "CompositeTensor"],
        ),
        "ResourceVariable" => (
            "tensorflow.python.ops.resource_variable_ops",
            &["BaseResourceVariable"],
        ),
        "Trackable" => ("tensorflow.python.trackable.base", &[]),
        "CompositeTensor" => ("tensorflow.python.framework.composite_tensor", &[]),
        "core.Tensor" => ("tensorflow.python.types.core", &[]),
        "core.Symbol" | "core.Value" => ("tensorflow.python.types.core", &["core.Tensor"]),
        "NativeObject" => ("tensorflow.python.types.internal", &[]),
        "ReduceOp" => ("tensorflow.python.distribute.reduce_util", &[]),
        "CommunicationImplementation" | "Options" => {
            ("tensorflow.python.distribute.collective_util", &[])
        }
        "OwnedIterator" => ("tensorflow.python.data.ops.iterator_ops", &[]),
        "TensorSpec" => ("tensorflow.python.framework.tensor", &[]),
        "VariableAggregationV2" | "VariableAggregation" | "VariableSynchronization" => {
            ("tensorflow.python.ops.variables", &[])
        }
        "DistributedDatasetInterface" | "DistributedIteratorInterface" => (TYPES, &[]),
        "DistributedDataset" | "DistributedDatasetsFromFunction" => {
            (INPUT, &["DistributedDatasetInterface"])
        }
        "DistributedIterator" => (INPUT, &["DistributedIteratorInterface"]),
        "CrossDeviceOps" => (CROSS, &[]),
        "NcclAllReduce" | "HierarchicalCopyAllReduce" | "ReductionToOneDevice" => {
            (CROSS, &["CrossDeviceOps"])
        }
        "Function" => (
            "tensorflow.python.eager.polymorphic_function.polymorphic_function",
            &[],
        ),
        "PhysicalDevice" | "LogicalDevice" | "LogicalDeviceConfiguration" => {
            ("tensorflow.python.eager.context", &[])
        }
        _ => ("tensorflow", &[]),
    };
    let name = key.rsplit('.').next().unwrap_or(key);
    (name, module, bases)
}

/// The class of key `key` (see `spec`; created once per thread, its bases
/// first; `init` fills its dict the first time).
pub fn class(key: &'static str) -> Rc<Class> {
    use crate::object::tensor::classes as tc;
    // The interfaces tensors share with variables and distributed values.
    let shared = match key {
        "NativeObject" => Some(&tc::NATIVE_OBJECT),
        "Trackable" => Some(&tc::TRACKABLE),
        "CompositeTensor" => Some(&tc::COMPOSITE_TENSOR),
        "core.Tensor" => Some(&tc::CORE_TENSOR),
        "core.Symbol" => Some(&tc::CORE_SYMBOL),
        "core.Value" => Some(&tc::CORE_VALUE),
        _ => None,
    };
    if let Some(spec) = shared {
        return spec.class();
    }
    if let Some(c) = CLASSES.with(|m| m.borrow().get(key).cloned()) {
        return c;
    }
    let (name, module, bases) = spec(key);
    let bases = if bases.is_empty() {
        vec![builtin_class(ValueType::Object)]
    } else {
        bases.iter().map(|b| class(b)).collect()
    };
    let c = Class::new_builtin_bases(name, module, bases, ClassKind::Native);
    CLASSES.with(|m| m.borrow_mut().insert(key, c.clone()));
    c
}

/// Adds a method to a class from its Python signature (`self` first).
pub fn method(c: &Class, sig: &str, f: NativeFn, doc: &'static str) {
    let nf = NativeFunction::new(sig, f, doc);
    let short = nf.name().to_string();
    c.set_attr(&short, Value::NativeFunction(nf));
}

/// The constructor (`__new__`) of a class; `sig` omits `cls`.
pub fn constructor(c: &Class, sig: &str, f: NativeFn, doc: &'static str) {
    c.set_attr(
        "__new__",
        Value::NativeFunction(NativeFunction::new(sig, f, doc)),
    );
}

/// A method of `cls` bound to `this`, for `NativeObject::getattr`.
pub fn bound(cls: &Rc<Class>, this: &Value, name: &str) -> Option<Value> {
    if name.starts_with("__") {
        return None;
    }
    match cls.lookup(name)? {
        Value::NativeFunction(f) => Some(f.bind(this.clone())),
        v => Some(v),
    }
}

/// The names defined on `cls` and its bases, for `dir()`.
pub fn names(cls: &Rc<Class>) -> Vec<String> {
    let mut out = Vec::new();
    for c in cls.mro() {
        for k in c.dict.borrow().keys() {
            if !k.starts_with("__") && !out.iter().any(|o: &String| o == &**k) {
                out.push(k.to_string());
            }
        }
    }
    out
}

/// Marks `c` as an enum with these members (already its attributes), as
/// Python's `Enum` classes are: `_member_names_` lists them, so the class
/// shows as `<enum 'Name'>` and iterates over its members.
pub fn mark_enum(c: &Class, members: &[&str]) {
    c.set_attr(
        "_member_names_",
        Value::list(members.iter().map(|m| Value::str(*m)).collect()),
    );
}
