//! Variables: `tf.Variable` (a plain resource variable), and inside a
//! MirroredStrategy scope a `MirroredVariable` (one component per device,
//! kept equal) or a `SyncOnReadVariable` (components updated per replica,
//! aggregated when read in cross-replica context): their classes and
//! properties here, their creation in `create.rs`, their updates in
//! `update.rs`, and the `tf.VariableAggregation` /
//! `tf.VariableSynchronization` enums in `enums.rs`.

pub mod create;
pub mod enums;
mod scatter;
pub mod update;

use std::cell::RefCell;
use std::rc::Rc;

pub use enums::{Agg, Sync};
pub use update::{update_regroup, update_with_fn};

use super::classes::{getters, native_class, DISTRIBUTED_DELEGATE, VARIABLES};
use super::context::{in_replica_fn, state};
use super::reduce::{reduce_tensors, Op};
use super::strategy::Kind;
use super::values::MIRRORED;
use crate::object::tensor::classes::{COMPOSITE_TENSOR, CORE_TENSOR, TRACKABLE};
use crate::object::{native, ClassSpec, Member};
use crate::runtime::{Device, Tensor};
use crate::syntax::ast;
use crate::syntax::ast::BinOp;
use crate::syntax::ast::CmpOp;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

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
    /// Whether `aggregation` reads back as TensorFlow 1's enum (see
    /// `enums::agg_is_v1`).
    pub agg_v1: bool,
    /// `constraint` as given (None or a callable): optimizers apply it
    /// after an update, the variable only keeps it.
    pub constraint: Value,
    /// The distributed variable this is a component of (weak: it owns the
    /// cell), for `extended.value_container`.
    pub container: RefCell<std::rc::Weak<Box<dyn NativeObject>>>,
    /// The plain variable object this is the cell of (weak), so that a tape
    /// or a `tf.custom_gradient` hands back the script's own object
    /// (`tape.watched_variables()[0] is v`).
    pub own: RefCell<std::rc::Weak<Box<dyn NativeObject>>>,
    /// `tf.Variable(shape=...)` less specific than the value (its dims,
    /// `None` an unknown rank): assignments may change the value's shape
    /// within it. None: the value's shape, fixed.
    pub shape: Option<StaticShape>,
}

use crate::runtime::graph::shapes::StaticShape;

impl VarCell {
    /// The shape the variable declares, TensorFlow's text of it.
    pub(super) fn shape_text(&self, value: &Tensor) -> String {
        match &self.shape {
            Some(s) => crate::object::tensor::shape::shape_text(s.as_deref()),
            None => value.shape().tuple_text(),
        }
    }
}

/// A plain variable (or TensorFlow's `UnreadVariable` returned by assignments).
pub struct PlainVar {
    cell: Rc<VarCell>,
    agg: Agg,
    sync: Sync,
    /// TensorFlow's `UnreadVariable`, which an assignment returns.
    unread: bool,
}

/// A `MirroredVariable` or `SyncOnReadVariable`.
pub struct DistVar {
    /// The strategy whose scope created it.
    strategy: Value,
    /// A `SyncOnReadVariable` (else a `MirroredVariable`).
    on_read: bool,
    comps: Vec<Rc<VarCell>>,
    agg: Agg,
    sync: Sync,
}

/// A plain variable's identity (its cell) and TensorFlow's `VariableSpec`
/// fields but the alias (`shape=(2,), dtype=tf.float32, trainable=True`),
/// as a `tf.function` argument types it.
pub fn variable_spec(v: &Value) -> Option<(usize, String)> {
    let var = v.downcast::<PlainVar>()?;
    let cell = &var.cell;
    let value = cell.value.borrow();
    let trainable = if cell.trainable { "True" } else { "False" };
    Some((
        Rc::as_ptr(cell) as *const () as usize,
        format!(
            "shape={}, dtype=tf.{}, trainable={trainable}",
            cell.shape_text(&value),
            value.dtype().name()
        ),
    ))
}

