//! `strategy.extended`: the `StrategyExtended` object of each strategy, its
//! properties, and the methods TensorFlow 2 keeps on it (`reduce_to`,
//! `batch_reduce_to`, `update`, `value_container`, …). The methods it keeps
//! from TensorFlow 1 are in `extended_v1.rs`.

use std::cell::RefCell;
use std::rc::Weak;

use super::cross_replica::{destination, reduce_mirrored, reduce_to_devices};
use super::{device_names, extended_v1 as v1, Flavor, Kind, StrategyObj};
use crate::distribute::classes::{native_class, object_repr, DISTRIBUTE_LIB};
use crate::distribute::reduce::parse_op;
use crate::distribute::values::components;
use crate::distribute::variables;
use crate::object::{native, ClassSpec, Member};
use crate::runtime::Device;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// `strategy.extended`.
pub struct ExtendedObj {
    /// Which strategy.
    pub(crate) kind: Kind,
    /// The strategy's class, where not its kind's.
    pub(crate) flavor: Flavor,
    /// The replicas' devices: where their work runs.
    pub(crate) devices: Vec<Device>,
    /// The replicas' devices as named (see `StrategyObj::names`).
    pub(crate) names: Vec<Device>,
    /// The strategy this belongs to (weak: the strategy owns this object).
    pub(super) strategy: RefCell<Weak<Box<dyn NativeObject>>>,
}

impl ExtendedObj {
    /// The strategy object this belongs to.
    pub(super) fn strategy(&self) -> Option<Value> {
        self.strategy.borrow().upgrade().map(Value::Native)
    }

    /// A strategy of this kind on these devices (to reduce with).
    fn as_strategy(&self) -> StrategyObj {
        StrategyObj {
            kind: self.kind,
            flavor: self.flavor.clone(),
            resolver: Value::None,
            devices: self.devices.clone(),
            names: self.names.clone(),
            extended: Value::None,
            input_hosts: Default::default(),
        }
    }
}

// Each method's signature carries the class that defines it in TensorFlow
// 2.21, which starts the binder's messages.

/// `tf.distribute.StrategyExtended` (`StrategyExtendedV2`): the methods and
/// properties every strategy's has.
pub static EXTENDED_V2: ClassSpec = ClassSpec {
    name: "StrategyExtendedV2",
    module: DISTRIBUTE_LIB,
    bases: &[],
    members: &[
        Member::Method(reduce_to::DEF),
        Member::Method(batch_reduce_to::DEF),
        Member::Method(variable_created_in_scope::DEF),
        Member::Method(update::DEF),
        Member::Method(colocate_vars_with::DEF),
        Member::Getter(worker_devices::DEF),
        Member::Getter(parameter_devices::DEF),
        Member::Getter(experimental_require_static_shapes::DEF),
        Member::Getter(v1::experimental_between_graph::DEF),
        Member::Getter(v1::experimental_should_init::DEF),
        Member::Getter(v1::should_checkpoint::DEF),
        Member::Getter(v1::should_save_summary::DEF),
    ],
};

/// `StrategyExtendedV1`, the base of the strategies' extended classes,
/// with the methods TensorFlow keeps from its 1.x API.
pub static EXTENDED_V1: ClassSpec = ClassSpec {
    name: "StrategyExtendedV1",
    module: DISTRIBUTE_LIB,
    bases: &[&EXTENDED_V2],
    members: &[
        Member::Method(v1::broadcast_to::DEF),
        Member::Method(v1::call_for_each_replica::DEF),
        Member::Method(v1::read_var::DEF),
        Member::Method(v1::non_slot_devices::DEF),
        Member::Method(v1::update_non_slot::DEF),
    ],
};

/// `MirroredExtended`.
pub static MIRRORED_EXTENDED: ClassSpec = ClassSpec {
    name: "MirroredExtended",
    module: "tensorflow.python.distribute.mirrored_strategy",
    bases: &[&EXTENDED_V1],
    // MirroredExtended names the argument `val`
    members: &[Member::Method(value_container::DEF)],
};

/// `OneDeviceExtended`.
pub static ONE_DEVICE_EXTENDED: ClassSpec = ClassSpec {
    name: "OneDeviceExtended",
    module: "tensorflow.python.distribute.one_device_strategy",
    bases: &[&EXTENDED_V1],
    members: &[Member::Method(
        value_container::DEF.renamed("OneDeviceExtended.value_container(self, value)"),
    )],
};

/// The default strategy's extended class.
pub static DEFAULT_EXTENDED: ClassSpec = ClassSpec {
    name: "_DefaultDistributionExtended",
    module: DISTRIBUTE_LIB,
    bases: &[&EXTENDED_V1],
    members: &[
        Member::Method(
            variable_created_in_scope::DEF
                .renamed("_DefaultDistributionExtended.variable_created_in_scope(self, v)"),
        ),
        Member::Method(
            value_container::DEF
                .renamed("_DefaultDistributionExtended.value_container(self, value)"),
        ),
        Member::Method(colocate_vars_with::DEF.renamed(
            "_DefaultDistributionExtended.colocate_vars_with(self, colocate_with_variable)",
        )),
    ],
};

impl Kind {
    /// The class of the extended object of a strategy of this kind.
    pub fn extended_spec(self) -> &'static ClassSpec {
        match self {
            Kind::Mirrored => &MIRRORED_EXTENDED,
            Kind::OneDevice => &ONE_DEVICE_EXTENDED,
            Kind::Default => &DEFAULT_EXTENDED,
        }
    }
}

native_class!(ExtendedObj: EXTENDED_V2);

impl ExtendedObj {
    fn class_spec(&self) -> &'static ClassSpec {
        super::local_cluster::extended_spec(&self.flavor)
            .unwrap_or_else(|| self.kind.extended_spec())
    }
}

