//! Replica and cross-replica contexts: `ReplicaContext` (the
//! `replica_id_in_sync_group`, `all_reduce`, `all_gather`, `merge_call` of a
//! replica function), `ValueContext`, the collectives' merge step (one call
//! per collective, once every replica has arrived, through
//! `Vm::collective`), and `tf.distribute.get_strategy` and friends.

use std::any::Any;
use std::rc::Rc;

use super::classes::{self, bound, method};
use super::context::{in_replica_fn, state, ReplicaRun};
use super::nest::{regroup, select_replica, zip_map};
use super::reduce::{gather_tensors, parse_op, reduce_tensors, tensor_on, Op};
use super::strategy::{current_strategy, default_strategy, strategy_class, Kind, StrategyObj};
use super::values::components;
use super::variables::Agg;
use crate::modules::ModuleBuilder;
use crate::object::numpy::array::NdArray;
use crate::object::tensor::convert::runtime_err;
use crate::runtime::{DType, Device, Tensor};
use crate::value::{Args, Class, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// The context of one replica inside `strategy.run` (or the default one).
pub struct ReplicaContext {
    /// The strategy running the replica.
    pub strategy: Value,
    /// The replica's index.
    pub replica: usize,
    /// The number of replicas.
    pub n: usize,
    /// The replica's device.
    pub device: Device,
    /// True for the default strategy's context.
    pub default: bool,
    /// True for MirroredStrategy (its class is `_MirroredReplicaContext`).
    pub mirrored: bool,
}

impl ReplicaContext {
    fn class_name(&self) -> &'static str {
        if self.default {
            "_DefaultReplicaContext"
        } else if self.mirrored {
            "_MirroredReplicaContext"
        } else {
            "_OneDeviceReplicaContext"
        }
    }
}

impl NativeObject for ReplicaContext {
    fn type_name(&self) -> &str {
        self.class_name()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn class(&self) -> Option<Rc<Class>> {
        Some(replica_context_class(self.class_name()))
    }
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let c = replica_context_class(self.class_name());
        Ok(format!(
            "<{}.{} object at {:#x}>",
            c.module,
            c.name,
            this.id()
        ))
    }
    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            // the default context's id is a Python int, a replica's a tensor
            "replica_id_in_sync_group" if self.default => Some(Value::Int(0)),
            "replica_id_in_sync_group" => {
                let t = Tensor::scalar(self.replica as i32)
                    .to_device(self.device)
                    .map_err(runtime_err)?;
                Some(Value::Tensor(t))
            }
            "num_replicas_in_sync" => Some(Value::Int(self.n as i64)),
            "strategy" => Some(self.strategy.clone()),
            // MirroredStrategy's is `[worker_devices_by_replica[id]]`, a list of lists
            "devices" if self.mirrored => Some(Value::list(vec![Value::list(vec![Value::str(
                self.device.full_name(),
            )])])),
            "devices" => Some(Value::tuple(vec![Value::str(self.device.full_name())])),
            _ => bound(&replica_context_class(self.class_name()), this, name),
        })
    }
}

/// `ValueContext`, given to `experimental_distribute_values_from_function`'s function.
pub struct ValueContext {
    /// The replica's index.
    pub replica: usize,
    /// The number of replicas.
    pub n: usize,
}

impl NativeObject for ValueContext {
    fn type_name(&self) -> &str {
        "ValueContext"
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn class(&self) -> Option<Rc<Class>> {
        Some(value_context_class())
    }
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<tensorflow.python.distribute.distribute_lib.ValueContext object at {:#x}>",
            this.id()
        ))
    }
    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "tf.distribute.ValueContext(replica id {},  total replicas in sync: {})",
            self.replica, self.n
        ))
    }
    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "replica_id_in_sync_group" => Some(Value::Int(self.replica as i64)),
            "num_replicas_in_sync" => Some(Value::Int(self.n as i64)),
            _ => None,
        })
    }
}

/// `tf.distribute.experimental.ValueContext(replica_id_in_sync_group=0, num_replicas_in_sync=1)`.
fn new_value_context(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    Ok(Value::native(ValueContext {
        replica: args.int(0)?.max(0) as usize,
        n: args.int(1)?.max(0) as usize,
    }))
}

