//! The devices a script sees and how device strings resolve to them:
//! `CPU:0` (or the logical CPUs configured with
//! `tf.config.set_logical_device_configuration`) and the `--virtual-gpus N`
//! GPUs. Also `tf.config` (device listing and logical configuration) and the
//! `tf.device(...)` context manager.

use super::context::{pop_device, push_device, state};
use crate::distribute::classes::{getters, native_class};
use crate::object::{native, ClassSpec, Member};
use crate::runtime::{Device, DeviceKind, DeviceSpec};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// The script's GPUs in index order: real ones and the `--virtual-gpus`,
/// placed as `--gpu-backend` says ([`crate::runtime::GpuBackend::gpus`]).
pub fn gpus(vm: &dyn Vm) -> Vec<Device> {
    let config = vm.state().get::<super::Config>();
    config.gpu_backend.get().gpus(config.virtual_gpus.get())
}

/// `GPU:index` as the script sees it (real or virtual; the caller checks
/// that it exists).
pub fn gpu(vm: &dyn Vm, index: u32) -> Device {
    gpus(vm)
        .get(index as usize)
        .copied()
        .unwrap_or(Device::virtual_gpu(index))
}

/// The visible devices, CPUs first.
pub fn visible(vm: &dyn Vm) -> Vec<Device> {
    let cpus = state(vm).logical_cpus.get().unwrap_or(1);
    let mut out: Vec<Device> = (0..cpus).map(Device::cpu).collect();
    out.extend(gpus(vm));
    out
}

fn number_word(n: u32) -> String {
    const WORDS: [&str; 9] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
    ];
    WORDS
        .get(n as usize)
        .map(|w| w.to_string())
        .unwrap_or_else(|| n.to_string())
}

/// Where what is placed on `named` lives: `named` itself when it exists,
/// else `CPU:0`, as TensorFlow's soft device placement (its default) puts
/// it. The name stays where TensorFlow shows it (a strategy's
/// `worker_devices`); a hint on stderr says so once per missing device.
/// With `tf.config.set_soft_device_placement(False)`, TensorFlow's
/// InvalidArgumentError instead.
pub fn placed(vm: &dyn Vm, named: Device) -> PyResult<Device> {
    let visible = visible(vm);
    if visible.contains(&named) {
        return Ok(named);
    }
    if !super::runtime_config::soft_placement(vm) {
        return Err(not_satisfiable(&named, &visible));
    }
    let kind = named.kind;
    let have = visible.iter().filter(|d| d.kind == kind).count();
    let how = match kind {
        DeviceKind::Gpu => format!(
            "run with --virtual-gpus {} to simulate {}",
            named.index + 1,
            number_word(named.index + 1)
        ),
        DeviceKind::Cpu => "tf.config.set_logical_device_configuration configures more CPUs".into(),
    };
    super::notes::hint_once(
        vm,
        &format!("soft-placement:{}", named.short_name()),
        &format!(
            "{} does not exist ({have} {}{} visible): TensorFlow's soft placement runs what is placed there on CPU:0 and keeps the name; {how}",
            named.short_name(),
            kind.name(),
            if have == 1 { " is" } else { "s are" },
        ),
    );
    Ok(Device::CPU0)
}

/// A hint, once, where a collective runs between replicas that soft
/// placement put on one device: TensorFlow's collectives there wait for
/// each other forever (measured with TensorFlow 2.21: `all_reduce` in a
/// replica function, `strategy.gather`, Keras `fit`), dist computes them
/// as it would on separate devices.
pub fn shared_device_collective(vm: &dyn Vm, devices: &[Device], what: &str) {
    let Some((j, i)) = (1..devices.len()).find_map(|j| {
        devices[..j]
            .iter()
            .position(|d| *d == devices[j])
            .map(|i| (j, i))
    }) else {
        return;
    };
    super::notes::hint_once(
        vm,
        "soft-placement:collective",
        &format!(
            "{what}: replicas {i} and {j} both run on {} (soft placement of devices that do not exist); TensorFlow's collectives between replicas on one device never return, dist computes them as on separate devices",
            devices[i].short_name()
        ),
    );
}

