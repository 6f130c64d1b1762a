//! Devices: where a tensor lives ([`Device`]) and TensorFlow's device-string
//! parser ([`DeviceSpec`]). Which devices exist is decided by the
//! `distribute` layer; this file only names and parses them.

use std::fmt;

use super::error::{Error, Result};

/// The kind of a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeviceKind {
    /// The host CPU.
    Cpu,
    /// A GPU, real or virtual.
    Gpu,
}

impl DeviceKind {
    /// `CPU` or `GPU`, as TensorFlow writes it.
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "CPU",
            DeviceKind::Gpu => "GPU",
        }
    }
}

/// A concrete device a tensor is placed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Device {
    /// CPU or GPU.
    pub kind: DeviceKind,
    /// The device ordinal (`GPU:1` → 1).
    pub index: u32,
    /// True for a virtual GPU backed by host memory (computed by the CPU backend).
    pub is_virtual: bool,
}

impl Device {
    /// `CPU:0`, which always exists.
    pub const CPU0: Device = Device {
        kind: DeviceKind::Cpu,
        index: 0,
        is_virtual: false,
    };

    /// The CPU with the given index.
    pub fn cpu(index: u32) -> Device {
        Device {
            kind: DeviceKind::Cpu,
            index,
            is_virtual: false,
        }
    }

    /// A virtual GPU (host memory, CPU kernels).
    pub fn virtual_gpu(index: u32) -> Device {
        Device {
            kind: DeviceKind::Gpu,
            index,
            is_virtual: true,
        }
    }

    /// A real CUDA GPU.
    pub fn cuda_gpu(index: u32) -> Device {
        Device {
            kind: DeviceKind::Gpu,
            index,
            is_virtual: false,
        }
    }

    /// True when this device's memory is host memory (CPU or virtual GPU).
    pub fn is_host(&self) -> bool {
        self.kind == DeviceKind::Cpu || self.is_virtual
    }

    /// `/job:localhost/replica:0/task:0/device:GPU:0` (another job and
    /// task once a one-task cluster is configured: [`set_local_job`]).
    pub fn full_name(&self) -> String {
        LOCAL_JOB.with(|job| {
            let (name, task) = &*job.borrow();
            format!(
                "/job:{name}/replica:0/task:{task}/device:{}:{}",
                self.kind.name(),
                self.index
            )
        })
    }

    /// `GPU:0`.
    pub fn short_name(&self) -> String {
        format!("{}:{}", self.kind.name(), self.index)
    }
}

thread_local! {
    /// The job and task this process's devices belong to: `localhost`, 0
    /// unless a one-task cluster was configured (TensorFlow's context then
    /// names every device `/job:worker/replica:0/task:0/...`).
    static LOCAL_JOB: std::cell::RefCell<(String, u32)> =
        std::cell::RefCell::new(("localhost".to_string(), 0));
}

/// Names this thread's devices after a cluster's job and task (`None`:
/// back to `/job:localhost`, task 0, as a new interpreter starts).
pub fn set_local_job(job: Option<(&str, u32)>) {
    let job = job.map_or(("localhost".to_string(), 0), |(n, t)| (n.to_string(), t));
    LOCAL_JOB.with(|j| *j.borrow_mut() = job);
}

/// The job and task of this thread's devices.
pub fn local_job() -> (String, u32) {
    LOCAL_JOB.with(|j| j.borrow().clone())
}

impl Default for Device {
    fn default() -> Device {
        Device::CPU0
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.full_name())
    }
}

/// Where a script's GPUs live (`--gpu-backend`, or `DIST_GPU_BACKEND`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GpuBackend {
    /// Real GPUs the driver reports are `GPU:0..R-1` (CUDA); the
    /// `--virtual-gpus N` follow as `GPU:R..R+N-1` in host memory.
    #[default]
    Auto,
    /// Only the `--virtual-gpus N`, in host memory; real GPUs are ignored.
    Host,
    /// The `--virtual-gpus N` live on the real cards (`GPU:k` on card
    /// `k % R`), so a script written for N GPUs runs on the hardware there is.
    Cuda,
}

impl GpuBackend {
    /// Parses `auto`, `host` or `cuda`.
    pub fn parse(text: &str) -> Option<GpuBackend> {
        match text {
            "auto" => Some(GpuBackend::Auto),
            "host" => Some(GpuBackend::Host),
            "cuda" => Some(GpuBackend::Cuda),
            _ => None,
        }
    }

    /// The flag value naming this policy.
    pub fn name(self) -> &'static str {
        match self {
            GpuBackend::Auto => "auto",
            GpuBackend::Host => "host",
            GpuBackend::Cuda => "cuda",
        }
    }

    /// The GPUs a script sees under this policy with `virtual_gpus` asked
    /// for, in index order. Probes the driver (once per process) only when
    /// the policy can use real GPUs.
    pub fn gpus(self, virtual_gpus: u32) -> Vec<Device> {
        match self {
            GpuBackend::Host => (0..virtual_gpus).map(Device::virtual_gpu).collect(),
            GpuBackend::Cuda => (0..virtual_gpus).map(Device::cuda_gpu).collect(),
            GpuBackend::Auto => {
                let real = super::backend::cuda::gpu_count() as u32;
                (0..real)
                    .map(Device::cuda_gpu)
                    .chain((real..real + virtual_gpus).map(Device::virtual_gpu))
                    .collect()
            }
        }
    }

    /// `Err` with the reason when this policy cannot work on this machine
    /// (`cuda` without a driver or GPU).
    pub fn check(self) -> std::result::Result<(), String> {
        if self != GpuBackend::Cuda {
            return Ok(());
        }
        match super::backend::cuda::gpus() {
            Ok([]) => Err("--gpu-backend=cuda: the CUDA driver reports no GPU".into()),
            Ok(_) => Ok(()),
            Err(why) => Err(format!("--gpu-backend=cuda: {why}")),
        }
    }
}