/// The `ValueContext` class, constructible as in TensorFlow.
pub fn value_context_class() -> Rc<Class> {
    let c = classes::class("ValueContext");
    if c.dict.borrow().get("__new__").is_none() {
        classes::constructor(
            &c,
            "ValueContext(replica_id_in_sync_group=0, num_replicas_in_sync=1)",
            new_value_context,
            "What `experimental_distribute_values_from_function`'s function learns about its replica.",
        );
    }
    c
}

/// What a replica asks for at a collective.
pub enum Request {
    /// `all_reduce(op, value)`.
    AllReduce(Op, Value),
    /// `all_gather(value, axis)`.
    AllGather(Value, i64),
    /// `merge_call(merge_fn, args, kwargs)`.
    MergeCall(Value, Value, Value),
    /// A replica-context update of a MirroredVariable with this aggregation
    /// (SUM, MEAN or ONLY_FIRST_REPLICA): the update converted to a tensor,
    /// and the value as the replica passed it (whose identity across the
    /// replicas TensorFlow's merge_call looks at).
    VarUpdate(Agg, Value, Value),
}

impl Request {
    fn name(&self) -> &'static str {
        match self {
            Request::AllReduce(..) => "ReplicaContext.all_reduce",
            Request::AllGather(..) => "ReplicaContext.all_gather",
            Request::MergeCall(..) => "ReplicaContext.merge_call",
            Request::VarUpdate(..) => "a variable update",
        }
    }
}

/// The payload a replica parks with.
pub struct CollectiveReq(pub Request);