/// TensorFlow's error for a missing device without soft placement.
#[cold]
fn not_satisfiable(named: &Device, visible: &[Device]) -> PyErr {
    let types = if visible.iter().any(|d| d.kind == DeviceKind::Gpu) {
        "GPU, CPU"
    } else {
        "CPU"
    };
    let all: Vec<String> = visible.iter().map(Device::full_name).collect();
    PyErr::new(
        ExcType::InvalidArgumentError,
        format!(
            "Could not satisfy device specification '{}'. enable_soft_placement=0. Supported device types [{types}]. All available devices [{}].",
            named.full_name(),
            all.join(", ")
        ),
    )
    .help("tf.config.set_soft_device_placement(True) (TensorFlow's default) runs it on CPU:0")
}

/// Resolves a device string (`GPU:0`, `/gpu:0`, `/device:GPU:0`,
/// `/job:localhost/replica:0/task:0/device:GPU:0`) to the device it names,
/// which need not exist ([`placed`] says where its work runs); a partial
/// spec fills in from `base`.
pub fn resolve_named(vm: &dyn Vm, text: &str, base: Device) -> PyResult<Device> {
    let spec = DeviceSpec::parse(text).map_err(crate::object::tensor::convert::runtime_err)?;
    let (job, _) = crate::runtime::device::local_job();
    if spec.job.as_deref().is_some_and(|j| j != job) && job != "localhost" {
        // TensorFlow's words once a cluster renamed the devices
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!("{text} unknown device."),
        ));
    }
    if spec.job.as_deref().is_some_and(|j| j != job) {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "device '{text}' names job '{}': only '/job:localhost' exists here",
                spec.job.as_deref().unwrap_or("")
            ),
        ));
    }
    let kind = match (&spec.device_type, spec.kind()) {
        (None, _) => return Ok(base),
        (Some(_), Some(k)) => k,
        (Some(t), None) => {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("device type '{t}' in '{text}' is not supported: use CPU or GPU"),
            ))
        }
    };
    let index = spec.device_index.unwrap_or(0);
    let dev = match kind {
        DeviceKind::Cpu => Device::cpu(index),
        DeviceKind::Gpu => gpu(vm, index),
    };
    Ok(dev)
}

/// Resolves a device string to where what is placed on it lives (the
/// device, or `CPU:0` by soft placement: [`placed`]).
pub fn resolve_with(vm: &dyn Vm, text: &str, base: Device) -> PyResult<Device> {
    placed(vm, resolve_named(vm, text, base)?)
}

/// Resolves a device string to where what is placed on it lives.
pub fn resolve(vm: &dyn Vm, text: &str) -> PyResult<Device> {
    resolve_with(vm, text, Device::CPU0)
}

/// A device argument: where what is placed on it lives ([`placed`]).
pub fn device_arg(vm: &dyn Vm, v: &Value) -> PyResult<Device> {
    placed(vm, device_arg_named(vm, v)?)
}

/// A device argument as named: a string (or a `tf.config` device entry);
/// the device need not exist.
pub fn device_arg_named(vm: &dyn Vm, v: &Value) -> PyResult<Device> {
    match v {
        Value::Str(s) => resolve_named(vm, s, Device::CPU0),
        Value::Native(n) if n.as_any().is::<DeviceEntry>() => {
            let e = v.downcast::<DeviceEntry>().expect("checked");
            Ok(e.device)
        }
        other => Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "a device must be a string such as 'GPU:0', not {}",
                other.type_name()
            ),
        )),
    }
}

/// `PhysicalDevice(...)` / `LogicalDevice(...)` as `tf.config` lists them.
pub struct DeviceEntry {
    /// The device.
    pub device: Device,
    /// True for `PhysicalDevice`, false for `LogicalDevice`.
    pub physical: bool,
}

const CONTEXT: &str = "tensorflow.python.eager.context";

/// `tf.config.PhysicalDevice`.
pub static PHYSICAL_DEVICE: ClassSpec = ClassSpec {
    name: "PhysicalDevice",
    module: CONTEXT,
    bases: &[],
    members: &[
        Member::Getter(device_name::DEF),
        Member::Getter(device_type::DEF),
    ],
};

/// `tf.config.LogicalDevice`.
pub static LOGICAL_DEVICE: ClassSpec = ClassSpec {
    name: "LogicalDevice",
    module: CONTEXT,
    bases: &[],
    members: &[
        Member::Getter(device_name::DEF),
        Member::Getter(device_type::DEF),
    ],
};