impl NativeObject for ExtendedObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(self.class_spec())
    }
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(object_repr(self.class_spec(), this))
    }
}

/// The replicas' devices; the default strategy has none to name.
fn devices_property(e: &ExtendedObj, name: &str) -> PyResult<Value> {
    if e.kind == Kind::Default {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            format!("{name}() method unsupported by default tf.distribute.Strategy."),
        ));
    }
    Ok(device_names(&e.names))
}

/// The devices the replicas run on.
#[native("StrategyExtendedV2.worker_devices(self)")]
fn worker_devices(vm: &dyn Vm, this: &ExtendedObj) -> PyResult<Value> {
    let names = devices_property(this, "worker_devices")?;
    match this.flavor {
        // ParameterServerStrategyExtended keeps its compute devices in a list
        Flavor::CentralStorage { .. } => Ok(Value::list(vm.collect(&names)?)),
        _ => Ok(names),
    }
}

/// The devices variables are placed on.
#[native("StrategyExtendedV2.parameter_devices(self)")]
fn parameter_devices(this: &ExtendedObj) -> PyResult<Value> {
    match &this.flavor {
        Flavor::CentralStorage { shown, .. } => Ok(Value::tuple(vec![Value::str(shown)])),
        _ => devices_property(this, "parameter_devices"),
    }
}

/// Whether the strategy needs static shapes (only TensorFlow's TPU strategy does).
#[native("StrategyExtendedV2.experimental_require_static_shapes(self)")]
fn experimental_require_static_shapes(_this: &ExtendedObj) -> bool {
    false
}

/// Reduces `value` to `destinations`.
#[native("StrategyExtendedV2.reduce_to(self, reduce_op, value, destinations, options=None)")]
fn reduce_to(
    vm: &dyn Vm,
    this: &ExtendedObj,
    reduce_op: &Value,
    value: &Value,
    destinations: &Value,
    _options: &Value,
) -> PyResult<Value> {
    let op = parse_op(vm, reduce_op)?;
    let dest = destination(vm, destinations)?;
    let s = this.as_strategy();
    if let Some(v) = reduce_mirrored(&s, op, value)? {
        return Ok(v);
    }
    reduce_to_devices(vm, &s, op, value, &dest)
}

/// Several reduce_to at once.
#[native(
    "StrategyExtendedV2.batch_reduce_to(self, reduce_op, value_destination_pairs, options=None)"
)]
fn batch_reduce_to(
    vm: &dyn Vm,
    this: &ExtendedObj,
    reduce_op: &Value,
    value_destination_pairs: &Value,
    _options: &Value,
) -> PyResult<Value> {
    let op = parse_op(vm, reduce_op)?;
    let s = this.as_strategy();
    let mut pairs = Vec::new();
    for pair in vm.collect(value_destination_pairs)? {
        let items = vm.collect(&pair)?;
        let [value, dst] = items.as_slice() else {
            return Err(PyErr::new(
                ExcType::ValueError,
                "value_destination_pairs must hold (value, destinations) pairs",
            ));
        };
        let dest = destination(vm, dst)?;
        pairs.push((value.clone(), dest));
    }
    // MirroredStrategy reduces int32 through the host and everything else on
    // the devices; a batch of several pairs cannot mix (nor batch) the two.
    let int32 = |v: &Value| {
        let first = components(v).and_then(|c| c.first()).unwrap_or(v);
        matches!(first, Value::Tensor(t) if t.dtype() == crate::runtime::DType::Int32)
    };
    if s.kind == Kind::Mirrored && pairs.len() > 1 && pairs.iter().any(|(v, _)| int32(v)) {
        return Err(PyErr::new(
            ExcType::ValueError,
            "Inputs to batch_reduce_to must be either all on the host or all on the compute devices.",
        ));
    }
    let mut out = Vec::with_capacity(pairs.len());
    for (value, dest) in &pairs {
        out.push(reduce_to_devices(vm, &s, op, value, dest)?);
    }
    Ok(Value::list(out))
}

/// Whether `v` was created in this strategy's scope.
#[native("StrategyExtendedV2.variable_created_in_scope(self, v)")]
fn variable_created_in_scope(this: &ExtendedObj, v: &Value) -> bool {
    variables::created_on(v, &this.devices, this.kind)
}

/// The container of a replica-local value.
#[native("MirroredExtended.value_container(self, val)")]
fn value_container(_this: &Value, val: &Value) -> Value {
    // a distributed variable's component belongs to the variable; anything
    // else (a run result's component) to no container TensorFlow keeps
    variables::container_of(val).unwrap_or_else(|| val.clone())
}

/// Runs `fn(v, *args)` on each component of `var`.
#[native("StrategyExtendedV2.update(self, var, fn, args=(), kwargs=None, group=True)")]
fn update(
    vm: &dyn Vm,
    _this: &Value,
    var: &Value,
    fn_: &Value,
    args: &Value,
    kwargs: &Value,
    group: bool,
) -> PyResult<Value> {
    variables::update_with_fn(vm, var, fn_, args, kwargs, group)
}

/// `with strategy.extended.colocate_vars_with(v):` (placement is already per replica).
struct NullScope;

/// The class of `colocate_vars_with` scopes.
pub static COLOCATE_SCOPE: ClassSpec = ClassSpec::plain("_colocate_vars_with", "builtins");

impl NativeObject for NullScope {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&COLOCATE_SCOPE)
    }
    fn enter(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(Value::None))
    }
}

/// Places new variables with another one.
#[native("StrategyExtendedV2.colocate_vars_with(self, colocate_with_variable)")]
fn colocate_vars_with(_this: &Value, _colocate_with_variable: &Value) -> Value {
    Value::native(NullScope)
}
