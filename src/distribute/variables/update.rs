//! Updating variables: `assign`, `assign_add` and `assign_sub` (in a
//! replica function, a MirroredVariable's update is a collective: the
//! replicas' values are aggregated first), reading them, and the
//! per-component updates of `strategy.extended.update`.

use super::{assert_own_strategy, is_variable, local_values, plain, read_any, Agg, DistVar};
use super::{PlainVar, VarCell};
use crate::distribute::nest::{map_nest, regroup_with, select_replica, SplitArgs};
use crate::distribute::replica_ctx::{park_request, Request};
use crate::distribute::values::{components, mirrored};
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::{native, Member};
use crate::runtime::{ops, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};
use std::rc::Rc;

/// The methods of every variable class. They carry `ResourceVariable`'s
/// name (which starts the binder's messages) in distributed variables too.
pub(super) const VARIABLE_METHODS: &[Member] = &[
    Member::Method(assign::DEF),
    Member::Method(assign_add::DEF),
    Member::Method(assign_sub::DEF),
    Member::Method(read_value::DEF),
    Member::Method(value::DEF),
    Member::Method(numpy::DEF),
    Member::Method(get_shape::DEF),
    Member::Method(super::scatter::scatter_add::DEF),
    Member::Method(super::scatter::scatter_sub::DEF),
    Member::Method(super::scatter::scatter_update::DEF),
    Member::Method(super::scatter::sparse_read::DEF),
];

#[derive(Clone, Copy)]
enum Upd {
    Assign,
    Add,
    Sub,
}

fn apply(vm: &dyn Vm, cell: &Rc<VarCell>, how: Upd, delta: &Value) -> PyResult<Tensor> {
    let old = super::traced_value(cell);
    // `convert_to_tensor(delta, dtype=var.dtype)`: Python numbers, lists and
    // numpy values convert; a tensor (or variable) of another dtype is
    // TensorFlow's ValueError, never a silent cast.
    let d = to_tensor(vm, delta, Some(old.dtype()))?;
    let d = d.to_device(cell.device).map_err(runtime_err)?;
    let new = match how {
        Upd::Assign => {
            let fits = match &cell.shape {
                Some(s) => crate::runtime::graph::shapes::fits(s, d.dims()),
                None => d.dims() == old.dims(),
            };
            if !fits {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    format!(
                        "Cannot assign value to variable ' {}': Shape mismatch.The variable shape {}, and the assigned value shape {} are incompatible.",
                        cell.name,
                        cell.shape_text(&old),
                        d.shape().tuple_text()
                    ),
                ));
            }
            d
        }
        Upd::Add | Upd::Sub if d.dims() != old.dims() => {
            // AssignAddVariableOp / AssignSubVariableOp do not broadcast
            let op = if matches!(how, Upd::Add) {
                "AssignAddVariableOp"
            } else {
                "AssignSubVariableOp"
            };
            let dims = |t: &Tensor| {
                let d: Vec<String> = t.dims().iter().map(|x| x.to_string()).collect();
                format!("[{}]", d.join(","))
            };
            return Err(runtime_err(crate::runtime::ops::kernel_error(
                op,
                &cell.device,
                &format!(
                    "Cannot update variable with shape {} using a Tensor with shape {}, shapes must be equal.",
                    dims(&old),
                    dims(&d)
                ),
                " name: ",
            )));
        }
        Upd::Add => ops::add(&old, &d).map_err(runtime_err)?,
        Upd::Sub => ops::sub(&old, &d).map_err(runtime_err)?,
    };
    Ok(store(cell, new))
}

/// Makes `new` the variable's value (in a trace, the graph's assignment).
pub(super) fn store(cell: &Rc<VarCell>, new: Tensor) -> Tensor {
    if crate::runtime::graph::tracing() {
        crate::runtime::graph::assign_variable(&|| cell.clone(), Rc::as_ptr(cell) as usize, &new);
        if crate::distribute::function::trace::dry() {
            // traced without running (`get_concrete_function`)
            return new;
        }
    }
    // the value is the variable's state from now on: a later read is a new
    // `ReadVariableOp`, not the op that computed it (an assignment passes
    // no gradient, as in TensorFlow)
    let kept = if crate::runtime::autodiff::tape::active() {
        crate::runtime::autodiff::tape::detached(&new)
    } else {
        super::untraced(new.clone())
    };
    *cell.value.borrow_mut() = kept;
    new
}