impl NativeObject for CollectiveReq {
    fn type_name(&self) -> &str {
        "collective"
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Parks the running replica at a collective; names it in the error when a
/// replica never arrives.
pub fn park_request(vm: &dyn Vm, req: Request) -> PyResult<Value> {
    let name = req.name();
    vm.collective(Value::native(CollectiveReq(req))).map_err(|e| {
        if e.is(ExcType::RuntimeError) {
            if let Some(Value::Str(msg)) = e.args().first() {
                if msg.contains("without reaching the collective that") {
                    let m = msg.replace("the collective that", &format!("the collective {name} that"));
                    return PyErr::new(ExcType::RuntimeError, m).help(format!(
                        "TensorFlow would hang here; every replica must call {name} the same number of times, in the same order"
                    ));
                }
            }
        }
        e
    })
}

fn leaf_tensor(v: &Value) -> PyResult<()> {
    match v {
        Value::Tensor(_) => Ok(()),
        Value::Native(n) if super::variables::is_variable(v) || n.type_name() == "PerReplica" => {
            Ok(())
        }
        other => Err(PyErr::new(
            ExcType::AttributeError,
            format!("'{}' object has no attribute 'dtype'", other.type_name()),
        )),
    }
}

/// The leaves of a nest (tuples, lists, dict values), in order.
fn leaves_of(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Tuple(t) => t.iter().for_each(|x| leaves_of(x, out)),
        Value::List(l) => l.borrow().iter().for_each(|x| leaves_of(x, out)),
        Value::Dict(d) => d
            .borrow()
            .items()
            .iter()
            .for_each(|(_, x)| leaves_of(x, out)),
        other => match other.downcast::<crate::object::types::namedtuple::NamedTuple>() {
            Some(nt) => nt.values().iter().for_each(|x| leaves_of(x, out)),
            None => out.push(other.clone()),
        },
    }
}

/// MirroredStrategy batches an all-reduce's tensors by where it reduces
/// them: int32 ones through the host (`ReductionToOneDevice`), the others
/// on the devices. One nest holding both is TensorFlow's ValueError.
fn check_one_reduction_place(vm: &dyn Vm, nest: &Value) -> PyResult<()> {
    let mut leaves = Vec::new();
    leaves_of(nest, &mut leaves);
    let mut first: Option<bool> = None;
    for l in &leaves {
        leaf_tensor(l)?;
        let dtype = match l {
            Value::Tensor(t) => Some(t.dtype()),
            Value::Native(n) => n.to_tensor(vm)?.map(|t| t.dtype()),
            _ => None,
        };
        let Some(dtype) = dtype else { continue };
        let int32 = dtype == DType::Int32;
        match first {
            None => first = Some(int32),
            Some(f) if f != int32 => {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    "Inputs to batch_reduce_to must be either all on the host or all on the compute devices.",
                )
                .help("MirroredStrategy reduces int32 tensors on the host and the others on the devices: all-reduce them in separate calls"))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// An all-reduce needs one shape on every replica (no broadcasting); a
/// mismatch aborts the collective with TensorFlow's message for the first
/// collective instance (its keys start at 100).
fn check_same_shapes(vm: &dyn Vm, leaves: &[Value], devices: &[Device]) -> PyResult<()> {
    let ts = leaves
        .iter()
        .map(|l| tensor_on(vm, l, devices[0]))
        .collect::<PyResult<Vec<_>>>()?;
    let dims = |t: &Tensor| {
        format!(
            "[{}]",
            t.dims()
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    if let Some(other) = ts.iter().find(|t| t.dims() != ts[0].dims()) {
        let d = devices[0].full_name();
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "{{{{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_{d}}}}} Collective ops is aborted by: Shape mismatch in the collective instance 100. Op at device {d} expected shape {} but another member in the group expected shape {}. This is likely due to different input shapes at different members of the collective op.\nThe error could be from a previous operation. Restart your program to reset. [Op:CollectiveReduceV2] name: ",
                dims(&ts[0]),
                dims(other)
            ),
        )
        .help("every replica must all-reduce tensors of the same shape"));
    }
    Ok(())
}

/// Runs one collective once every replica has parked: checks they all
/// asked for the same thing and computes each replica's result.
pub fn merge_collectives(
    vm: &dyn Vm,
    run: &ReplicaRun,
    payloads: Vec<Value>,
) -> PyResult<Vec<Value>> {
    let reqs: Vec<&Request> = payloads
        .iter()
        .map(|p| p.downcast::<CollectiveReq>().map(|c| &c.0))
        .collect::<Option<_>>()
        .ok_or_else(|| PyErr::new(ExcType::RuntimeError, "unknown collective"))?;
    let first = reqs[0].name();
    if let Some((i, r)) = reqs.iter().enumerate().find(|(_, r)| r.name() != first) {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            format!("replica 0 called {first} while replica {i} called {}; every replica must reach the same collectives in the same order", r.name()),
        ));
    }
    let devices = &run.devices;
    let _trace = crate::runtime::trace::collective(
        || trace_name(reqs[0]),
        devices.first().copied().unwrap_or_default(),
        reqs.len(),
        || trace_bytes(&reqs),
        !matches!(reqs[0], Request::MergeCall(..)),
    );
    match reqs[0] {
        Request::AllReduce(op, _) => {
            let values: Vec<Value> = reqs
                .iter()
                .map(|r| {
                    if let Request::AllReduce(_, v) = r {
                        v.clone()
                    } else {
                        Value::None
                    }
                })
                .collect();
            all_reduce_values(vm, run, *op, &values)
        }
        Request::VarUpdate(agg, _, _) => {
            let agg = *agg;
            let (values, raws): (Vec<Value>, Vec<Value>) = reqs
                .iter()
                .map(|r| {
                    if let Request::VarUpdate(_, v, raw) = r {
                        (v.clone(), raw.clone())
                    } else {
                        (Value::None, Value::None)
                    }
                })
                .unzip();
            let op = match agg {
                Agg::Sum => Op::Sum,
                Agg::Mean => Op::Mean,
                // replica 0's value for everyone: `broadcast_to(
                // experimental_local_results(value)[0])`, whose local result of
                // a list or tuple is the whole structure (not a tensor)
                _ => {
                    if super::nest::is_structure(&raws[0]) {
                        return Err(PyErr::new(
                            ExcType::AttributeError,
                            format!("'{}' object has no attribute 'dtype'", raws[0].type_name()),
                        )
                        .help("an ONLY_FIRST_REPLICA variable is updated from a tensor: wrap the value in tf.constant(...)"));
                    }
                    return Ok(vec![values[0].clone(); devices.len()]);
                }
            };
            check_non_distributed(vm, op, &raws)?;
            all_reduce_values(vm, run, op, &values)
        }
        Request::AllGather(_, axis) => {
            let axis = *axis;
            let values: Vec<Value> = reqs
                .iter()
                .map(|r| {
                    if let Request::AllGather(v, _) = r {
                        v.clone()
                    } else {
                        Value::None
                    }
                })
                .collect();
            zip_map(&values, &|leaves| {
                for l in leaves {
                    leaf_tensor(l)?;
                }
                let t = gather_tensors(vm, leaves, axis, devices[0])?;
                devices
                    .iter()
                    .map(|d| Ok(Value::Tensor(t.to_device(*d).map_err(runtime_err)?)))
                    .collect()
            })
        }
        Request::MergeCall(f, _, _) => {
            let args: Vec<Value> = reqs
                .iter()
                .map(|r| {
                    if let Request::MergeCall(_, a, _) = r {
                        a.clone()
                    } else {
                        Value::None
                    }
                })
                .collect();
            let kwargs: Vec<Value> = reqs
                .iter()
                .map(|r| {
                    if let Request::MergeCall(_, _, k) = r {
                        k.clone()
                    } else {
                        Value::None
                    }
                })
                .collect();
            let args = regroup(&args, false)?;
            let kwargs = regroup(&kwargs, false)?;
            let mut call_args = vec![run.strategy.clone()];
            call_args.extend(vm.collect(&args)?);
            let mut kw = Vec::new();
            if let Value::Dict(d) = &kwargs {
                for (k, v) in d.borrow().items() {
                    if let Value::Str(s) = k {
                        kw.push((Rc::from(s.as_str()), v));
                    }
                }
            }
            let st = state(vm);
            st.merge_depth.set(st.merge_depth.get() + 1);
            let r = vm.call(f, call_args, kw);
            st.merge_depth.set(st.merge_depth.get() - 1);
            let r = r?;
            (0..devices.len()).map(|i| select_replica(i, &r)).collect()
        }
    }
}

