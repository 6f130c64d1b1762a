//! Creating variables: `tf.Variable(...)` makes a plain variable, or in a
//! MirroredStrategy scope a distributed one with a copy on each replica's
//! device (TensorFlow's checks of synchronization and aggregation).

use std::cell::RefCell;
use std::rc::Rc;

use super::enums::{agg_is_v1, parse_agg, parse_sync};
use super::{Agg, DistVar, Sync, VarCell};
use crate::distribute::context::{current_device, in_replica_fn, state};
use crate::distribute::strategy::{Flavor, Kind, StrategyObj};
use crate::object::native;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::runtime::{ops, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// A variable: mutable state. In a MirroredStrategy scope, one component per replica.
/// The `shape=` argument: TensorFlow's error where the initial value does
/// not fit it; the declared shape where it is less specific than the
/// value's (a variable whose shape may change on assignment).
fn check_shape(vm: &dyn Vm, t: &Tensor, shape: &Value) -> PyResult<Option<StaticShape>> {
    use crate::object::tensor::shape::{shape_arg, shape_text, subtype};
    if shape.is_none() {
        return Ok(None);
    }
    let want = shape_arg(vm, shape)?;
    let have: Vec<Option<usize>> = t.dims().iter().map(|&d| Some(d)).collect();
    if !subtype(Some(&have), want.as_deref()) {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "In this `tf.Variable` creation, the initial value's shape ({}) is not compatible with the explicitly supplied `shape` argument ({}).",
                shape_text(Some(&have)),
                vm.str(shape)?
            ),
        ));
    }
    Ok((want.as_ref() != Some(&have)).then_some(want))
}

use crate::runtime::graph::shapes::StaticShape;