native_class!(DeviceEntry: PHYSICAL_DEVICE);

impl DeviceEntry {
    fn name(&self) -> String {
        if self.physical {
            format!("/physical_device:{}", self.device.short_name())
        } else {
            format!("/device:{}", self.device.short_name())
        }
    }
}

impl NativeObject for DeviceEntry {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(if self.physical {
            &PHYSICAL_DEVICE
        } else {
            &LOGICAL_DEVICE
        })
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "{}(name='{}', device_type='{}')",
            self.type_name(),
            self.name(),
            self.device.kind.name()
        ))
    }
    fn equals(&self, _this: &Value, other: &Value, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        let same = other
            .downcast::<DeviceEntry>()
            .is_some_and(|o| o.device == self.device && o.physical == self.physical);
        Ok(Some(same))
    }
}

getters! { this: &DeviceEntry;
    /// The device's name (`/physical_device:GPU:0`, `/device:GPU:0`).
    fn device_name("PhysicalDevice.name(self)") -> String { this.name() }
    /// `CPU` or `GPU`.
    fn device_type("PhysicalDevice.device_type(self)") -> &'static str { this.device.kind.name() }
}

/// `tf.config.LogicalDeviceConfiguration(...)`.
pub struct LogicalConfig {
    memory_limit: Value,
    priority: Value,
    ordinal: Value,
}

impl NativeObject for LogicalConfig {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&LOGICAL_DEVICE_CONFIGURATION)
    }
    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "LogicalDeviceConfiguration(memory_limit={}, experimental_priority={}, experimental_device_ordinal={})",
            vm.repr(&self.memory_limit)?,
            vm.repr(&self.priority)?,
            vm.repr(&self.ordinal)?
        ))
    }
}

/// `tf.config.LogicalDeviceConfiguration`.
pub static LOGICAL_DEVICE_CONFIGURATION: ClassSpec = ClassSpec {
    name: "LogicalDeviceConfiguration",
    module: CONTEXT,
    bases: &[],
    members: &[
        Member::Getter(memory_limit::DEF),
        Member::Getter(experimental_priority::DEF),
        Member::Getter(experimental_device_ordinal::DEF),
    ],
};

native_class!(LogicalConfig: LOGICAL_DEVICE_CONFIGURATION);

getters! { this: &LogicalConfig;
    /// The memory limit in MB (None: no limit).
    fn memory_limit("LogicalDeviceConfiguration.memory_limit(self)") -> Value {
        this.memory_limit.clone()
    }
    /// The priority.
    fn experimental_priority("LogicalDeviceConfiguration.experimental_priority(self)") -> Value {
        this.priority.clone()
    }
    /// The device ordinal.
    fn experimental_device_ordinal("LogicalDeviceConfiguration.experimental_device_ordinal(self)") -> Value {
        this.ordinal.clone()
    }
}

fn filter_type(vm: &dyn Vm, ty: Option<&Value>) -> PyResult<Option<String>> {
    match ty {
        None => Ok(None),
        Some(Value::Str(s)) => Ok(Some(s.to_ascii_uppercase())),
        Some(v) => Err(PyErr::new(
            ExcType::TypeError,
            format!("device_type must be a string, not {}", vm.repr(v)?),
        )),
    }
}

fn list_devices(vm: &dyn Vm, device_type: Option<&Value>, physical: bool) -> PyResult<Value> {
    let ty = filter_type(vm, device_type)?;
    let devs: Vec<Device> = if physical {
        let mut v = vec![Device::CPU0];
        v.extend(gpus(vm));
        v
    } else {
        super::context::placement(vm).initialized.set(true);
        visible(vm)
    };
    let items = devs
        .into_iter()
        .filter(|d| ty.as_deref().is_none_or(|t| t == d.kind.name()))
        .map(|device| Value::native(DeviceEntry { device, physical }))
        .collect();
    Ok(Value::list(items))
}

/// The physical devices (`CPU:0` and the virtual GPUs).
#[native("list_physical_devices(device_type=None)")]
pub fn list_physical_devices(vm: &dyn Vm, device_type: Option<&Value>) -> PyResult<Value> {
    list_devices(vm, device_type, true)
}

/// The logical devices ops can be placed on.
#[native("list_logical_devices(device_type=None)")]
pub fn list_logical_devices(vm: &dyn Vm, device_type: Option<&Value>) -> PyResult<Value> {
    list_devices(vm, device_type, false)
}