/// The plain variables among a call's arguments (nested in lists, tuples
/// and dicts), each once, in the order they first appear (the order of
/// their `alias_id`s): their identities, as [`variable_spec`] gives them,
/// and their cells.
pub fn arg_variables(args: &[Value]) -> Vec<(usize, Rc<VarCell>)> {
    fn walk(v: &Value, out: &mut Vec<(usize, Rc<VarCell>)>) {
        match v {
            Value::List(l) => l.borrow().iter().for_each(|x| walk(x, out)),
            Value::Tuple(t) => t.iter().for_each(|x| walk(x, out)),
            Value::Dict(d) => d.borrow().items().iter().for_each(|(_, x)| walk(x, out)),
            _ => {
                if let Some(var) = v.downcast::<PlainVar>() {
                    let id = Rc::as_ptr(&var.cell) as *const () as usize;
                    if out.iter().all(|(seen, _)| *seen != id) {
                        out.push((id, var.cell.clone()));
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    args.iter().for_each(|a| walk(a, &mut out));
    out
}

/// True for `tf.Variable` objects of any kind.
pub fn is_variable(v: &Value) -> bool {
    v.downcast::<PlainVar>().is_some() || v.downcast::<DistVar>().is_some()
}

/// The addresses of a variable's cells (every component of a distributed
/// one): how a traced graph's reads name the variable they read.
pub fn resource_keys(v: &Value) -> Option<Vec<usize>> {
    if let Some(p) = v.downcast::<PlainVar>() {
        return Some(vec![Rc::as_ptr(&p.cell) as usize]);
    }
    v.downcast::<DistVar>()
        .map(|d| d.comps.iter().map(|c| Rc::as_ptr(c) as usize).collect())
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

/// The plain variable object of a new cell, which the cell remembers.
pub(super) fn owned_plain(cell: &Rc<VarCell>, agg: Agg, sync: Sync) -> Value {
    let v = plain(cell, agg, sync, false);
    if let Value::Native(rc) = &v {
        *cell.own.borrow_mut() = Rc::downgrade(rc);
    }
    v
}

/// A new plain variable `name:0` holding `value` (on its device), and its
/// cell: the state variable a native object keeps and updates itself
/// (`tf.random.Generator`'s `StateVar`), which users read and assign as
/// any variable.
pub fn new_plain(name: &str, value: Tensor, trainable: bool) -> (Value, Rc<VarCell>) {
    let cell = Rc::new(VarCell {
        name: format!("{name}:0"),
        device: value.device(),
        value: RefCell::new(untraced(value)),
        trainable,
        agg_v1: true,
        constraint: Value::None,
        container: RefCell::new(std::rc::Weak::new()),
        own: RefCell::new(std::rc::Weak::new()),
        shape: None,
    });
    (owned_plain(&cell, Agg::None, Sync::Auto), cell)
}

/// The components of a distributed variable, as plain variables.
pub fn local_values(v: &Value) -> Option<Vec<Value>> {
    v.downcast::<DistVar>().map(DistVar::components)
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

/// A variable cell's value, read as TensorFlow's `ReadVariableOp` is: the
/// recording gradient tapes of this replica see the read (and watch a
/// trainable variable when they watch accessed variables).
fn read_cell(cell: &Rc<VarCell>, agg: Agg, sync: Sync) -> Tensor {
    let t = traced_value(cell);
    crate::runtime::autodiff::tape::read_variable(tape_key(cell), cell.trainable, &t, || {
        let own = cell.own.borrow().upgrade();
        Rc::new(own.map_or_else(|| plain(cell, agg, sync, false), Value::Native))
    });
    t
}

/// A cell's value; while a `tf.function` traces, the value the trace
/// assigned it last, or a `ReadVariableOp` of the graph (a node per read,
/// as in TensorFlow).
pub(super) fn traced_value(cell: &Rc<VarCell>) -> Tensor {
    let mut t = cell.value.borrow().clone();
    if crate::runtime::graph::tracing() {
        match crate::runtime::graph::assigned_value(Rc::as_ptr(cell) as usize) {
            Some(a) => t = a,
            None => t = crate::runtime::autodiff::tape::detached(&t),
        }
        crate::runtime::graph::read_variable(&|| cell.clone(), &t);
        if let Some(s) = &cell.shape {
            crate::runtime::graph::shapes::set_static(&t, s.clone());
        }
    }
    t
}

/// The value a variable cell keeps: a tensor of a graph being traced (the
/// value assigned or initialised inside a `tf.function`) as a handle no
/// graph knows, since the variable outlives the trace.
pub(super) fn untraced(t: Tensor) -> Tensor {
    match t.tag() {
        0 => t,
        _ => crate::runtime::autodiff::tape::detached(&t),
    }
}

/// A traced graph reads and assigns a variable through its cell.
impl crate::runtime::graph::Resource for VarCell {
    fn read(&self) -> Tensor {
        self.value.borrow().clone()
    }
    fn write(&self, value: Tensor) {
        *self.value.borrow_mut() = value;
    }
}

/// The key a gradient tape knows a variable cell by.
fn tape_key(cell: &Rc<VarCell>) -> usize {
    Rc::as_ptr(cell) as usize
}

/// For `tape.gradient` / `tape.watch`: the key of the variable cell the
/// running code sees (a distributed variable's replica's component), its
/// current value and a handle to it; None when `v` is not a variable.
pub fn tape_source(vm: &dyn Vm, v: &Value) -> Option<(usize, Tensor, Value)> {
    let (cell, agg, sync) = local_cell(vm, v).ok()?;
    let t = cell.value.borrow().clone();
    Some((tape_key(&cell), t, plain(&cell, agg, sync, false)))
}

fn var_repr(name: &str, cell: &VarCell, t: &Tensor) -> String {
    if crate::runtime::graph::tracing() {
        // a graph has no value to show
        return format!(
            "<tf.Variable '{name}' shape={} dtype={}>",
            cell.shape_text(t),
            t.dtype().name()
        );
    }
    let r = crate::runtime::format::tf_repr(t);
    let np = r
        .find(", numpy=")
        .map(|i| &r[i + 8..r.len() - 1])
        .unwrap_or("");
    format!(
        "<tf.Variable '{name}' shape={} dtype={}, numpy={np}>",
        cell.shape_text(t),
        t.dtype().name()
    )
}

impl DistVar {
    /// The components, as plain variables.
    fn components(&self) -> Vec<Value> {
        self.comps
            .iter()
            .map(|c| plain(c, self.agg, self.sync, false))
            .collect()
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
            return Ok(read_cell(self.local(vm), self.agg, self.sync));
        }
        let parts: Vec<Value> = self
            .comps
            .iter()
            .map(|c| Value::Tensor(traced_value(c)))
            .collect();
        match self.agg {
            Agg::Sum => reduce_tensors(vm, Op::Sum, &parts, self.comps[0].device),
            Agg::Mean => reduce_tensors(vm, Op::Mean, &parts, self.comps[0].device),
            Agg::OnlyFirst => Ok(read_cell(&self.comps[0], self.agg, self.sync)),
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
        return Ok(read_cell(&p.cell, p.agg, p.sync));
    }
    if let Some(d) = v.downcast::<DistVar>() {
        return d.read(vm);
    }
    Err(PyErr::new(ExcType::TypeError, "expected a tf.Variable"))
}

/// `tf.Variable`, with the properties every variable has.
pub static VARIABLE: ClassSpec = ClassSpec {
    name: "Variable",
    module: VARIABLES,
    bases: &[&TRACKABLE],
    members: &[
        Member::New(create::variable_new::DEF),
        Member::Method(crate::object::tensor::reference::tensor_ref::DEF),
        Member::Attr("experimental_ref", || {
            crate::object::tensor::reference::tensor_ref::DEF.value()
        }),
        Member::Getter(var_name::DEF),
        Member::Getter(var_device::DEF),
        Member::Getter(var_trainable::DEF),
        Member::Getter(var_constraint::DEF),
        Member::Getter(var_aggregation::DEF),
        Member::Getter(var_synchronization::DEF),
        Member::Getter(var_dtype::DEF),
        Member::Getter(var_shape::DEF),
        Member::Getter(var_initial_value::DEF),
    ],
};

/// `BaseResourceVariable`.
pub static BASE_RESOURCE_VARIABLE: ClassSpec = ClassSpec {
    name: "BaseResourceVariable",
    module: "tensorflow.python.ops.resource_variable_ops",
    bases: &[&VARIABLE, &CORE_TENSOR, &COMPOSITE_TENSOR],
    members: &[],
};

/// `ResourceVariable`, the class of a plain variable.
pub static RESOURCE_VARIABLE: ClassSpec = ClassSpec {
    name: "ResourceVariable",
    module: "tensorflow.python.ops.resource_variable_ops",
    bases: &[&BASE_RESOURCE_VARIABLE],
    members: update::VARIABLE_METHODS,
};

/// `DistributedVariable`, with the properties of a distributed variable.
pub static DISTRIBUTED_VARIABLE: ClassSpec = ClassSpec {
    name: "DistributedVariable",
    module: super::classes::VALUES,
    bases: &[&DISTRIBUTED_DELEGATE, &VARIABLE, &CORE_TENSOR],
    members: &[
        Member::Getter(var_values::DEF),
        Member::Getter(var_private_values::DEF),
        Member::Getter(var_distribute_strategy::DEF),
    ],
};

/// `MirroredVariable`.
pub static MIRRORED_VARIABLE: ClassSpec = ClassSpec {
    name: "MirroredVariable",
    module: super::classes::VALUES,
    bases: &[&DISTRIBUTED_VARIABLE, &MIRRORED],
    members: update::VARIABLE_METHODS,
};

/// `SyncOnReadVariable`.
pub static SYNC_ON_READ_VARIABLE: ClassSpec = ClassSpec {
    name: "SyncOnReadVariable",
    module: super::classes::VALUES,
    bases: &[&DISTRIBUTED_VARIABLE],
    members: update::VARIABLE_METHODS,
};

native_class!(PlainVar: RESOURCE_VARIABLE);

native_class!(DistVar: DISTRIBUTED_VARIABLE);

/// The cell of a variable the running code sees (a distributed variable's
/// replica's), with the variable's aggregation and synchronization.
fn local_cell(vm: &dyn Vm, v: &Value) -> PyResult<(Rc<VarCell>, Agg, Sync)> {
    if let Some(p) = v.downcast::<PlainVar>() {
        return Ok((p.cell.clone(), p.agg, p.sync));
    }
    if let Some(d) = v.downcast::<DistVar>() {
        return Ok((d.local(vm).clone(), d.agg, d.sync));
    }
    Err(PyErr::new(ExcType::TypeError, "expected a tf.Variable"))
}

/// The variable's name (`Variable:0`; a replica's copy `Variable/replica_1:0`).
#[native("Variable.name(self)")]
fn var_name(vm: &dyn Vm, this: &Value) -> PyResult<String> {
    Ok(local_cell(vm, this)?.0.name.clone())
}

/// The device the variable (the running replica's copy) lives on.
#[native("Variable.device(self)")]
fn var_device(vm: &dyn Vm, this: &Value) -> PyResult<String> {
    Ok(local_cell(vm, this)?.0.device.full_name())
}

/// Whether the variable is trained.
#[native("Variable.trainable(self)")]
fn var_trainable(vm: &dyn Vm, this: &Value) -> PyResult<bool> {
    Ok(local_cell(vm, this)?.0.trainable)
}

/// The `constraint` the variable was made with (None by default).
#[native("Variable.constraint(self)")]
fn var_constraint(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    Ok(local_cell(vm, this)?.0.constraint.clone())
}

/// How updates from the replicas combine (`tf.VariableAggregation`).
#[native("Variable.aggregation(self)")]
fn var_aggregation(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    let (cell, agg, _) = local_cell(vm, this)?;
    Ok(enums::agg_value(agg, cell.agg_v1))
}

/// When the copies synchronize (`tf.VariableSynchronization`).
#[native("Variable.synchronization(self)")]
fn var_synchronization(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    Ok(enums::sync_value(local_cell(vm, this)?.2))
}

/// The variable's dtype.
#[native("Variable.dtype(self)")]
fn var_dtype(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    let t = local_cell(vm, this)?.0.value.borrow().clone();
    vm.getattr(&Value::Tensor(t), "dtype")
}

/// The variable's shape.
#[native("Variable.shape(self)")]
fn var_shape(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    let cell = local_cell(vm, this)?.0;
    if let Some(s) = &cell.shape {
        return Ok(Value::native(
            crate::object::tensor::shape::TensorShapeObj { dims: s.clone() },
        ));
    }
    let t = cell.value.borrow().clone();
    vm.getattr(&Value::Tensor(t), "shape")
}

/// The initial value (graph mode only).
#[native("Variable.initial_value(self)")]
fn var_initial_value(_this: &Value) -> PyResult<Value> {
    Err(PyErr::new(
        ExcType::RuntimeError,
        "This property is not supported when eager execution is enabled.",
    ))
}

getters! { this: &DistVar;
    /// The components, as plain variables (one per device).
    fn var_values("DistributedVariable.values(self)") -> Value { Value::tuple(this.components()) }
    /// The components (TensorFlow's private name, which scripts reach for).
    fn var_private_values("DistributedVariable._values(self)") -> Value {
        Value::tuple(this.components())
    }
    /// The strategy whose scope created the variable.
    fn var_distribute_strategy("DistributedVariable.distribute_strategy(self)") -> Value {
        this.strategy.clone()
    }
}

impl NativeObject for PlainVar {
    fn is_variable(&self) -> bool {
        true
    }
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&RESOURCE_VARIABLE)
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let name = if self.unread {
            "UnreadVariable".to_string()
        } else {
            self.cell.name.clone()
        };
        Ok(var_repr(&name, &self.cell, &self.cell.value.borrow()))
    }
    fn to_tensor(&self, _vm: &dyn Vm) -> PyResult<Option<Tensor>> {
        Ok(Some(read_cell(&self.cell, self.agg, self.sync)))
    }
    /// `int(v)`, `float(v)`: the value's (a scalar's), as TensorFlow's
    /// `BaseResourceVariable.__int__`/`__float__` read it (a distributed
    /// variable has neither: TypeError, as in TensorFlow).
    fn to_number(&self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let t = Value::Tensor(read_cell(&self.cell, self.agg, self.sync));
        crate::object::tensor::hooks::tensor_to_number(vm, &t, false)
    }
    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let t = Value::Tensor(read_cell(&self.cell, self.agg, self.sync));
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
        tensor_binop(
            vm,
            read_cell(&self.cell, self.agg, self.sync),
            op,
            other,
            reflected,
        )
    }
    fn unary(&self, _this: &Value, op: ast::UnaryOp, vm: &dyn Vm) -> PyResult<Option<Value>> {
        crate::object::tensor::tensor_unary(
            vm,
            op,
            &Value::Tensor(read_cell(&self.cell, self.agg, self.sync)),
        )
    }
    fn compare(
        &self,
        _this: &Value,
        op: CmpOp,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        var_compare(vm, read_cell(&self.cell, self.agg, self.sync), op, other)
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
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(if self.on_read {
            &SYNC_ON_READ_VARIABLE
        } else {
            &MIRRORED_VARIABLE
        })
    }
    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        super::values::render(self.type_name(), &self.components(), vm, true)
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
    fn unary(&self, _this: &Value, op: ast::UnaryOp, vm: &dyn Vm) -> PyResult<Option<Value>> {
        crate::object::tensor::tensor_unary(vm, op, &Value::Tensor(self.read(vm)?))
    }
    fn compare(
        &self,
        _this: &Value,
        op: CmpOp,
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
fn var_compare(vm: &dyn Vm, t: Tensor, op: CmpOp, other: &Value) -> PyResult<Option<Value>> {
    if (op == CmpOp::Eq || op == CmpOp::NotEq) && other.is_none() {
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

/// The distributed variable whose component `v` is (`extended.value_container`).
pub fn container_of(v: &Value) -> Option<Value> {
    let p = v.downcast::<PlainVar>()?;
    let c = p.cell.container.borrow().upgrade()?;
    Some(Value::Native(c))
}
