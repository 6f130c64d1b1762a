//! `tf.config`'s settings of the runtime itself: soft device placement,
//! the thread pools' sizes, op determinism, `run_functions_eagerly`, memory
//! growth, synchronous execution and TensorFloat-32. Each reads back what
//! was set, with TensorFlow's errors (a thread count or memory growth
//! changed after the runtime started). What dist acts on: soft placement
//! (devices that do not exist, `devices::placed`), op determinism
//! (unseeded random ops then fail, as in TensorFlow) and
//! `run_functions_eagerly`; the others change nothing in dist, which says
//! so once on stderr.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use super::devices::DeviceEntry;
use super::notes::note_once;
use crate::object::native;
use crate::runtime::{Device, DeviceKind};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The settings, kept in the interpreter's state.
pub struct RuntimeConfig {
    soft_placement: Cell<bool>,
    inter_op: RefCell<Value>,
    intra_op: RefCell<Value>,
    /// `tf.config.experimental.enable_op_determinism()` was called.
    pub op_determinism: Cell<bool>,
    /// `tf.config.run_functions_eagerly(True)`.
    pub functions_eagerly: Cell<bool>,
    memory_growth: RefCell<HashMap<Device, Value>>,
    synchronous: Cell<bool>,
    tf32: Cell<bool>,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            soft_placement: Cell::new(true),
            inter_op: RefCell::new(Value::Int(0)),
            intra_op: RefCell::new(Value::Int(0)),
            op_determinism: Cell::new(false),
            functions_eagerly: Cell::new(false),
            memory_growth: RefCell::new(HashMap::new()),
            synchronous: Cell::new(true),
            tf32: Cell::new(true),
        }
    }
}

/// The settings of this interpreter.
pub fn config(vm: &dyn Vm) -> std::rc::Rc<RuntimeConfig> {
    vm.state().get::<RuntimeConfig>()
}

/// Whether the runtime has started (a tensor was made, devices listed):
/// TensorFlow then refuses to change what it was started with.
fn started(vm: &dyn Vm) -> bool {
    super::context::placement(vm).initialized.get()
}

/// TensorFlow's error for a random op with neither a global nor an op seed
/// while op determinism is enabled.
pub fn check_seeded(vm: &dyn Vm, op_seed: Option<i64>) -> PyResult<()> {
    let seeds = vm.state().get::<crate::runtime::random::SeedState>();
    if config(vm).op_determinism.get() && op_seed.is_none() && seeds.global_seed().is_none() {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "Random ops require a seed to be set when determinism is enabled. Please set a seed \
             before running the op, e.g. by calling tf.random.set_seed(1).",
        ));
    }
    Ok(())
}

/// Whether soft device placement is on: what is placed on a device that
/// does not exist then runs on `CPU:0` (`devices::placed`).
pub fn soft_placement(vm: &dyn Vm) -> bool {
    config(vm).soft_placement.get()
}

/// Whether soft device placement is enabled.
#[native("get_soft_device_placement()")]
pub fn get_soft_device_placement(vm: &dyn Vm) -> bool {
    soft_placement(vm)
}

/// Enables or disables soft device placement (work placed on a device that
/// does not exist runs on `CPU:0`; disabled, that is TensorFlow's
/// InvalidArgumentError). Every op dist has runs on every device, so that
/// is all it changes.
#[native("set_soft_device_placement(enabled)")]
pub fn set_soft_device_placement(vm: &dyn Vm, enabled: &Value) -> PyResult<()> {
    let on = vm.truthy(enabled)?;
    config(vm).soft_placement.set(on);
    Ok(())
}

/// The number of threads for running independent ops (0: the system picks).
#[native("get_inter_op_parallelism_threads()")]
pub fn get_inter_op_parallelism_threads(vm: &dyn Vm) -> Value {
    config(vm).inter_op.borrow().clone()
}

/// The number of threads one op may use (0: the system picks).
#[native("get_intra_op_parallelism_threads()")]
pub fn get_intra_op_parallelism_threads(vm: &dyn Vm) -> Value {
    config(vm).intra_op.borrow().clone()
}

/// Sets the number of threads for running independent ops.
#[native("set_inter_op_parallelism_threads(num_threads)")]
pub fn set_inter_op_parallelism_threads(vm: &dyn Vm, num_threads: &Value) -> PyResult<()> {
    set_threads(vm, &config(vm).inter_op, num_threads, "Inter")
}

