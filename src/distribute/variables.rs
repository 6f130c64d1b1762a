//! Variables: `tf.Variable` (a plain resource variable), and inside a
//! MirroredStrategy scope a `MirroredVariable` (one component per device,
//! kept equal) or a `SyncOnReadVariable` (components updated per replica,
//! aggregated when read in cross-replica context). Also the
//! `tf.VariableAggregation` / `tf.VariableSynchronization` enums.

use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

use super::classes::{self, method};
use super::context::{current_device, in_replica_fn, state};
use super::nest::{map_nest, regroup_with, select_replica};
use super::reduce::{reduce_tensors, Op};
use super::replica_ctx::{park_request, Request};
use super::strategy::{Kind, StrategyObj};
use super::values::{components, mirrored};
use crate::modules::ModuleBuilder;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::runtime::{ops, Device, Tensor};
use crate::syntax::ast::BinOp;
use crate::value::{Args, Class, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// `tf.VariableAggregation` members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agg {
    /// `NONE`.
    None,
    /// `SUM`.
    Sum,
    /// `MEAN`.
    Mean,
    /// `ONLY_FIRST_REPLICA`.
    OnlyFirst,
}

/// `tf.VariableSynchronization` members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sync {
    /// `AUTO`.
    Auto,
    /// `NONE`.
    None,
    /// `ON_WRITE`.
    OnWrite,
    /// `ON_READ`.
    OnRead,
}

/// A member of one of the two enums.
pub struct EnumObj {
    class: &'static str,
    member: &'static str,
    value: i64,
}

impl NativeObject for EnumObj {
    fn type_name(&self) -> &str {
        self.class
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn class(&self) -> Option<Rc<Class>> {
        Some(classes::class(self.class))
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("<{}.{}: {}>", self.class, self.member, self.value))
    }
    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("{}.{}", self.class, self.member))
    }
    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "name" => Some(Value::str(self.member)),
            "value" => Some(Value::Int(self.value)),
            _ => None,
        })
    }
    fn compare(
        &self,
        _this: &Value,
        op: &str,
        other: &Value,
        _vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let same = other
            .downcast::<EnumObj>()
            .is_some_and(|o| o.value == self.value && o.class.starts_with(&self.class[..12]));
        Ok(crate::value::native::equality(op, same))
    }
}

const AGGS: [(&str, Agg); 4] = [
    ("NONE", Agg::None),
    ("SUM", Agg::Sum),
    ("MEAN", Agg::Mean),
    ("ONLY_FIRST_REPLICA", Agg::OnlyFirst),
];
const SYNCS: [(&str, Sync); 4] = [
    ("AUTO", Sync::Auto),
    ("NONE", Sync::None),
    ("ON_WRITE", Sync::OnWrite),
    ("ON_READ", Sync::OnRead),
];

fn agg_value(a: Agg, v1: bool) -> Value {
    let i = AGGS.iter().position(|(_, x)| *x == a).unwrap_or(0);
    let class = if v1 {
        "VariableAggregation"
    } else {
        "VariableAggregationV2"
    };
    enum_member(class, &AGGS.map(|(m, _)| m), i)
}

fn sync_value(s: Sync) -> Value {
    let i = SYNCS.iter().position(|(_, x)| *x == s).unwrap_or(0);
    enum_member("VariableSynchronization", &SYNCS.map(|(m, _)| m), i)
}

fn parse_agg(v: &Value) -> PyResult<Agg> {
    match v.downcast::<EnumObj>() {
        Some(e) if e.class.starts_with("VariableAggregation") => Ok(AGGS[e.value as usize].1),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            "aggregation must be a tf.VariableAggregation",
        )),
    }
}

fn parse_sync(v: &Value) -> PyResult<Sync> {
    match v.downcast::<EnumObj>() {
        Some(e) if e.class == "VariableSynchronization" => Ok(SYNCS[e.value as usize].1),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            "synchronization must be a tf.VariableSynchronization",
        )),
    }
}

/// One variable buffer on one device.
pub struct VarCell {
    /// `Variable:0`, `Variable/replica_1:0`.
    pub name: String,
    /// The current value.
    pub value: RefCell<Tensor>,
    /// Where it lives.
    pub device: Device,
    /// `trainable`.
    pub trainable: bool,
    /// The distributed variable this is a component of (weak: it owns the
    /// cell), for `extended.value_container`.
    pub container: RefCell<std::rc::Weak<Box<dyn NativeObject>>>,
}

