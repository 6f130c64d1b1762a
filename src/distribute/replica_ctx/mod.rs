//! Replica and cross-replica contexts: `ReplicaContext` (the
//! `replica_id_in_sync_group`, `all_reduce`, `all_gather`, `merge_call` of a
//! replica function), `ValueContext`, and `tf.distribute.get_strategy` and
//! friends. The collectives' merge step is in `collective.rs`.

pub mod collective;

use std::rc::Rc;

pub use collective::{merge_collectives, park_request, Request};

use super::classes::{getters, native_class, object_repr, DISTRIBUTE_LIB};
use super::context::{in_replica_fn, state};
use super::nest::keywords;
use super::reduce::parse_op;
use super::strategy::{current_strategy, default_strategy, Kind, StrategyObj};
use crate::object::tensor::convert::runtime_err;
use crate::object::{native, ClassSpec, Member, This};
use crate::runtime::{Device, Tensor};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// The context of one replica inside `strategy.run` (or the default one).
pub struct ReplicaContext {
    /// The strategy running the replica.
    pub strategy: Value,
    /// The replica's index.
    pub replica: usize,
    /// The number of replicas.
    pub n: usize,
    /// The replica's device: where its tensors live.
    pub device: Device,
    /// The replica's device as the strategy names it (`GPU:1` where soft
    /// placement runs it on `CPU:0`).
    pub name: Device,
    /// True for the default strategy's context.
    pub default: bool,
    /// True for MirroredStrategy (its class is `_MirroredReplicaContext`).
    pub mirrored: bool,
}

// Method signatures carry TensorFlow's defining class (`ReplicaContextBase`
// for all_reduce and merge_call), which names them in argument errors. Each
// context class has them, as `tf.distribute.ReplicaContext` does.
const CONTEXT_MEMBERS: &[Member] = &[
    Member::Method(all_reduce::DEF),
    Member::Method(all_gather::DEF),
    Member::Method(merge_call::DEF),
    Member::Method(update::DEF),
    Member::Getter(replica_id_in_sync_group::DEF),
    Member::Getter(num_replicas_in_sync::DEF),
    Member::Getter(context_strategy::DEF),
    Member::Getter(context_devices::DEF),
];

/// `tf.distribute.ReplicaContext`.
pub static REPLICA_CONTEXT: ClassSpec = ClassSpec {
    name: "ReplicaContext",
    module: DISTRIBUTE_LIB,
    bases: &[],
    members: CONTEXT_MEMBERS,
};

/// The default strategy's replica context.
pub static DEFAULT_REPLICA_CONTEXT: ClassSpec = ClassSpec {
    name: "_DefaultReplicaContext",
    module: DISTRIBUTE_LIB,
    bases: &[&REPLICA_CONTEXT],
    members: CONTEXT_MEMBERS,
};

/// MirroredStrategy's replica context.
pub static MIRRORED_REPLICA_CONTEXT: ClassSpec = ClassSpec {
    name: "_MirroredReplicaContext",
    module: "tensorflow.python.distribute.mirrored_run",
    bases: &[&REPLICA_CONTEXT],
    members: CONTEXT_MEMBERS,
};

/// OneDeviceStrategy's replica context.
pub static ONE_DEVICE_REPLICA_CONTEXT: ClassSpec = ClassSpec {
    name: "_OneDeviceReplicaContext",
    module: "tensorflow.python.distribute.one_device_strategy",
    bases: &[&REPLICA_CONTEXT],
    members: CONTEXT_MEMBERS,
};