/// `assign`, `assign_add` or `assign_sub` of `value` to the variable `this`.
fn update(vm: &dyn Vm, this: &Value, value: &Value, read_value: bool, how: Upd) -> PyResult<Value> {
    if let Some(p) = this.downcast::<PlainVar>() {
        apply(vm, &p.cell, how, value)?;
        return Ok(if read_value {
            plain(&p.cell, p.agg, p.sync, true)
        } else {
            Value::None
        });
    }
    let Some(d) = this.downcast::<DistVar>() else {
        return Err(PyErr::new(ExcType::TypeError, "expected a tf.Variable"));
    };
    assert_own_strategy(vm, d)?;
    if let Some(i) = vm.current_replica() {
        let cell = d.comps[i.min(d.comps.len() - 1)].clone();
        if d.on_read || d.agg == Agg::None {
            // the replica's own copy: its UnreadVariable
            apply(vm, &cell, how, value)?;
            return Ok(if read_value {
                plain(&cell, d.agg, d.sync, true)
            } else {
                Value::None
            });
        }
        // Python numbers take the variable's dtype before the all-reduce;
        // tensors are reduced as they are and checked after (TensorFlow's
        // error shows the reduced tensor).
        let want = match value {
            Value::Tensor(_) => None,
            v if is_variable(v) => None,
            _ => Some(cell.value.borrow().dtype()),
        };
        let v = Value::Tensor(to_tensor(vm, value, want)?);
        let delta = park_request(vm, Request::VarUpdate(d.agg, v, value.clone()))?;
        let new = apply(vm, &cell, how, &delta)?;
        // TensorFlow updates every copy in a merge_call, through
        // `extended.update(group=True)`: each replica gets its copy's new
        // value as a tensor (`update_regroup`'s identity), or with a single
        // copy its UnreadVariable.
        return Ok(if !read_value {
            Value::None
        } else if d.comps.len() > 1 {
            Value::Tensor(new)
        } else {
            plain(&cell, d.agg, d.sync, true)
        });
    }
    if d.on_read {
        if d.agg == Agg::Sum && !matches!(how, Upd::Assign) {
            // values_util.on_read_assign_{add,sub}_cross_replica: adding to
            // every copy would add the delta once per replica to the sum
            let op = if matches!(how, Upd::Add) {
                "assign_add"
            } else {
                "assign_sub"
            };
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("SyncOnReadVariable does not support `{op}` in cross-replica context when aggregation is set to `tf.VariableAggregation.SUM`."),
            ));
        }
        let n = d.comps.len() as i64;
        let share = match (how, d.agg) {
            (Upd::Assign, Agg::Sum) => {
                // values_util.assign_on_each_device's SUM split:
                // `cast(value / num_replicas, var.dtype)` (casts any dtype),
                // which a distributed value does not support
                if components(value).is_some() {
                    return Err(PyErr::new(
                        ExcType::TypeError,
                        format!(
                            "unsupported operand type(s) for /: '{}' and 'int'",
                            value.type_name()
                        ),
                    ));
                }
                let t = to_tensor(vm, value, None)?;
                let nt = Tensor::fill(&[], &crate::runtime::Scalar::Int(n), t.dtype(), t.device())
                    .map_err(runtime_err)?;
                let share = ops::truediv(&t, &nt).map_err(runtime_err)?;
                let dtype = d.comps[0].value.borrow().dtype();
                Value::Tensor(ops::cast(&share, dtype).map_err(runtime_err)?)
            }
            _ => value.clone(),
        };
        for c in &d.comps {
            apply(vm, c, how, &share)?;
        }
        return Ok(if read_value {
            Value::Tensor(d.read(vm)?)
        } else {
            Value::None
        });
    }
    // TensorFlow's `extended.update` here: each copy gets its own component
    // of a distributed value (no reduction, whatever the aggregation)
    let mut news = Vec::new();
    for (i, c) in d.comps.iter().enumerate() {
        apply(vm, c, how, &select_replica(i, value)?)?;
        news.push(if read_value {
            plain(c, d.agg, d.sync, true)
        } else {
            Value::None
        });
    }
    update_regroup(vm, &news, true)
}

/// Sets the variable's value.
#[native("ResourceVariable.assign(self, value, use_locking=None, name=None, read_value=True)")]
fn assign(
    vm: &dyn Vm,
    this: &Value,
    value: &Value,
    _use_locking: &Value,
    _name: &Value,
    read_value: bool,
) -> PyResult<Value> {
    update(vm, this, value, read_value, Upd::Assign)
}