/// A plain variable (or TensorFlow's `UnreadVariable` returned by assignments).
pub struct PlainVar {
    cell: Rc<VarCell>,
    agg: Agg,
    sync: Sync,
    unread: bool,
}

/// A `MirroredVariable` or `SyncOnReadVariable`.
pub struct DistVar {
    /// The strategy whose scope created it.
    strategy: Value,
    on_read: bool,
    comps: Vec<Rc<VarCell>>,
    agg: Agg,
    sync: Sync,
}

/// True for `tf.Variable` objects of any kind.
pub fn is_variable(v: &Value) -> bool {
    v.downcast::<PlainVar>().is_some() || v.downcast::<DistVar>().is_some()
}

/// True for a `MirroredVariable` (not a `SyncOnReadVariable`).
pub fn is_mirrored_variable(v: &Value) -> bool {
    v.downcast::<DistVar>().is_some_and(|d| !d.on_read)
}

/// True for a `MirroredVariable` / `SyncOnReadVariable`.
pub fn is_distributed_variable(v: &Value) -> bool {
    v.downcast::<DistVar>().is_some()
}

fn plain(cell: &Rc<VarCell>, agg: Agg, sync: Sync, unread: bool) -> Value {
    Value::native(PlainVar {
        cell: cell.clone(),
        agg,
        sync,
        unread,
    })
}

/// The components of a distributed variable, as plain variables.
pub fn local_values(v: &Value) -> Option<Vec<Value>> {
    let d = v.downcast::<DistVar>()?;
    Some(
        d.comps
            .iter()
            .map(|c| plain(c, d.agg, d.sync, false))
            .collect(),
    )
}

/// The device of a variable's primary component.
pub fn primary_device(v: &Value) -> Option<Device> {
    if let Some(p) = v.downcast::<PlainVar>() {
        return Some(p.cell.device);
    }
    v.downcast::<DistVar>().map(|d| d.comps[0].device)
}

/// The devices of every component of a variable (one for a plain variable).
pub fn variable_devices(v: &Value) -> Option<Vec<Device>> {
    if let Some(p) = v.downcast::<PlainVar>() {
        return Some(vec![p.cell.device]);
    }
    v.downcast::<DistVar>()
        .map(|d| d.comps.iter().map(|c| c.device).collect())
}

/// Whether `v` was created in the scope of a strategy with these devices.
pub fn created_on(v: &Value, devices: &[Device], kind: Kind) -> bool {
    if let Some(d) = v.downcast::<DistVar>() {
        return d.comps.iter().map(|c| c.device).eq(devices.iter().copied());
    }
    kind == Kind::OneDevice
        && v.downcast::<PlainVar>()
            .is_some_and(|p| devices.contains(&p.cell.device))
}

fn var_repr(name: &str, t: &Tensor) -> String {
    let r = crate::runtime::format::tf_repr(t);
    let np = r
        .find(", numpy=")
        .map(|i| &r[i + 8..r.len() - 1])
        .unwrap_or("");
    format!(
        "<tf.Variable '{name}' shape={} dtype={}, numpy={np}>",
        t.shape().tuple_text(),
        t.dtype().name()
    )
}

impl DistVar {
    fn class_name(&self) -> &'static str {
        if self.on_read {
            "SyncOnReadVariable"
        } else {
            "MirroredVariable"
        }
    }

    /// The component the running code sees.
    fn local(&self, vm: &dyn Vm) -> &Rc<VarCell> {
        match vm.current_replica() {
            Some(i) if i < self.comps.len() => &self.comps[i],
            _ => &self.comps[0],
        }
    }

    fn read(&self, vm: &dyn Vm) -> PyResult<Tensor> {
        if in_replica_fn(vm) || !self.on_read {
            return Ok(self.local(vm).value.borrow().clone());
        }
        let parts: Vec<Value> = self
            .comps
            .iter()
            .map(|c| Value::Tensor(c.value.borrow().clone()))
            .collect();
        match self.agg {
            Agg::Sum => reduce_tensors(vm, Op::Sum, &parts, self.comps[0].device),
            Agg::Mean => reduce_tensors(vm, Op::Mean, &parts, self.comps[0].device),
            Agg::OnlyFirst => Ok(self.comps[0].value.borrow().clone()),
            // reading in cross-replica context reduces with
            // `ReduceOp.from_variable_aggregation`, which has no NONE
            Agg::None => Err(PyErr::new(
                ExcType::ValueError,
                "Could not convert from `tf.VariableAggregation` VariableAggregation.NONE to`tf.distribute.ReduceOp` type",
            )
            .help("give the ON_READ variable an aggregation (SUM, MEAN or ONLY_FIRST_REPLICA) to read it outside strategy.run")),
        }
    }
}