/// A parsed, possibly partial device string, like `tf.DeviceSpec`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceSpec {
    /// `/job:NAME`.
    pub job: Option<String>,
    /// `/replica:N`.
    pub replica: Option<u32>,
    /// `/task:N`.
    pub task: Option<u32>,
    /// Device type, upper-cased for CPU/GPU (`CPU`, `GPU`, other names kept).
    pub device_type: Option<String>,
    /// Device index; `None` for `*` or absent.
    pub device_index: Option<u32>,
}

impl DeviceSpec {
    /// Parses every form TensorFlow accepts: `GPU:0`, `/gpu:0`, `/device:GPU:0`,
    /// `cpu`, `/job:localhost/replica:0/task:0/device:CPU:0`, `/device:CPU:*`.
    /// Errors read like TensorFlow's `ValueError`s.
    pub fn parse(text: &str) -> Result<DeviceSpec> {
        let mut spec = DeviceSpec::default();
        for part in text.split('/') {
            if part.is_empty() {
                continue;
            }
            let fields: Vec<&str> = part.split(':').collect();
            let lower = fields[0].to_ascii_lowercase();
            match (fields.len(), lower.as_str()) {
                (2, "job") => spec.job = Some(fields[1].to_string()),
                (2, "replica") => spec.replica = Some(parse_int(fields[1])?),
                (2, "task") => spec.task = Some(parse_int(fields[1])?),
                (1 | 2, "cpu" | "gpu") => {
                    spec.device_type = Some(lower.to_ascii_uppercase());
                    spec.device_index = match fields.get(1) {
                        None | Some(&"*") => None,
                        Some(s) => Some(parse_int(s)?),
                    };
                }
                (3, "device") => {
                    let ty = fields[1];
                    let up = ty.to_ascii_uppercase();
                    spec.device_type = Some(if up == "CPU" || up == "GPU" {
                        up
                    } else {
                        ty.to_string()
                    });
                    spec.device_index = match fields[2] {
                        "*" => None,
                        s => Some(parse_int(s)?),
                    };
                }
                (2, "device") => {
                    let up = fields[1].to_ascii_uppercase();
                    spec.device_type = Some(up);
                }
                _ => {
                    return Err(Error::value_error(format!(
                        "Unknown attribute '{}' is encountered while parsing the device spec: '{text}'.",
                        fields[0]
                    )))
                }
            }
        }
        Ok(spec)
    }

    /// `tf.DeviceSpec.to_string()`: `/job:…/replica:…/task:…/device:GPU:0`,
    /// with `*` for a missing index.
    pub fn to_spec_string(&self) -> String {
        let mut s = String::new();
        if let Some(j) = &self.job {
            s += &format!("/job:{j}");
        }
        if let Some(r) = self.replica {
            s += &format!("/replica:{r}");
        }
        if let Some(t) = self.task {
            s += &format!("/task:{t}");
        }
        if let Some(ty) = &self.device_type {
            match self.device_index {
                Some(i) => s += &format!("/device:{ty}:{i}"),
                None => s += &format!("/device:{ty}:*"),
            }
        }
        s
    }

    /// The device kind, when the type is CPU or GPU.
    pub fn kind(&self) -> Option<DeviceKind> {
        match self.device_type.as_deref() {
            Some("CPU") => Some(DeviceKind::Cpu),
            Some("GPU") => Some(DeviceKind::Gpu),
            _ => None,
        }
    }
}

fn parse_int(s: &str) -> Result<u32> {
    s.parse::<u32>()
        .map_err(|_| Error::value_error(format!("invalid literal for int() with base 10: '{s}'")))
}

#[cfg(test)]
mod tests {
    use super::{Device, DeviceSpec};

    fn spec(s: &str) -> String {
        DeviceSpec::parse(s)
            .map(|d| d.to_spec_string())
            .unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn parses_like_tensorflow() {
        assert_eq!(spec("GPU:0"), "/device:GPU:0");
        assert_eq!(spec("/gpu:0"), "/device:GPU:0");
        assert_eq!(spec("Gpu:0"), "/device:GPU:0");
        assert_eq!(spec("/device:cpu:0"), "/device:CPU:0");
        assert_eq!(spec("CPU"), "/device:CPU:*");
        assert_eq!(spec("/device:CPU:*"), "/device:CPU:*");
        assert_eq!(spec("/replica:0/device:GPU:3"), "/replica:0/device:GPU:3");
        assert_eq!(
            spec("/job:localhost/replica:0/task:0/device:CPU:0"),
            "/job:localhost/replica:0/task:0/device:CPU:0"
        );
        assert_eq!(spec("/job:worker/task:1"), "/job:worker/task:1");
        assert_eq!(spec(""), "");
        assert_eq!(
            spec("foo:0"),
            "Unknown attribute 'foo' is encountered while parsing the device spec: 'foo:0'."
        );
        assert_eq!(
            spec("/GPU:x"),
            "invalid literal for int() with base 10: 'x'"
        );
        assert_eq!(
            Device::virtual_gpu(1).full_name(),
            "/job:localhost/replica:0/task:0/device:GPU:1"
        );
    }
}