/// Adds `delta` to the variable.
#[native("ResourceVariable.assign_add(self, delta, use_locking=None, name=None, read_value=True)")]
fn assign_add(
    vm: &dyn Vm,
    this: &Value,
    delta: &Value,
    _use_locking: &Value,
    _name: &Value,
    read_value: bool,
) -> PyResult<Value> {
    update(vm, this, delta, read_value, Upd::Add)
}

/// Subtracts `delta` from the variable.
#[native("ResourceVariable.assign_sub(self, delta, use_locking=None, name=None, read_value=True)")]
fn assign_sub(
    vm: &dyn Vm,
    this: &Value,
    delta: &Value,
    _use_locking: &Value,
    _name: &Value,
    read_value: bool,
) -> PyResult<Value> {
    update(vm, this, delta, read_value, Upd::Sub)
}

/// The variable's value as a tensor (in a traced graph, the
/// `Identity` of a read).
#[native("ResourceVariable.read_value(self)")]
fn read_value(vm: &dyn Vm, this: &Value) -> PyResult<Tensor> {
    use crate::runtime::graph;
    let Some((g, _)) = graph::enter_scope("Read") else {
        return value(vm, this);
    };
    let t = value(vm, this);
    graph::exit_scope(&g);
    Ok(crate::runtime::autodiff::tape::identity_op(&t?))
}

/// The variable's value as a tensor.
#[native("ResourceVariable.value(self)")]
fn value(vm: &dyn Vm, this: &Value) -> PyResult<Tensor> {
    if let Some(d) = this.downcast::<DistVar>() {
        assert_own_strategy(vm, d)?;
    }
    read_any(vm, this)
}

/// The variable's value as a numpy value.
#[native("ResourceVariable.numpy(self)")]
fn numpy(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    if crate::runtime::graph::tracing() {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "numpy() is only available when eager execution is enabled.",
        ));
    }
    if let Some(d) = this.downcast::<DistVar>() {
        assert_own_strategy(vm, d)?;
    }
    let t = Value::Tensor(read_any(vm, this)?);
    let f = vm.getattr(&t, "numpy")?;
    vm.call(&f, Vec::new(), Vec::new())
}

/// The variable's shape.
#[native("ResourceVariable.get_shape(self)")]
fn get_shape(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    vm.getattr(&Value::Tensor(read_any(vm, this)?), "shape")
}

/// `strategy.extended.update(var, fn, args, kwargs, group)`: `fn(component,
/// *args)` per component, the results regrouped by [`update_regroup`].
pub fn update_with_fn(
    vm: &dyn Vm,
    var: &Value,
    f: &Value,
    args: &Value,
    kwargs: &Value,
    group: bool,
) -> PyResult<Value> {
    let comps = match local_values(var) {
        Some(c) => c,
        None => vec![var.clone()],
    };
    let split = SplitArgs::new(vm, args, kwargs)?;
    let mut out = Vec::new();
    for (i, c) in comps.into_iter().enumerate() {
        let (rest, kw) = split.select(i)?;
        let a = std::iter::once(c).chain(rest).collect();
        out.push(vm.call(f, a, kw)?);
    }
    update_regroup(vm, &out, group)
}

/// TensorFlow's `distribute_utils.update_regroup`: the per-copy results of
/// an update regrouped (an object every copy returned stays itself). With
/// `group`, differing leaves become a `Mirrored` of tensors (the results
/// read through `identity`) when they all are tensors or variables, else
/// `None` (the eager `tf.group`); a single copy's result is itself. Without
/// `group`, every leaf becomes the tuple of its per-copy values (its
/// `_local_results`).
pub fn update_regroup(vm: &dyn Vm, updates: &[Value], group: bool) -> PyResult<Value> {
    if !group {
        let regrouped = regroup_with(updates, false, &mut |vs| Ok(mirrored(vs)))?;
        return map_nest(&regrouped, &mut |leaf| {
            Ok(match components(leaf) {
                Some(c) => Value::tuple(c.to_vec()),
                None => match local_values(leaf) {
                    Some(c) => Value::tuple(c),
                    None => Value::tuple(vec![leaf.clone()]),
                },
            })
        });
    }
    regroup_with(updates, false, &mut |vs| {
        if vs.len() == 1 {
            return Ok(mirrored(vs));
        }
        if !vs
            .iter()
            .all(|v| matches!(v, Value::Tensor(_)) || is_variable(v))
        {
            return Ok(Value::None);
        }
        let ts = vs
            .iter()
            .map(|v| Ok(Value::Tensor(to_tensor(vm, v, None)?)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(mirrored(ts))
    })
}