fn read_any(vm: &dyn Vm, v: &Value) -> PyResult<Tensor> {
    if let Some(p) = v.downcast::<PlainVar>() {
        return Ok(p.cell.value.borrow().clone());
    }
    if let Some(d) = v.downcast::<DistVar>() {
        return d.read(vm);
    }
    Err(PyErr::new(ExcType::TypeError, "expected a tf.Variable"))
}

fn shared_getattr(
    vm: &dyn Vm,
    this: &Value,
    name: &str,
    t: Tensor,
    cell: &VarCell,
    agg: Agg,
    sync: Sync,
) -> PyResult<Option<Value>> {
    Ok(match name {
        "name" => Some(Value::str(cell.name.clone())),
        "device" => Some(Value::str(cell.device.full_name())),
        "trainable" => Some(Value::Bool(cell.trainable)),
        "aggregation" => Some(agg_value(agg, agg == Agg::None)),
        "synchronization" => Some(sync_value(sync)),
        "dtype" | "shape" => Some(vm.getattr(&Value::Tensor(t), name)?),
        "initial_value" => {
            return Err(PyErr::new(
                ExcType::RuntimeError,
                "This property is not supported when eager execution is enabled.",
            ))
        }
        _ => classes::bound(&variable_class(), this, name),
    })
}

impl NativeObject for PlainVar {
    fn is_variable(&self) -> bool {
        true
    }
    fn type_name(&self) -> &str {
        "ResourceVariable"
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn class(&self) -> Option<Rc<Class>> {
        Some(variable_class())
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let name = if self.unread {
            "UnreadVariable".to_string()
        } else {
            self.cell.name.clone()
        };
        Ok(var_repr(&name, &self.cell.value.borrow()))
    }
    fn getattr(&self, this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let t = self.cell.value.borrow().clone();
        shared_getattr(vm, this, name, t, &self.cell, self.agg, self.sync)
    }
    fn to_tensor(&self, _vm: &dyn Vm) -> PyResult<Option<Tensor>> {
        Ok(Some(self.cell.value.borrow().clone()))
    }
    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let t = Value::Tensor(self.cell.value.borrow().clone());
        crate::object::tensor::tensor_getitem(vm, &t, key).map(Some)
    }
    fn binop(
        &self,
        _this: &Value,
        op: BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        tensor_binop(vm, self.cell.value.borrow().clone(), op, other, reflected)
    }
    fn unary(&self, _this: &Value, op: char, vm: &dyn Vm) -> PyResult<Option<Value>> {
        crate::object::tensor::tensor_unary(
            vm,
            op,
            &Value::Tensor(self.cell.value.borrow().clone()),
        )
    }
    fn compare(
        &self,
        this: &Value,
        op: &str,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let _ = this;
        var_compare(vm, self.cell.value.borrow().clone(), op, other)
    }
    fn to_number(&self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let _ = vm;
        Ok(None)
    }
}

fn tensor_binop(
    vm: &dyn Vm,
    t: Tensor,
    op: BinOp,
    other: &Value,
    reflected: bool,
) -> PyResult<Option<Value>> {
    let tv = Value::Tensor(t);
    let other = match other {
        o if is_variable(o) => Value::Tensor(read_any(vm, o)?),
        o => o.clone(),
    };
    Ok(Some(if reflected {
        vm.binop(op, &other, &tv)?
    } else {
        vm.binop(op, &tv, &other)?
    }))
}