impl ReplicaContext {
    fn class_spec(&self) -> &'static ClassSpec {
        if self.default {
            &DEFAULT_REPLICA_CONTEXT
        } else if self.mirrored {
            &MIRRORED_REPLICA_CONTEXT
        } else {
            &ONE_DEVICE_REPLICA_CONTEXT
        }
    }

    /// Fails unless called in this context's own replica function.
    fn check_active(&self, vm: &dyn Vm, what: &str) -> PyResult<()> {
        if self.default {
            return Ok(());
        }
        if vm.current_replica() != Some(self.replica) {
            return Err(PyErr::new(
                ExcType::RuntimeError,
                format!("ReplicaContext.{what} must be called in its replica function (inside strategy.run)"),
            )
            .help("this code runs in a cross-replica context: use strategy.reduce / strategy.gather here"));
        }
        Ok(())
    }
}

native_class!(ReplicaContext: REPLICA_CONTEXT);

impl NativeObject for ReplicaContext {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(self.class_spec())
    }
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(object_repr(self.class_spec(), this))
    }
}

/// The replica's index: a Python int in the default context, a tensor on
/// the replica's device inside `strategy.run`.
#[native("ReplicaContext.replica_id_in_sync_group(self)")]
fn replica_id_in_sync_group(this: &ReplicaContext) -> PyResult<Value> {
    if this.default {
        return Ok(Value::Int(0));
    }
    let t = crate::runtime::graph::paused(|| {
        Tensor::scalar(this.replica as i32).to_device(this.device)
    })
    .map_err(runtime_err)?;
    crate::runtime::graph::constant_named(&t, "replica_id_in_sync_group");
    Ok(Value::Tensor(t))
}

getters! { this: &ReplicaContext;
    /// The number of replicas.
    fn num_replicas_in_sync("ReplicaContext.num_replicas_in_sync(self)") -> usize { this.n }
    /// The strategy running the replica.
    fn context_strategy("ReplicaContext.strategy(self)") -> Value { this.strategy.clone() }
}

/// The replica's devices.
#[native("ReplicaContext.devices(self)")]
fn context_devices(this: &ReplicaContext) -> Value {
    let name = Value::str(this.name.full_name());
    if this.mirrored {
        // MirroredStrategy's is `[worker_devices_by_replica[id]]`, a list of lists
        Value::list(vec![Value::list(vec![name])])
    } else {
        Value::tuple(vec![name])
    }
}

/// Reduces `value` (a nest of tensors) across replicas; every replica gets the result.
#[native("ReplicaContextBase.all_reduce(self, reduce_op, value, options=None)")]
fn all_reduce(
    vm: &dyn Vm,
    this: &ReplicaContext,
    reduce_op: &Value,
    value: &Value,
    _options: &Value,
) -> PyResult<Value> {
    this.check_active(vm, "all_reduce")?;
    let op = parse_op(vm, reduce_op)?;
    if this.default {
        return Ok(value.clone());
    }
    park_request(vm, Request::AllReduce(op, value.clone()))
}

/// Concatenates every replica's `value` along `axis`; every replica gets the result.
#[native("ReplicaContext.all_gather(self, value, axis, options=None)")]
fn all_gather(
    vm: &dyn Vm,
    this: &ReplicaContext,
    value: &Value,
    axis: &Value,
    _options: &Value,
) -> PyResult<Value> {
    this.check_active(vm, "all_gather")?;
    let axis = match axis {
        Value::Int(i) => *i,
        Value::Tensor(t) => match t.item() {
            Ok(crate::runtime::Scalar::Int(i)) => i,
            _ => return Err(PyErr::new(ExcType::TypeError, "axis must be an int")),
        },
        other => {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!("axis must be an int, not {}", other.type_name()),
            ))
        }
    };
    if this.default {
        return Ok(value.clone());
    }
    park_request(vm, Request::AllGather(value.clone(), axis))
}