#[native("Variable.__init__(initial_value=None, trainable=None, validate_shape=True, caching_device=None, name=None, variable_def=None, dtype=None, import_scope=None, constraint=None, synchronization=None, aggregation=None, shape=None, experimental_enable_variable_lifting=True)")]
#[expect(clippy::too_many_arguments, reason = "the Python signature has them")]
pub(super) fn variable_new(
    vm: &dyn Vm,
    initial_value: &Value,
    trainable: Option<&Value>,
    _validate_shape: &Value,
    _caching_device: &Value,
    name: Option<&Value>,
    _variable_def: &Value,
    dtype: Option<&Value>,
    _import_scope: &Value,
    constraint: &Value,
    synchronization: Option<&Value>,
    aggregation: Option<&Value>,
    shape: &Value,
    _experimental_enable_variable_lifting: &Value,
) -> PyResult<Value> {
    let mut init = initial_value.clone();
    if init.is_none() {
        return Err(PyErr::new(
            ExcType::ValueError,
            "initial_value must be specified.",
        ));
    }
    if matches!(
        init,
        Value::Function(_) | Value::BoundMethod(_) | Value::NativeFunction(_)
    ) {
        init = vm.call(&init, Vec::new(), Vec::new())?;
    }
    let dtype = match dtype {
        None => None,
        Some(d) => Some(dtype_of(vm, d)?),
    };
    let t = match dtype {
        // Python values convert straight to the dtype (`[0.2]` as float64
        // is 0.2, not the float32 nearest it); tensors and arrays cast
        Some(d) if !matches!(init, Value::Tensor(_) | Value::Native(_)) => {
            to_tensor(vm, &init, Some(d))?
        }
        Some(d) => {
            let t = to_tensor(vm, &init, None)?;
            if t.dtype() == d {
                t
            } else {
                ops::cast(&t, d).map_err(runtime_err)?
            }
        }
        None => to_tensor(vm, &init, None)?,
    };
    let declared = check_shape(vm, &t, shape)?;
    // kept for `v.constraint` (optimizers apply it; the variable does not)
    if !constraint.is_none() && !crate::object::types::protocol::is_callable(vm, constraint) {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "Argument `constraint` must be None or a callable. a callable. Got a {}:  {}",
                vm.repr(&vm.type_of(constraint))?,
                vm.str(constraint)?
            ),
        ));
    }
    crate::distribute::function::trace::note_variable_created()?;
    let base = match name {
        None => "Variable".to_string(),
        Some(Value::Str(s)) => s.to_string(),
        Some(v) => vm.str(v)?,
    };
    let base = crate::distribute::name_scope::scoped(vm, &base);
    let sync = match synchronization {
        None => Sync::Auto,
        Some(v) => parse_sync(v)?,
    };
    let agg = match aggregation {
        None => Agg::None,
        Some(v) => parse_agg(v)?,
    };
    let agg_v1 = agg_is_v1(aggregation);
    let trainable = match trainable {
        None => sync != Sync::OnRead,
        Some(v) => vm.truthy(v)?,
    };
    let st = state(vm);
    let scope = st.scopes.borrow().last().cloned();
    let strategy = scope.as_ref().and_then(|s| {
        s.downcast::<StrategyObj>()
            .map(|s| (s.kind, s.devices.clone(), s.flavor.clone()))
    });
    match strategy {
        Some((Kind::Mirrored, devices, flavor))
            if !in_replica_fn(vm) && !matches!(flavor, Flavor::CentralStorage { .. }) =>
        {
            // MirroredStrategy resolves AUTO to ON_WRITE and refuses NONE
            // (`values_util.validate_synchronization_aggregation_trainable`).
            let sync = match sync {
                Sync::Auto => Sync::OnWrite,
                Sync::None => {
                    let name = match name {
                        None => "None".to_string(),
                        Some(v) => vm.str(v)?,
                    };
                    return Err(PyErr::new(
                        ExcType::ValueError,
                        format!("`NONE` variable synchronization mode is not supported with tf.distribute strategy. Please change the `synchronization` for variable: {name}"),
                    ));
                }
                s => s,
            };
            let mut comps = Vec::new();
            for (i, d) in devices.iter().enumerate() {
                let name = if i == 0 {
                    format!("{base}:0")
                } else {
                    format!("{base}/replica_{i}:0")
                };
                let value = lifted(&t, *d)?;
                comps.push(Rc::new(VarCell {
                    name,
                    value: RefCell::new(super::untraced(value)),
                    device: *d,
                    trainable,
                    agg_v1,
                    constraint: constraint.clone(),
                    container: RefCell::new(std::rc::Weak::new()),
                    own: RefCell::new(std::rc::Weak::new()),
                    shape: declared.clone(),
                }));
            }
            let var = Value::native(DistVar {
                strategy: scope.clone().unwrap_or(Value::None),
                on_read: sync == Sync::OnRead,
                comps: comps.clone(),
                agg,
                sync,
            });
            if let Value::Native(rc) = &var {
                for c in &comps {
                    *c.container.borrow_mut() = Rc::downgrade(rc);
                }
            }
            Ok(var)
        }
        other => {
            let device = match other {
                Some((Kind::OneDevice, d, _)) => d[0],
                // CentralStorageStrategy keeps its variables on one device
                Some((_, _, Flavor::CentralStorage { parameter, .. })) => parameter,
                _ => current_device(vm),
            };
            let value = lifted(&t, device)?;
            let cell = Rc::new(VarCell {
                container: RefCell::new(std::rc::Weak::new()),
                own: RefCell::new(std::rc::Weak::new()),
                name: format!("{base}:0"),
                value: RefCell::new(super::untraced(value)),
                device,
                trainable,
                agg_v1,
                shape: declared,
                constraint: constraint.clone(),
            });
            Ok(super::owned_plain(&cell, agg, sync))
        }
    }
}

/// The initial value of a variable's copy on `device`. A variable made while
/// tracing is lifted out of the graph, which reads it (`ReadVariableOp`)
/// rather than computing its initial value: a new handle the trace does not
/// follow.
fn lifted(
    t: &crate::runtime::Tensor,
    device: crate::runtime::Device,
) -> PyResult<crate::runtime::Tensor> {
    if !crate::runtime::graph::tracing() {
        return t.to_device(device).map_err(runtime_err);
    }
    let v = crate::runtime::graph::paused(|| t.to_device(device)).map_err(runtime_err)?;
    Ok(crate::runtime::autodiff::tape::detached(&v))
}

/// A dtype argument: a dtype object (its `name`) or a name string.
fn dtype_of(vm: &dyn Vm, v: &Value) -> PyResult<crate::runtime::DType> {
    let name = match v {
        Value::Str(s) => s.to_string(),
        other => vm.str(&vm.getattr(other, "name")?)?,
    };
    crate::runtime::DType::from_name(&name).map_err(runtime_err)
}