impl NativeObject for DistVar {
    fn is_variable(&self) -> bool {
        true
    }
    fn type_name(&self) -> &str {
        self.class_name()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn class(&self) -> Option<Rc<Class>> {
        Some(dist_var_class(self.class_name()))
    }
    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        let parts: Vec<Value> = self
            .comps
            .iter()
            .map(|c| plain(c, self.agg, self.sync, false))
            .collect();
        super::values::render(self.class_name(), &parts, vm, true)
    }
    fn getattr(&self, this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if name == "values" || name == "_values" {
            return Ok(local_values(this).map(Value::tuple));
        }
        if name == "distribute_strategy" {
            return Ok(Some(self.strategy.clone()));
        }
        let local = self.local(vm).clone();
        let t = local.value.borrow().clone();
        match shared_getattr(vm, this, name, t, &local, self.agg, self.sync)? {
            Some(v) => Ok(Some(v)),
            None => Ok(classes::bound(
                &dist_var_class(self.class_name()),
                this,
                name,
            )),
        }
    }
    fn to_tensor(&self, vm: &dyn Vm) -> PyResult<Option<Tensor>> {
        self.read(vm).map(Some)
    }
    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        crate::object::tensor::tensor_getitem(vm, &Value::Tensor(self.read(vm)?), key).map(Some)
    }
    fn binop(
        &self,
        _this: &Value,
        op: BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        tensor_binop(vm, self.read(vm)?, op, other, reflected)
    }
    fn unary(&self, _this: &Value, op: char, vm: &dyn Vm) -> PyResult<Option<Value>> {
        crate::object::tensor::tensor_unary(vm, op, &Value::Tensor(self.read(vm)?))
    }
    fn compare(
        &self,
        _this: &Value,
        op: &str,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        var_compare(vm, self.read(vm)?, op, other)
    }
}

/// A variable's comparisons are its value's, `==` and `!=` too
/// (`Variable.__eq__` is `tf.equal(self, other,
/// incompatible_shape_error=False)`, element-wise, and unlike a tensor's it
/// converts `None` too, which fails).
fn var_compare(vm: &dyn Vm, t: Tensor, op: &str, other: &Value) -> PyResult<Option<Value>> {
    if (op == "==" || op == "!=") && other.is_none() {
        return Err(PyErr::new(
            ExcType::ValueError,
            "Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a Tensor.",
        )
        .help("a variable compares element-wise: test `v is None` instead"));
    }
    crate::object::tensor::tensor_compare(vm, &Value::Tensor(t), op, other)
}

/// TensorFlow's `enter_or_assert_strategy`: a distributed variable is used
/// under its own strategy (entered for the call when no strategy is); under
/// another one it is a RuntimeError.
fn assert_own_strategy(vm: &dyn Vm, d: &DistVar) -> PyResult<()> {
    let st = state(vm);
    let has = !st.scopes.borrow().is_empty() || st.run.borrow().is_some();
    if !has || d.strategy.is_none() {
        return Ok(());
    }
    let cur = super::strategy::current_strategy(vm);
    if cur.is(&d.strategy) {
        return Ok(());
    }
    Err(PyErr::new(
        ExcType::RuntimeError,
        format!(
            "Mixing different tf.distribute.Strategy objects: {} is not {}",
            vm.repr(&cur)?,
            vm.repr(&d.strategy)?
        ),
    )
    .help("use a distributed variable under the strategy that created it (its scope or its strategy.run)"))
}

// ---- creation ----