/// Calls `merge_fn(strategy, *args)` once, in cross-replica context, with the replicas' arguments regrouped.
#[native("ReplicaContextBase.merge_call(self, merge_fn, args=(), kwargs=None)")]
fn merge_call(
    vm: &dyn Vm,
    this: &ReplicaContext,
    merge_fn: &Value,
    args: &Value,
    kwargs: &Value,
) -> PyResult<Value> {
    this.check_active(vm, "merge_call")?;
    let a = match args {
        Value::None => Value::tuple(Vec::new()),
        Value::Tuple(_) => args.clone(),
        v => Value::tuple(vm.collect(v)?),
    };
    let kw = match kwargs {
        Value::None => Value::dict(crate::value::Dict::new()),
        v => v.clone(),
    };
    if this.default {
        let mut call_args = vec![this.strategy.clone()];
        call_args.extend(vm.collect(&a)?);
        return vm.call(merge_fn, call_args, keywords(&kw));
    }
    park_request(vm, Request::MergeCall(merge_fn.clone(), a, kw))
}

// A `merge_call` whose function runs `strategy.extended.update(var, fn,
// args, kwargs, group)` on the merged arguments (TensorFlow's
// `_replica_ctx_update`).
/// Updates `var` with `fn(var, *args)` on each of its devices, from replica context.
#[native("ReplicaContext._update(self, var, fn, args=(), kwargs=None, group=True)")]
fn update(
    vm: &dyn Vm,
    this: This<ReplicaContext>,
    var: &Value,
    fn_: &Value,
    args: &Value,
    kwargs: &Value,
    group: &Value,
) -> PyResult<Value> {
    this.check_active(vm, "_update")?;
    let merge_fn = Value::native(UpdateMergeFn {
        var: var.clone(),
        f: fn_.clone(),
        group: group.clone(),
    });
    merge_call(vm, this.obj, &merge_fn, args, kwargs)
}

/// The merge function of `_update`: `merge_fn(strategy, *merged_args,
/// **merged_kwargs)` runs `strategy.extended.update(var, fn, merged_args,
/// merged_kwargs, group)`.
struct UpdateMergeFn {
    var: Value,
    f: Value,
    group: Value,
}

impl NativeObject for UpdateMergeFn {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&crate::distribute::function::FUNCTION_OBJECT)
    }
    fn call(
        &self,
        _this: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
        vm: &dyn Vm,
    ) -> PyResult<Value> {
        let mut args = args.into_iter();
        let Some(strategy) = args.next() else {
            return Err(PyErr::new(
                ExcType::TypeError,
                "merge_fn() missing 1 required positional argument: 'strategy'",
            ));
        };
        let mut merged_kwargs = crate::value::Dict::new();
        for (k, v) in kwargs {
            merged_kwargs.insert_str(&k, v)?;
        }
        let extended = vm.getattr(&strategy, "extended")?;
        let update = vm.getattr(&extended, "update")?;
        vm.call(
            &update,
            vec![
                self.var.clone(),
                self.f.clone(),
                Value::tuple(args.collect()),
                Value::dict(merged_kwargs),
                self.group.clone(),
            ],
            Vec::new(),
        )
    }
}

/// The replica context of the running replica, if inside a replica function.
pub fn current_replica_context(vm: &dyn Vm) -> Option<Value> {
    let i = vm.current_replica()?;
    let st = state(vm);
    let run = st.run.borrow().clone()?;
    let mirrored = run
        .strategy
        .downcast::<StrategyObj>()
        .is_some_and(|s| s.kind == Kind::Mirrored);
    Some(Value::native(ReplicaContext {
        strategy: run.strategy.clone(),
        replica: i,
        n: run.devices.len(),
        device: run.devices[i],
        name: run
            .strategy
            .downcast::<StrategyObj>()
            .and_then(|s| s.names.get(i).copied())
            .unwrap_or(run.devices[i]),
        default: false,
        mirrored,
    }))
}

/// True in a cross-replica context: inside a scope (outside replica
/// functions) or inside a `merge_call` function.
pub fn in_cross_replica(vm: &dyn Vm) -> bool {
    if in_replica_fn(vm) {
        return false;
    }
    let st = state(vm);
    st.merge_depth.get() > 0 || !st.scopes.borrow().is_empty()
}

/// `ValueContext`, given to `experimental_distribute_values_from_function`'s function.
pub struct ValueContext {
    /// The replica's index.
    pub replica: usize,
    /// The number of replicas.
    pub n: usize,
}