/// Every replica's values all-reduced with `op` (one result per replica, on
/// its device).
fn all_reduce_values(
    vm: &dyn Vm,
    run: &ReplicaRun,
    op: Op,
    values: &[Value],
) -> PyResult<Vec<Value>> {
    let devices = &run.devices;
    if run
        .strategy
        .downcast::<StrategyObj>()
        .is_some_and(|s| s.kind == Kind::Mirrored)
    {
        check_one_reduction_place(vm, &values[0])?;
    }
    zip_map(values, &|leaves| {
        for l in leaves {
            leaf_tensor(l)?;
        }
        check_same_shapes(vm, leaves, devices)?;
        let t = reduce_tensors(vm, op, leaves, devices[0])?;
        devices
            .iter()
            .map(|d| Ok(Value::Tensor(t.to_device(*d).map_err(runtime_err)?)))
            .collect()
    })
}

/// `np.all(value == 0)` for a value that is not a tensor.
fn all_zero(v: &Value) -> bool {
    match v {
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Float(f) => *f == 0.0,
        other => other
            .downcast::<NdArray>()
            .is_some_and(|a| a.t.borrow().to_scalars().iter().all(|e| e.as_f64() == 0.0)),
    }
}

/// TensorFlow's merge_call regroups the replicas' update values, and
/// `reduce_to` then reduces each leaf; a leaf that is one object in every
/// replica (a Python number, a tensor captured from outside the replica
/// function, the variable itself) is not a `PerReplica` and goes through
/// `reduce_non_distributed_value`: zeros that are not tensors become
/// `np.zeros(value.shape)` (Python numbers have no `shape`), MEAN keeps the
/// value, and SUM over several replicas is a ValueError (the sum of one
/// value on every replica is ambiguous).
fn check_non_distributed(vm: &dyn Vm, op: Op, raws: &[Value]) -> PyResult<()> {
    let grouped = regroup(raws, false)?;
    let mut leaves = Vec::new();
    leaves_of(&grouped, &mut leaves);
    for leaf in &leaves {
        if components(leaf).is_some() {
            continue;
        }
        if super::variables::is_distributed_variable(leaf) {
            if op == Op::Sum && super::variables::is_mirrored_variable(leaf) {
                // MirroredExtended._reduce_to's `assert not is_mirrored(value)`
                return Err(PyErr::new(ExcType::AssertionError, "")
                    .help("summing a MirroredVariable over the replicas is ambiguous: pass a value computed in each replica"));
            }
            continue;
        }
        let tf_type = matches!(leaf, Value::Tensor(_)) || super::variables::is_variable(leaf);
        if !tf_type && all_zero(leaf) {
            if leaf.downcast::<NdArray>().is_some() {
                continue;
            }
            return Err(PyErr::new(
                ExcType::AttributeError,
                format!("'{}' object has no attribute 'shape'", leaf.type_name()),
            )
            .help("TensorFlow's reduction of a zero every replica passes expects a numpy value: pass np.zeros(...) or a tensor, or skip the update"));
        }
        if op == Op::Mean || raws.len() == 1 {
            continue;
        }
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "A non-DistributedValues value {} cannot be reduced with the given reduce op ReduceOp.SUM.",
                vm.str(leaf)?
            ),
        )
        .help("every replica passed the same value to a SUM-aggregated variable: compute the update inside the replica function, or use MEAN aggregation"));
    }
    Ok(())
}