fn variable_new(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    // initial_value, trainable, validate_shape, caching_device, name, variable_def,
    // dtype, import_scope, constraint, synchronization, aggregation, shape, lifting
    let mut init = args.get(0).clone();
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
    let dtype = match args.opt(6) {
        None => None,
        Some(d) => Some(dtype_of(vm, d)?),
    };
    let t = match dtype {
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
    let base = match args.opt(4) {
        None => "Variable".to_string(),
        Some(Value::Str(s)) => s.to_string(),
        Some(v) => vm.str(v)?,
    };
    let sync = match args.opt(9) {
        None => Sync::Auto,
        Some(v) => parse_sync(v)?,
    };
    let agg = match args.opt(10) {
        None => Agg::None,
        Some(v) => parse_agg(v)?,
    };
    let trainable = match args.opt(1) {
        None => sync != Sync::OnRead,
        Some(v) => vm.truthy(v)?,
    };
    let st = state(vm);
    let scope = st.scopes.borrow().last().cloned();
    let strategy = scope.as_ref().and_then(|s| {
        s.downcast::<StrategyObj>()
            .map(|s| (s.kind, s.devices.clone()))
    });
    match strategy {
        Some((Kind::Mirrored, devices)) if !in_replica_fn(vm) => {
            // MirroredStrategy resolves AUTO to ON_WRITE and refuses NONE
            // (`values_util.validate_synchronization_aggregation_trainable`).
            let sync = match sync {
                Sync::Auto => Sync::OnWrite,
                Sync::None => {
                    let name = match args.opt(4) {
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
                let value = t.to_device(*d).map_err(runtime_err)?;
                comps.push(Rc::new(VarCell {
                    name,
                    value: RefCell::new(value),
                    device: *d,
                    trainable,
                    container: RefCell::new(std::rc::Weak::new()),
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
                Some((Kind::OneDevice, d)) => d[0],
                _ => current_device(vm),
            };
            let value = t.to_device(device).map_err(runtime_err)?;
            let cell = Rc::new(VarCell {
                container: RefCell::new(std::rc::Weak::new()),
                name: format!("{base}:0"),
                value: RefCell::new(value),
                device,
                trainable,
            });
            Ok(plain(&cell, agg, sync, false))
        }
    }
}

/// A dtype argument: a dtype object (its `name`) or a name string.
fn dtype_of(vm: &dyn Vm, v: &Value) -> PyResult<crate::runtime::DType> {
    let name = match v {
        Value::Str(s) => s.to_string(),
        other => vm.str(&vm.getattr(other, "name")?)?,
    };
    crate::runtime::DType::from_name(&name).map_err(runtime_err)
}

// ---- updates ----

#[derive(Clone, Copy)]
enum Upd {
    Assign,
    Add,
    Sub,
}

fn apply(vm: &dyn Vm, cell: &VarCell, how: Upd, delta: &Value) -> PyResult<Tensor> {
    let old = cell.value.borrow().clone();
    // `convert_to_tensor(delta, dtype=var.dtype)`: Python numbers, lists and
    // numpy values convert; a tensor (or variable) of another dtype is
    // TensorFlow's ValueError, never a silent cast.
    let d = to_tensor(vm, delta, Some(old.dtype()))?;
    let d = d.to_device(cell.device).map_err(runtime_err)?;
    let new = match how {
        Upd::Assign => {
            if d.dims() != old.dims() {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    format!(
                        "Cannot assign value to variable ' {}': Shape mismatch.The variable shape {}, and the assigned value shape {} are incompatible.",
                        cell.name,
                        old.shape().tuple_text(),
                        d.shape().tuple_text()
                    ),
                ));
            }
            d
        }
        Upd::Add => ops::add(&old, &d).map_err(runtime_err)?,
        Upd::Sub => ops::sub(&old, &d).map_err(runtime_err)?,
    };
    *cell.value.borrow_mut() = new.clone();
    Ok(new)
}

fn update(vm: &dyn Vm, args: &Args, how: Upd) -> PyResult<Value> {
    let this = args.get(0);
    let value = args.get(1);
    let read_value = vm.truthy(args.get(4))?;
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
                if super::values::components(value).is_some() {
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

fn assign(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    update(vm, args, Upd::Assign)
}
fn assign_add(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    update(vm, args, Upd::Add)
}
fn assign_sub(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    update(vm, args, Upd::Sub)
}

fn read_value(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    if let Some(d) = args.get(0).downcast::<DistVar>() {
        assert_own_strategy(vm, d)?;
    }
    Ok(Value::Tensor(read_any(vm, args.get(0))?))
}

fn numpy(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    if let Some(d) = args.get(0).downcast::<DistVar>() {
        assert_own_strategy(vm, d)?;
    }
    let t = Value::Tensor(read_any(vm, args.get(0))?);
    let f = vm.getattr(&t, "numpy")?;
    vm.call(&f, Vec::new(), Vec::new())
}

fn get_shape(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    vm.getattr(&Value::Tensor(read_any(vm, args.get(0))?), "shape")
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
    let extra = match args {
        Value::None => Vec::new(),
        v => vm.collect(v)?,
    };
    let mut kw: Vec<(Rc<str>, Value)> = Vec::new();
    if let Value::Dict(d) = kwargs {
        for (k, v) in d.borrow().items() {
            if let Value::Str(s) = k {
                kw.push((Rc::from(s.as_str()), v));
            }
        }
    }
    let mut out = Vec::new();
    for (i, c) in comps.into_iter().enumerate() {
        let mut a = vec![c];
        for x in &extra {
            a.push(select_replica(i, x)?);
        }
        let kw = kw
            .iter()
            .map(|(k, v)| Ok((k.clone(), select_replica(i, v)?)))
            .collect::<PyResult<Vec<_>>>()?;
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

fn add_var_methods(c: &Class, prefix: &str) {
    let m = |sig: &str, f, doc| method(c, &format!("{prefix}.{sig}"), f, doc);
    m(
        "assign(self, value, use_locking=None, name=None, read_value=True)",
        assign,
        "Sets the variable's value.",
    );
    m(
        "assign_add(self, delta, use_locking=None, name=None, read_value=True)",
        assign_add,
        "Adds `delta` to the variable.",
    );
    m(
        "assign_sub(self, delta, use_locking=None, name=None, read_value=True)",
        assign_sub,
        "Subtracts `delta` from the variable.",
    );
    m(
        "read_value(self)",
        read_value,
        "The variable's value as a tensor.",
    );
    m(
        "value(self)",
        read_value,
        "The variable's value as a tensor.",
    );
    m(
        "numpy(self)",
        numpy,
        "The variable's value as a numpy value.",
    );
    m("get_shape(self)", get_shape, "The variable's shape.");
}

fn variable_class() -> Rc<Class> {
    let c = classes::class("ResourceVariable");
    if c.dict.borrow().get("assign").is_none() {
        add_var_methods(&c, "ResourceVariable");
    }
    c
}

fn dist_var_class(name: &'static str) -> Rc<Class> {
    let c = classes::class(name);
    if c.dict.borrow().get("assign").is_none() {
        add_var_methods(&c, name);
    }
    c
}

/// The enum class `name` with its members set as class attributes.
fn enum_class(name: &'static str, members: &[&'static str]) -> Rc<Class> {
    let c = classes::class(name);
    if c.dict.borrow().get(members[0]).is_none() {
        for (i, m) in members.iter().enumerate() {
            c.set_attr(
                m,
                Value::native(EnumObj {
                    class: name,
                    member: m,
                    value: i as i64,
                }),
            );
        }
        classes::mark_enum(&c, members);
    }
    c
}

/// Member `i` of an enum class: one object per member, as Python's enums
/// (so `v.synchronization is tf.VariableSynchronization.ON_WRITE`, and every
/// replica returning it regroups to the member itself).
fn enum_member(name: &'static str, members: &[&'static str], i: usize) -> Value {
    enum_class(name, members)
        .lookup(members[i])
        .unwrap_or(Value::None)
}

/// Registers `tf.Variable`, `tf.VariableAggregation`, `tf.VariableSynchronization`.
pub fn register(m: &mut ModuleBuilder) {
    let var = classes::class("Variable");
    classes::constructor(
        &var,
        "Variable.__init__(initial_value=None, trainable=None, validate_shape=True, caching_device=None, name=None, variable_def=None, dtype=None, import_scope=None, constraint=None, synchronization=None, aggregation=None, shape=None, experimental_enable_variable_lifting=True)",
        variable_new,
        "A variable: mutable state. In a MirroredStrategy scope, one component per replica.",
    );
    let _ = variable_class();
    m.value("Variable", Value::Class(var));
    m.value(
        "VariableAggregation",
        Value::Class(enum_class("VariableAggregationV2", &AGGS.map(|(m, _)| m))),
    );
    m.value(
        "VariableSynchronization",
        Value::Class(enum_class(
            "VariableSynchronization",
            &SYNCS.map(|(m, _)| m),
        )),
    );
}

/// The distributed variable whose component `v` is (`extended.value_container`).
pub fn container_of(v: &Value) -> Option<Value> {
    let p = v.downcast::<PlainVar>()?;
    let c = p.cell.container.borrow().upgrade()?;
    Some(Value::Native(c))
}