/// Sets the number of threads one op may use.
#[native("set_intra_op_parallelism_threads(num_threads)")]
pub fn set_intra_op_parallelism_threads(vm: &dyn Vm, num_threads: &Value) -> PyResult<()> {
    set_threads(vm, &config(vm).intra_op, num_threads, "Intra")
}

fn set_threads(vm: &dyn Vm, slot: &RefCell<Value>, n: &Value, which: &str) -> PyResult<()> {
    let same = vm.eq(&slot.borrow(), n)?;
    if same {
        return Ok(());
    }
    if started(vm) {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            format!("{which} op parallelism cannot be modified after initialization."),
        ));
    }
    *slot.borrow_mut() = n.clone();
    note_once(
        vm,
        "threads",
        "tf.config.threading settings are kept and read back, but dist runs ops on threads of its \
         own",
    );
    Ok(())
}

/// Makes ops deterministic: random ops then need a seed.
#[native("enable_op_determinism()")]
pub fn enable_op_determinism(vm: &dyn Vm) {
    config(vm).op_determinism.set(true);
}

/// Whether `tf.function`s run as Python, without tracing.
#[native("functions_run_eagerly()")]
pub fn functions_run_eagerly(vm: &dyn Vm) -> bool {
    config(vm).functions_eagerly.get()
}

/// Runs every `tf.function` as plain Python (prints on every call, results
/// as the function returns them), or traces them again.
#[native("run_functions_eagerly(run_eagerly)")]
pub fn run_functions_eagerly(vm: &dyn Vm, run_eagerly: &Value) -> PyResult<()> {
    let on = vm.truthy(run_eagerly)?;
    config(vm).functions_eagerly.set(on);
    Ok(())
}

/// The physical GPU `device` names, or TensorFlow's error.
fn physical(vm: &dyn Vm, device: &Value) -> PyResult<Device> {
    match device.downcast::<DeviceEntry>() {
        Some(e) if e.physical => Ok(e.device),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            format!("Unrecognized device: {}", vm.repr(device)?),
        )),
    }
}

/// Whether memory growth is enabled for a physical GPU (None: not set).
#[native("get_memory_growth(device)")]
pub fn get_memory_growth(vm: &dyn Vm, device: &Value) -> PyResult<Value> {
    let dev = physical(vm, device)?;
    if dev.kind != DeviceKind::Gpu {
        return Err(PyErr::with_args(ExcType::KeyError, vec![device.clone()]));
    }
    let growth = config(vm).memory_growth.borrow().get(&dev).cloned();
    Ok(growth.unwrap_or(Value::None))
}

/// Lets a physical GPU's memory grow as needed instead of taking it all.
#[native("set_memory_growth(device, enable)")]
pub fn set_memory_growth(vm: &dyn Vm, device: &Value, enable: &Value) -> PyResult<()> {
    let dev = physical(vm, device)?;
    if dev.kind != DeviceKind::Gpu {
        return Err(PyErr::new(
            ExcType::ValueError,
            "Cannot set memory growth on non-GPU and non-Pluggable devices",
        ));
    }
    let cfg = config(vm);
    let now = cfg
        .memory_growth
        .borrow()
        .get(&dev)
        .cloned()
        .unwrap_or(Value::None);
    if vm.eq(&now, enable)? {
        return Ok(());
    }
    if started(vm) {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "Physical devices cannot be modified after being initialized",
        ));
    }
    cfg.memory_growth.borrow_mut().insert(dev, enable.clone());
    Ok(())
}

/// Whether ops run synchronously.
#[native("get_synchronous_execution()")]
pub fn get_synchronous_execution(vm: &dyn Vm) -> bool {
    config(vm).synchronous.get()
}

/// Runs ops synchronously or not (dist always runs them in order).
#[native("set_synchronous_execution(enable)")]
pub fn set_synchronous_execution(vm: &dyn Vm, enable: &Value) -> PyResult<()> {
    let on = vm.truthy(enable)?;
    config(vm).synchronous.set(on);
    Ok(())
}

/// Whether TensorFloat-32 may be used for float32 matrix products.
#[native("tensor_float_32_execution_enabled()")]
pub fn tensor_float_32_execution_enabled(vm: &dyn Vm) -> bool {
    config(vm).tf32.get()
}

/// Allows or forbids TensorFloat-32 (dist computes float32 in full precision).
#[native("enable_tensor_float_32_execution(enabled)")]
pub fn enable_tensor_float_32_execution(vm: &dyn Vm, enabled: &Value) -> PyResult<()> {
    let on = vm.truthy(enabled)?;
    config(vm).tf32.set(on);
    Ok(())
}