/// The collective's name in `--trace` output.
fn trace_name(req: &Request) -> String {
    match req {
        Request::AllReduce(op, _) => format!("all_reduce {}", op.name()),
        Request::AllGather(_, axis) => format!("all_gather axis={axis}"),
        Request::MergeCall(..) => "merge_call".into(),
        Request::VarUpdate(..) => "variable update".into(),
    }
}

/// The bytes of the tensors the replicas bring to a collective (`--trace`).
fn trace_bytes(reqs: &[&Request]) -> u64 {
    let mut leaves = Vec::new();
    for r in reqs {
        match r {
            Request::AllReduce(_, v) | Request::AllGather(v, _) | Request::VarUpdate(_, v, _) => {
                leaves_of(v, &mut leaves)
            }
            Request::MergeCall(_, args, kwargs) => {
                leaves_of(args, &mut leaves);
                leaves_of(kwargs, &mut leaves);
            }
        }
    }
    super::reduce::value_bytes(&leaves)
}

fn ctx_of(v: &Value) -> PyResult<&ReplicaContext> {
    v.downcast::<ReplicaContext>()
        .ok_or_else(|| PyErr::new(ExcType::TypeError, "expected a ReplicaContext"))
}

fn check_active(vm: &dyn Vm, c: &ReplicaContext, what: &str) -> PyResult<()> {
    if c.default {
        return Ok(());
    }
    if vm.current_replica() != Some(c.replica) {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            format!("ReplicaContext.{what} must be called in its replica function (inside strategy.run)"),
        )
        .help("this code runs in a cross-replica context: use strategy.reduce / strategy.gather here"));
    }
    Ok(())
}

fn all_reduce(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let c = ctx_of(args.get(0))?;
    check_active(vm, c, "all_reduce")?;
    let op = parse_op(vm, args.get(1))?;
    if c.default {
        return Ok(args.get(2).clone());
    }
    park_request(vm, Request::AllReduce(op, args.get(2).clone()))
}