/// `tf.distribute.experimental.ValueContext`, constructible as in TensorFlow.
pub static VALUE_CONTEXT: ClassSpec = ClassSpec {
    name: "ValueContext",
    module: DISTRIBUTE_LIB,
    bases: &[],
    members: &[
        Member::New(value_context_new::DEF),
        Member::Getter(value_replica_id::DEF),
        Member::Getter(value_num_replicas::DEF),
    ],
};

native_class!(ValueContext: VALUE_CONTEXT);

impl NativeObject for ValueContext {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&VALUE_CONTEXT)
    }
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(object_repr(&VALUE_CONTEXT, this))
    }
    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "tf.distribute.ValueContext(replica id {},  total replicas in sync: {})",
            self.replica, self.n
        ))
    }
}

/// What `experimental_distribute_values_from_function`'s function learns about its replica.
#[native("ValueContext(replica_id_in_sync_group=0, num_replicas_in_sync=1)")]
fn value_context_new(replica_id_in_sync_group: i64, num_replicas_in_sync: i64) -> Value {
    Value::native(ValueContext {
        replica: replica_id_in_sync_group.max(0) as usize,
        n: num_replicas_in_sync.max(0) as usize,
    })
}

getters! { this: &ValueContext;
    /// The replica's index.
    fn value_replica_id("ValueContext.replica_id_in_sync_group(self)") -> usize { this.replica }
    /// The number of replicas.
    fn value_num_replicas("ValueContext.num_replicas_in_sync(self)") -> usize { this.n }
}

/// The current strategy: the innermost scope's, else the default strategy.
#[native("get_strategy()")]
pub fn get_strategy(vm: &dyn Vm) -> Value {
    current_strategy(vm)
}

/// Whether a strategy scope (other than the default) is active.
#[native("has_strategy()")]
pub fn has_strategy(vm: &dyn Vm) -> bool {
    let st = state(vm);
    !st.scopes.borrow().is_empty() || st.run.borrow().is_some()
}

/// True inside a strategy scope, outside replica functions.
#[native("in_cross_replica_context()")]
pub fn in_cross_replica_context(vm: &dyn Vm) -> bool {
    in_cross_replica(vm)
}

/// The ReplicaContext in a replica function; None in a cross-replica context.
#[native("get_replica_context()")]
pub fn get_replica_context(vm: &dyn Vm) -> Value {
    if let Some(c) = current_replica_context(vm) {
        return c;
    }
    if in_cross_replica(vm) {
        return Value::None;
    }
    Value::native(ReplicaContext {
        strategy: default_strategy(vm),
        replica: 0,
        n: 1,
        device: Device::CPU0,
        name: Device::CPU0,
        default: true,
        mirrored: false,
    })
}

/// Enters `strategy`'s scope for the rest of the program (None leaves it).
#[native("experimental_set_strategy(strategy)")]
pub fn experimental_set_strategy(vm: &dyn Vm, strategy: &Value) -> PyResult<()> {
    let st = state(vm);
    if in_replica_fn(vm) {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "Must not be called inside a `tf.distribute.Strategy` scope.",
        ));
    }
    let mut scopes = st.scopes.borrow_mut();
    // leave the scope a previous call entered, then refuse to run inside
    // any other scope, as TensorFlow does
    if st.global_scope.replace(false) && !scopes.is_empty() {
        scopes.remove(0);
    }
    if !scopes.is_empty() {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "Must not be called inside a `tf.distribute.Strategy` scope.",
        ));
    }
    match strategy {
        Value::None => {}
        v => {
            if v.downcast::<StrategyObj>().is_none() {
                return Err(PyErr::new(
                    ExcType::TypeError,
                    "experimental_set_strategy expects a tf.distribute.Strategy or None",
                ));
            }
            scopes.push(v.clone());
            st.global_scope.set(true);
        }
    }
    Ok(())
}
