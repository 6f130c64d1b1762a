//! The collectives of replica functions: what a replica asks for when it
//! parks ([`Request`]: all-reduce, all-gather, merge_call, a variable
//! update), and the merge step that runs once every replica has arrived
//! ([`merge_collectives`], through `Vm::collective`), with TensorFlow's
//! checks and errors.

use crate::distribute::context::{state, ReplicaRun};
use crate::distribute::nest::{is_structure, keywords, regroup, select_replica, zip_map};
use crate::distribute::reduce::{gather_tensors, reduce_tensors, tensor_on, value_bytes, Op};
use crate::distribute::strategy::{Kind, StrategyObj};
use crate::distribute::values::{components, DistKind, DistValues};
use crate::distribute::variables::{self, Agg};
use crate::object::numpy::array::NdArray;
use crate::object::tensor::convert::runtime_err;
use crate::object::types::namedtuple::NamedTuple;
use crate::object::ClassSpec;
use crate::runtime::{DType, Device, Tensor};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

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

/// The class of a replica's pending collective.
pub static COLLECTIVE: ClassSpec = ClassSpec::plain("collective", "builtins");

impl NativeObject for CollectiveReq {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&COLLECTIVE)
    }
}

/// Parks the running replica at a collective; names it in the error when a
/// replica never arrives.
pub fn park_request(vm: &dyn Vm, req: Request) -> PyResult<Value> {
    let name = req.name();
    vm.collective(Value::native(CollectiveReq(req)))
        .map_err(|e| e.into_pyerr(Some(name)))
}

fn is_per_replica(v: &Value) -> bool {
    v.downcast::<DistValues>()
        .is_some_and(|d| d.kind == DistKind::PerReplica)
}

/// A leaf of an all-reduce or all-gather: a tensor, a variable or a
/// PerReplica (TensorFlow reads its `dtype`).
fn leaf_tensor(v: &Value) -> PyResult<()> {
    match v {
        Value::Tensor(_) => Ok(()),
        Value::Native(_) if variables::is_variable(v) || is_per_replica(v) => Ok(()),
        Value::Native(_) if crate::object::tensor::indexed_slices::is_indexed_slices(v) => Ok(()),
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
        other => match other.downcast::<NamedTuple>() {
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

/// One field of every replica's request (all of the first one's kind;
/// None for another kind).
macro_rules! each {
    ($reqs:expr, $pattern:pat => $field:expr) => {
        $reqs
            .iter()
            .map(|r| match r {
                $pattern => $field.clone(),
                _ => Value::None,
            })
            .collect::<Vec<Value>>()
    };
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
    if !matches!(reqs[0], Request::MergeCall(..)) {
        crate::distribute::devices::shared_device_collective(vm, devices, first);
    }
    let _trace = crate::runtime::trace::collective(
        || trace_name(reqs[0]),
        devices.first().copied().unwrap_or_default(),
        reqs.len(),
        || trace_bytes(&reqs),
        !matches!(reqs[0], Request::MergeCall(..)),
    );
    match reqs[0] {
        Request::AllReduce(op, _) => {
            let values = each!(reqs, Request::AllReduce(_, v) => v);
            all_reduce_values(vm, run, *op, &values)
        }
        Request::VarUpdate(agg, _, _) => {
            let agg = *agg;
            let values = each!(reqs, Request::VarUpdate(_, v, _) => v);
            let raws = each!(reqs, Request::VarUpdate(_, _, raw) => raw);
            let op = match agg {
                Agg::Sum => Op::Sum,
                Agg::Mean => Op::Mean,
                // replica 0's value for everyone: `broadcast_to(
                // experimental_local_results(value)[0])`, whose local result of
                // a list or tuple is the whole structure (not a tensor)
                _ => {
                    if is_structure(&raws[0]) {
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
            let values = each!(reqs, Request::AllGather(v, _) => v);
            zip_map(&values, &|leaves| {
                for l in leaves {
                    leaf_tensor(l)?;
                }
                let t = gather_tensors(vm, leaves, axis, devices[0])?;
                devices
                    .iter()
                    .map(|d| Ok(Value::Tensor(t.copy_to(*d).map_err(runtime_err)?)))
                    .collect()
            })
        }
        Request::MergeCall(f, _, _) => {
            let args = regroup(&each!(reqs, Request::MergeCall(_, a, _) => a), false)?;
            let kwargs = regroup(&each!(reqs, Request::MergeCall(_, _, k) => k), false)?;
            let mut call_args = vec![run.strategy.clone()];
            call_args.extend(vm.collect(&args)?);
            let kw = keywords(&kwargs);
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
        // IndexedSlices are gathered, not added
        if let Some(r) =
            crate::distribute::sparse_reduce::reduce_sparse(vm, op, leaves, devices[0])?
        {
            return devices
                .iter()
                .map(|d| crate::distribute::sparse_reduce::value_on(vm, &r, *d))
                .collect();
        }
        check_same_shapes(vm, leaves, devices)?;
        let t = reduce_tensors(vm, op, leaves, devices[0])?;
        devices
            .iter()
            .map(|d| Ok(Value::Tensor(t.copy_to(*d).map_err(runtime_err)?)))
            .collect()
    })
}

/// `np.all(value == 0)` for a value that is not a tensor.
fn all_zero(v: &Value) -> bool {
    match v {
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Float(f) => *f == 0.0,
        other => other.downcast::<NdArray>().is_some_and(|a| {
            a.t.borrow()
                .to_scalars()
                .iter()
                .all(crate::runtime::Scalar::is_zero)
        }),
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
        if variables::is_distributed_variable(leaf) {
            if op == Op::Sum && variables::is_mirrored_variable(leaf) {
                // MirroredExtended._reduce_to's `assert not is_mirrored(value)`
                return Err(PyErr::new(ExcType::AssertionError, "")
                    .help("summing a MirroredVariable over the replicas is ambiguous: pass a value computed in each replica"));
            }
            continue;
        }
        let tf_type = matches!(leaf, Value::Tensor(_)) || variables::is_variable(leaf);
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
    value_bytes(&leaves)
}