fn all_gather(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let c = ctx_of(args.get(0))?;
    check_active(vm, c, "all_gather")?;
    let axis = match args.get(2) {
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
    if c.default {
        return Ok(args.get(1).clone());
    }
    park_request(vm, Request::AllGather(args.get(1).clone(), axis))
}

fn merge_call(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let c = ctx_of(args.get(0))?;
    check_active(vm, c, "merge_call")?;
    let a = match args.get(2) {
        Value::None => Value::tuple(Vec::new()),
        Value::Tuple(_) => args.get(2).clone(),
        v => Value::tuple(vm.collect(v)?),
    };
    let kw = match args.get(3) {
        Value::None => Value::dict(crate::value::Dict::new()),
        v => v.clone(),
    };
    if c.default {
        let mut call_args = vec![c.strategy.clone()];
        call_args.extend(vm.collect(&a)?);
        let mut kws = Vec::new();
        if let Value::Dict(d) = &kw {
            for (k, v) in d.borrow().items() {
                if let Value::Str(s) = k {
                    kws.push((Rc::from(s.as_str()), v));
                }
            }
        }
        return vm.call(args.get(1), call_args, kws);
    }
    park_request(vm, Request::MergeCall(args.get(1).clone(), a, kw))
}

/// `ReplicaContext._update(var, fn, args=(), kwargs=None, group=True)`:
/// a `merge_call` whose function runs `strategy.extended.update(var, fn,
/// args, kwargs, group)` on the merged arguments (TensorFlow's
/// `_replica_ctx_update`).
fn replica_update(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let c = ctx_of(args.get(0))?;
    check_active(vm, c, "_update")?;
    let closure = Value::tuple(vec![
        args.get(1).clone(),
        args.get(2).clone(),
        args.get(5).clone(),
    ]);
    let merge_fn = UPDATE_MERGE_FN.with(|f| f.bind(closure));
    let ctx = args.get(0).clone();
    let merge = vm.getattr(&ctx, "merge_call")?;
    vm.call(
        &merge,
        vec![merge_fn, args.get(3).clone(), args.get(4).clone()],
        Vec::new(),
    )
}

/// The merge function of `_update`, bound to `(var, fn, group)`.
fn update_merge_fn(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let closure = vm.collect(args.get(0))?;
    let extended = vm.getattr(args.get(1), "extended")?;
    let update = vm.getattr(&extended, "update")?;
    vm.call(
        &update,
        vec![
            closure[0].clone(),
            closure[1].clone(),
            args.get(2).clone(),
            args.get(3).clone(),
            closure[2].clone(),
        ],
        Vec::new(),
    )
}

thread_local! {
    static UPDATE_MERGE_FN: Rc<crate::value::NativeFunction> = crate::value::NativeFunction::new(
        "merge_fn(self, strategy, *merged_args, **merged_kwargs)",
        update_merge_fn,
        "Runs `strategy.extended.update` on the merged arguments of `ReplicaContext._update`.",
    );
}

/// Method signatures carry TensorFlow's defining class (`ReplicaContextBase`
/// for all_reduce and merge_call), which names them in argument errors.
fn replica_context_class(name: &'static str) -> Rc<Class> {
    let c = classes::class(name);
    if c.dict.borrow().get("all_reduce").is_none() {
        method(
            &c,
            "ReplicaContextBase.all_reduce(self, reduce_op, value, options=None)",
            all_reduce,
            "Reduces `value` (a nest of tensors) across replicas; every replica gets the result.",
        );
        method(
            &c,
            "ReplicaContext.all_gather(self, value, axis, options=None)",
            all_gather,
            "Concatenates every replica's `value` along `axis`; every replica gets the result.",
        );
        method(&c, "ReplicaContextBase.merge_call(self, merge_fn, args=(), kwargs=None)", merge_call, "Calls `merge_fn(strategy, *args)` once, in cross-replica context, with the replicas' arguments regrouped.");
        method(
            &c,
            "ReplicaContext._update(self, var, fn, args=(), kwargs=None, group=True)",
            replica_update,
            "Updates `var` with `fn(var, *args)` on each of its devices, from replica context.",
        );
    }
    c
}

/// The replica context of the running replica, if inside a replica function.
pub fn current_replica_context(vm: &dyn Vm) -> Option<Value> {
    let i = vm.current_replica()?;
    let st = state(vm);
    let run = st.run.borrow().clone()?;
    let mirrored = run
        .strategy
        .downcast::<StrategyObj>()
        .is_some_and(|s| s.kind == super::strategy::Kind::Mirrored);
    Some(Value::native(ReplicaContext {
        strategy: run.strategy.clone(),
        replica: i,
        n: run.devices.len(),
        device: run.devices[i],
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

fn get_strategy(vm: &dyn Vm, _args: &Args) -> PyResult<Value> {
    Ok(current_strategy(vm))
}

fn has_strategy(vm: &dyn Vm, _args: &Args) -> PyResult<Value> {
    let st = state(vm);
    Ok(Value::Bool(
        !st.scopes.borrow().is_empty() || st.run.borrow().is_some(),
    ))
}

fn in_cross_replica_context(vm: &dyn Vm, _args: &Args) -> PyResult<Value> {
    Ok(Value::Bool(in_cross_replica(vm)))
}

fn get_replica_context(vm: &dyn Vm, _args: &Args) -> PyResult<Value> {
    if let Some(c) = current_replica_context(vm) {
        return Ok(c);
    }
    if in_cross_replica(vm) {
        return Ok(Value::None);
    }
    Ok(Value::native(ReplicaContext {
        strategy: default_strategy(vm),
        replica: 0,
        n: 1,
        device: Device::CPU0,
        default: true,
        mirrored: false,
    }))
}

fn experimental_set_strategy(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
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
    match args.get(0) {
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
    Ok(Value::None)
}

/// Registers the context functions under `tf.distribute`.
pub fn register(m: &mut ModuleBuilder) {
    m.function(
        "get_strategy()",
        get_strategy,
        "The current strategy: the innermost scope's, else the default strategy.",
    );
    m.function(
        "has_strategy()",
        has_strategy,
        "Whether a strategy scope (other than the default) is active.",
    );
    m.function(
        "in_cross_replica_context()",
        in_cross_replica_context,
        "True inside a strategy scope, outside replica functions.",
    );
    m.function(
        "get_replica_context()",
        get_replica_context,
        "The ReplicaContext in a replica function; None in a cross-replica context.",
    );
    m.function(
        "experimental_set_strategy(strategy)",
        experimental_set_strategy,
        "Enters `strategy`'s scope for the rest of the program (None leaves it).",
    );
    m.value(
        "ReplicaContext",
        Value::Class(replica_context_class("ReplicaContext")),
    );
    let _ = strategy_class;
}
