//! Class objects of this layer's native types (`MirroredStrategy`,
//! `PerReplica`, `MirroredVariable` …) with TensorFlow's module names, so
//! `type(x)`, `isinstance` and class reprs read as in TensorFlow. Methods
//! live in each class's dict and are bound on attribute access.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::modules::types::builtin_class;
use crate::value::{Class, ClassKind, NativeFn, NativeFunction, Value, ValueType};

thread_local! {
    static CLASSES: RefCell<HashMap<&'static str, Rc<Class>>> = RefCell::new(HashMap::new());
}

/// `(module, base)` of each class this layer defines.
fn spec(name: &str) -> (&'static str, Option<&'static str>) {
    const DL: &str = "tensorflow.python.distribute.distribute_lib";
    const VALUES: &str = "tensorflow.python.distribute.values";
    match name {
        "Strategy" | "StrategyExtendedV2" | "ReplicaContext" | "ValueContext" | "InputContext"
        | "RunOptions" | "InputOptions" => (DL, None),
        "_DefaultDistributionStrategy" => (DL, Some("Strategy")),
        "StrategyExtendedV1" => (DL, Some("StrategyExtendedV2")),
        "_DefaultDistributionExtended" => (DL, Some("StrategyExtendedV1")),
        "_DefaultReplicaContext" => (DL, Some("ReplicaContext")),
        "MirroredStrategy" => (
            "tensorflow.python.distribute.mirrored_strategy",
            Some("Strategy"),
        ),
        "MirroredExtended" => (
            "tensorflow.python.distribute.mirrored_strategy",
            Some("StrategyExtendedV1"),
        ),
        "OneDeviceStrategy" => (
            "tensorflow.python.distribute.one_device_strategy",
            Some("Strategy"),
        ),
        "OneDeviceExtended" => (
            "tensorflow.python.distribute.one_device_strategy",
            Some("StrategyExtendedV1"),
        ),
        "_MirroredReplicaContext" => (
            "tensorflow.python.distribute.mirrored_run",
            Some("ReplicaContext"),
        ),
        "_OneDeviceReplicaContext" => (
            "tensorflow.python.distribute.one_device_strategy",
            Some("ReplicaContext"),
        ),
        // tf.distribute.DistributedValues is the interface in types.distribute
        "DistributedValues" => ("tensorflow.python.types.distribute", None),
        "PerReplica" | "Mirrored" | "DistributedVariable" => (VALUES, Some("DistributedValues")),
        "MirroredVariable" | "SyncOnReadVariable" => (VALUES, Some("DistributedVariable")),
        "Variable" => ("tensorflow.python.ops.variables", None),
        "ResourceVariable" => (
            "tensorflow.python.ops.resource_variable_ops",
            Some("Variable"),
        ),
        "ReduceOp" => ("tensorflow.python.distribute.reduce_util", None),
        "InputReplicationMode" => ("tensorflow.python.distribute.distribute_lib", None),
        "CommunicationImplementation" | "Options" => {
            ("tensorflow.python.distribute.collective_util", None)
        }
        "OwnedIterator" => ("tensorflow.python.data.ops.iterator_ops", None),
        "TensorSpec" => ("tensorflow.python.framework.tensor", None),
        "VariableAggregationV2" | "VariableAggregation" | "VariableSynchronization" => {
            ("tensorflow.python.ops.variables", None)
        }
        "DistributedDatasetInterface" | "DistributedIteratorInterface" => {
            ("tensorflow.python.types.distribute", None)
        }
        "DistributedDataset" | "DistributedDatasetsFromFunction" => (
            "tensorflow.python.distribute.input_lib",
            Some("DistributedDatasetInterface"),
        ),
        "DistributedIterator" => (
            "tensorflow.python.distribute.input_lib",
            Some("DistributedIteratorInterface"),
        ),
        "CrossDeviceOps" => ("tensorflow.python.distribute.cross_device_ops", None),
        "NcclAllReduce" | "HierarchicalCopyAllReduce" | "ReductionToOneDevice" => (
            "tensorflow.python.distribute.cross_device_ops",
            Some("CrossDeviceOps"),
        ),
        "Function" => (
            "tensorflow.python.eager.polymorphic_function.polymorphic_function",
            None,
        ),
        "PhysicalDevice" | "LogicalDevice" | "LogicalDeviceConfiguration" => {
            ("tensorflow.python.eager.context", None)
        }
        _ => ("tensorflow", None),
    }
}

/// The class named `name` (created once per thread; `init` fills its dict
/// the first time).
pub fn class(name: &'static str) -> Rc<Class> {
    if let Some(c) = CLASSES.with(|m| m.borrow().get(name).cloned()) {
        return c;
    }
    let (module, base) = spec(name);
    let base = match base {
        Some(b) => class(b),
        None => builtin_class(ValueType::Object),
    };
    let c = Class::new_builtin(name, module, Some(base), ClassKind::Native);
    CLASSES.with(|m| m.borrow_mut().insert(name, c.clone()));
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