/// Configuration of one logical device.
#[native("LogicalDeviceConfiguration(memory_limit=None, experimental_priority=None, experimental_device_ordinal=None)")]
pub fn logical_device_configuration(
    memory_limit: &Value,
    experimental_priority: &Value,
    experimental_device_ordinal: &Value,
) -> Value {
    Value::native(LogicalConfig {
        memory_limit: memory_limit.clone(),
        priority: experimental_priority.clone(),
        ordinal: experimental_device_ordinal.clone(),
    })
}

fn physical_arg(v: &Value) -> PyResult<Device> {
    match v.downcast::<DeviceEntry>() {
        Some(e) if e.physical => Ok(e.device),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            "Unrecognized device: a PhysicalDevice from tf.config.list_physical_devices() is required",
        )),
    }
}

/// Splits the physical CPU into logical CPUs (before the runtime is initialised).
#[native("set_logical_device_configuration(device, logical_devices)")]
pub fn set_logical_device_configuration(
    vm: &dyn Vm,
    device: &Value,
    logical_devices: &Value,
) -> PyResult<()> {
    let dev = physical_arg(device)?;
    let configs = match logical_devices {
        Value::None => None,
        v => Some(vm.collect(v)?),
    };
    let st = state(vm);
    if super::context::placement(vm).initialized.get() {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "Virtual devices cannot be modified after being initialized",
        )
        .help("configure logical devices before the first tensor is created"));
    }
    if dev.kind == DeviceKind::Gpu {
        return Err(PyErr::new(
            ExcType::ValueError,
            "logical GPUs are not supported: virtual GPUs come from --virtual-gpus N",
        ));
    }
    match configs {
        None => st.logical_cpus.set(None),
        Some(c) if c.is_empty() => {
            return Err(PyErr::new(
                ExcType::ValueError,
                "Setting logical device configuration to an empty list is not supported",
            ))
        }
        Some(c) => st.logical_cpus.set(Some(c.len() as u32)),
    }
    Ok(())
}

/// The logical configuration of a physical device, or None.
#[native("get_logical_device_configuration(device)")]
pub fn get_logical_device_configuration(vm: &dyn Vm, device: &Value) -> PyResult<Value> {
    let dev = physical_arg(device)?;
    if dev.kind == DeviceKind::Gpu {
        return Ok(Value::None);
    }
    Ok(match state(vm).logical_cpus.get() {
        None => Value::None,
        Some(n) => Value::list(
            (0..n)
                .map(|_| {
                    Value::native(LogicalConfig {
                        memory_limit: Value::None,
                        priority: Value::None,
                        ordinal: Value::None,
                    })
                })
                .collect(),
        ),
    })
}

/// The visible physical devices.
#[native("get_visible_devices(device_type=None)")]
pub fn get_visible_devices(vm: &dyn Vm, device_type: Option<&Value>) -> PyResult<Value> {
    list_devices(vm, device_type, true)
}

/// `with tf.device(...)`: the scope object.
pub struct DeviceScope {
    device: Option<Device>,
}

/// The class of `tf.device(...)` scopes.
pub static DEVICE_SCOPE: ClassSpec = ClassSpec::plain("_EagerDeviceContext", "builtins");

impl NativeObject for DeviceScope {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&DEVICE_SCOPE)
    }
    fn enter(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if let Some(d) = self.device {
            push_device(vm, d);
        }
        Ok(Some(Value::None))
    }
    fn exit(&self, _this: &Value, _exc: Option<&PyErr>, vm: &dyn Vm) -> PyResult<bool> {
        if self.device.is_some() {
            pop_device(vm);
        }
        Ok(false)
    }
}

/// Context manager placing the ops created in it on a device (`with tf.device('GPU:1'):`).
#[native("device(device_name)")]
pub fn device(vm: &dyn Vm, device_name: &Value) -> PyResult<Value> {
    let device = match device_name {
        Value::None => None,
        Value::Str(s) => {
            let base = super::context::scoped_device(vm)
                .or_else(|| super::context::replica_device(vm))
                .unwrap_or(Device::CPU0);
            Some(resolve_with(vm, s, base)?)
        }
        v => Some(device_arg(vm, v)?),
    };
    Ok(Value::native(DeviceScope { device }))
}
