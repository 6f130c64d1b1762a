//! The CUDA backend (feature `cuda`): real GPUs through cudarc, loaded at run
//! time (`dlopen`), so building needs no toolkit and a machine without a
//! driver runs every CPU path unchanged.
//!
//! What lives here: driver discovery ([`gpus`]), the per-card table of
//! context, stream, cuBLAS handle and compiled kernels ([`card`]), device
//! buffers ([`CudaStorage`]) and host transfers ([`place`]). The kernels
//! themselves are in `ops.rs` (sources in `backend/kernels/`), the
//! collectives in `collective.rs`. `cuda_stub.rs` has the same API for
//! builds without the feature.
//!
//! Placement: a GPU device that is not virtual is CUDA-backed, on card
//! `index % card_count` (so `--gpu-backend=cuda` can put N replicas on R
//! cards). Data crosses to the host only when something reads it there:
//! printing, `.numpy()`, Python scalars, or a kernel the device does not have
//! (each such fallback is counted, [`fallback_count`]).

pub mod bench;
mod collective;
mod ops;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};

pub use super::{is_cuda, GpuInfo};
pub use collective::all_reduce_sum;
pub use ops::{CudaBackend, CUDA};

use crate::runtime::device::Device;
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, ErrorKind, Result};
use crate::runtime::f16::F16;
use crate::runtime::storage::{HostData, Storage};

/// True in this build: the CUDA backend is compiled in.
pub const BUILT_WITH_CUDA: bool = true;

fn driver_err(what: &str, e: impl std::fmt::Debug) -> Error {
    Error::new(ErrorKind::Internal, format!("CUDA {what}: {e:?}"))
}

/// The real GPUs the driver reports, probed once. `Err` says why there are
/// none (no driver library, no device); probing costs one failed `dlopen`
/// per candidate name when no driver is installed.
pub fn gpus() -> std::result::Result<&'static [GpuInfo], String> {
    static PROBE: OnceLock<std::result::Result<Vec<GpuInfo>, String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            // a driver too old for the symbols cudarc binds panics inside
            // cudarc: report it as "no GPUs" rather than end the process
            std::panic::catch_unwind(probe).unwrap_or_else(|_| {
                Err(
                    "the CUDA driver could not be used (a library panicked while probing it)"
                        .into(),
                )
            })
        })
        .as_ref()
        .map(|v| v.as_slice())
        .map_err(|e| e.clone())
}

fn probe() -> std::result::Result<Vec<GpuInfo>, String> {
    // cudarc panics when the library is absent: look before touching it,
    // first by the driver's soname alone (one failed dlopen, not the
    // 34 names cudarc tries, keeps a GPU-less start as fast as before)
    // SAFETY: only attempts to dlopen the driver library by name
    if !driver_soname_present() || !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver found (libcuda.so could not be loaded)".into());
    }
    let n = CudaContext::device_count().map_err(|e| format!("CUDA driver: {e:?}"))?;
    let mut out = Vec::new();
    for ordinal in 0..n.max(0) as usize {
        let ctx = card(ordinal)
            .map_err(|e| e.message().to_string())?
            .ctx
            .clone();
        out.push(GpuInfo {
            ordinal,
            name: ctx.name().unwrap_or_else(|_| "unknown GPU".into()),
            total_mem: ctx.total_mem().unwrap_or(0),
            compute_capability: ctx.compute_capability().unwrap_or((0, 0)),
        });
    }
    Ok(out)
}

/// Whether the driver's library loads under its soname (`libcuda.so.1`,
/// which every Linux driver install provides) or its plain name.
fn driver_soname_present() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    [c"libcuda.so.1", c"libcuda.so"].iter().any(|name| {
        // SAFETY: dlopen/dlclose of a library by name; the handle is closed
        // at once (cudarc opens its own).
        unsafe {
            let h = libc::dlopen(name.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL);
            if h.is_null() {
                false
            } else {
                libc::dlclose(h);
                true
            }
        }
    })
}

/// The number of real GPUs (0 without a driver).
pub fn gpu_count() -> usize {
    gpus().map(|g| g.len()).unwrap_or(0)
}

/// True when libnvrtc can be loaded (kernels can be compiled).
pub fn nvrtc_available() -> bool {
    // SAFETY: only attempts to dlopen libnvrtc by name
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// True when libnccl can be loaded.
pub fn nccl_available() -> bool {
    // SAFETY: only attempts to dlopen libnccl by name
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// NVRTC options shared by every kernel: no fused multiply-add, IEEE division
/// and square root, so results match the CPU backend's.
fn compile_options(arch: Option<(i32, i32)>) -> CompileOptions {
    let mut options = vec!["--std=c++17".to_string()];
    if let Some((major, minor)) = arch {
        options.push(format!("--gpu-architecture=compute_{major}{minor}"));
    }
    CompileOptions {
        fmad: Some(false),
        prec_div: Some(true),
        prec_sqrt: Some(true),
        ftz: Some(false),
        options,
        ..Default::default()
    }
}

/// Compiles one kernel source to PTX (the test of every source uses this;
/// `arch` like `(9, 0)` also runs NVRTC's checks for that architecture).
pub fn compile(source: &str, arch: Option<(i32, i32)>) -> std::result::Result<String, String> {
    if !nvrtc_available() {
        return Err("libnvrtc could not be loaded".into());
    }
    compile_ptx_with_opts(source, compile_options(arch))
        .map(|ptx| ptx.to_src())
        .map_err(|e| format!("{e}"))
}

/// Compiles one kernel source all the way to machine code for `sm_{major}{minor}`
/// and returns the CUBIN (NVRTC runs its assembler too, so inline PTX is
/// checked), without a GPU. `Err` holds NVRTC's log. The backend loads
/// CUBINs rather than PTX: a CUBIN needs no JIT, so a libnvrtc newer than
/// the driver still works (PTX from a newer NVRTC is refused by an older driver).
pub fn compile_cubin(
    source: &str,
    (major, minor): (i32, i32),
) -> std::result::Result<Vec<u8>, String> {
    use cudarc::nvrtc::{result, sys};
    if !nvrtc_available() {
        return Err("libnvrtc could not be loaded".into());
    }
    let src = std::ffi::CString::new(source).map_err(|e| e.to_string())?;
    let prog = result::create_program(&src, None).map_err(|e| format!("{e:?}"))?;
    let options = [
        "--fmad=false".to_string(),
        "--prec-div=true".to_string(),
        "--prec-sqrt=true".to_string(),
        "--ftz=false".to_string(),
        "--std=c++17".to_string(),
        format!("--gpu-architecture=sm_{major}{minor}"),
    ];
    // SAFETY: `prog` was just created from `src`, which outlives it, is only
    // passed to NVRTC calls, and is destroyed exactly once below; the CUBIN
    // buffer has the size NVRTC reported.
    unsafe {
        let mut out = match result::compile_program(prog, &options) {
            Ok(()) => Ok(Vec::new()),
            Err(e) => {
                let log = result::get_program_log(prog)
                    .map(|l| {
                        let bytes: Vec<u8> = l
                            .iter()
                            .take_while(|&&c| c != 0)
                            .map(|&c| c as u8)
                            .collect();
                        String::from_utf8_lossy(&bytes).into_owned()
                    })
                    .unwrap_or_default();
                Err(format!("{e:?}: {log}"))
            }
        };
        if let Ok(bin) = &mut out {
            let mut size = 0usize;
            let r = sys::nvrtcGetCUBINSize(prog, &mut size);
            if r != sys::nvrtcResult::NVRTC_SUCCESS || size == 0 {
                out = Err(format!("nvrtcGetCUBINSize: {r:?}"));
            } else {
                bin.resize(size, 0);
                let r = sys::nvrtcGetCUBIN(prog, bin.as_mut_ptr().cast());
                if r != sys::nvrtcResult::NVRTC_SUCCESS {
                    out = Err(format!("nvrtcGetCUBIN: {r:?}"));
                }
            }
        }
        let _ = result::destroy_program(prog);
        out
    }
}

/// One card: its context, stream, cuBLAS handle and loaded kernels.
pub struct Card {
    /// The CUDA ordinal.
    pub ordinal: usize,
    /// The primary context.
    pub ctx: Arc<CudaContext>,
    /// The stream every op of this card runs on (in order, so no events are needed).
    pub stream: Arc<CudaStream>,
    /// cuBLAS, created on the first matmul.
    blas: OnceLock<std::result::Result<cudarc::cublas::CudaBlas, String>>,
    /// Loaded modules and kernels; `Err` remembers one that would not build.
    kernels: Mutex<KernelCache>,
}

/// Compiled modules by source hash, and their kernels by name.
#[derive(Default)]
struct KernelCache {
    modules: HashMap<u64, std::result::Result<Arc<CudaModule>, String>>,
    functions: HashMap<String, std::result::Result<CudaFunction, String>>,
}

/// The card table, one entry per ordinal, created on first use.
fn cards() -> &'static Mutex<HashMap<usize, Arc<Card>>> {
    static CARDS: OnceLock<Mutex<HashMap<usize, Arc<Card>>>> = OnceLock::new();
    CARDS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The card with this ordinal (context, stream and caches made once).
pub fn card(ordinal: usize) -> Result<Arc<Card>> {
    let mut table = cards()
        .lock()
        .map_err(|_| Error::internal("CUDA card table poisoned"))?;
    if let Some(c) = table.get(&ordinal) {
        return Ok(c.clone());
    }
    // SAFETY: only attempts to dlopen the driver library by name
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(no_driver());
    }
    let ctx = CudaContext::new(ordinal).map_err(|e| driver_err("context", e))?;
    let stream = ctx.default_stream();
    let c = Arc::new(Card {
        ordinal,
        ctx,
        stream,
        blas: OnceLock::new(),
        kernels: Mutex::new(KernelCache::default()),
    });
    table.insert(ordinal, c.clone());
    Ok(c)
}

#[cold]
fn no_driver() -> Error {
    Error::unimplemented("no CUDA driver found: real GPUs are not available on this machine")
}

impl Card {
    /// The kernel `src.name`, compiling its module with NVRTC on first use
    /// (one module per source text, shared by the kernels it defines).
    pub fn kernel(&self, src: &super::kernels::KernelSource) -> Result<CudaFunction> {
        let mut table = self
            .kernels
            .lock()
            .map_err(|_| Error::internal("CUDA kernel cache poisoned"))?;
        if let Some(k) = table.functions.get(&src.name) {
            return k.clone().map_err(Error::internal);
        }
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            src.source.hash(&mut h);
            h.finish()
        };
        let module = match table.modules.get(&key) {
            Some(m) => m.clone(),
            None => {
                let built = self.build(src);
                table.modules.insert(key, built.clone());
                built
            }
        };
        let f = module.and_then(|m| {
            m.load_function(&src.name)
                .map_err(|e| format!("function {}: {e:?}", src.name))
        });
        table.functions.insert(src.name.clone(), f.clone());
        f.map_err(Error::internal)
    }

    /// Compiles and loads one module: machine code for this card, or PTX
    /// (JIT by the driver) if that fails.
    fn build(
        &self,
        src: &super::kernels::KernelSource,
    ) -> std::result::Result<Arc<CudaModule>, String> {
        // cudarc panics when a library is absent: look before touching it
        if !nvrtc_available() {
            return Err("libnvrtc.so.12 could not be loaded".into());
        }
        let cc = self
            .ctx
            .compute_capability()
            .map_err(|e| format!("{e:?}"))?;
        match compile_cubin(&src.source, cc) {
            Ok(cubin) => self.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(cubin)),
            Err(_) => {
                let ptx = compile_ptx_with_opts(&src.source, compile_options(Some(cc)))
                    .map_err(|e| format!("NVRTC {}: {e}", src.name))?;
                self.ctx.load_module(ptx)
            }
        }
        .map_err(|e| format!("load {}: {e:?}", src.name))
    }

    /// The cuBLAS handle of this card.
    pub fn blas(&self) -> Result<&cudarc::cublas::CudaBlas> {
        self.blas
            .get_or_init(|| {
                // SAFETY: only attempts to dlopen libcublas by name
                if !unsafe { cudarc::cublas::sys::is_culib_present() } {
                    return Err("libcublas.so.12 could not be loaded".into());
                }
                cudarc::cublas::CudaBlas::new(self.stream.clone()).map_err(|e| format!("{e:?}"))
            })
            .as_ref()
            .map_err(|e| Error::internal(format!("cuBLAS: {e}")))
    }
}

/// The card a CUDA-backed device runs on: `GPU:k` is card `k % cards`.
pub fn card_of(device: Device) -> Result<usize> {
    let n = gpu_count();
    if n == 0 {
        return Err(no_driver());
    }
    Ok(device.index as usize % n)
}

static FALLBACKS: AtomicU64 = AtomicU64::new(0);

/// How many ops on CUDA tensors ran on the host instead (no device kernel).
pub fn fallback_count() -> u64 {
    FALLBACKS.load(Ordering::Relaxed)
}

pub(crate) fn count_fallback(what: &str) {
    FALLBACKS.fetch_add(1, Ordering::Relaxed);
    if std::env::var_os("DIST_CUDA_LOG_FALLBACKS").is_some() {
        eprintln!("dist: cuda fallback to host: {what}");
    }
}

/// A buffer in device memory. The bytes are the row-major elements (bool as
/// one byte 0/1, float16 as its bits); the host copy is made once, on the
/// first read from the host, and kept (tensors are immutable).
#[derive(Clone)]
pub struct CudaStorage {
    /// The element type.
    pub dtype: DType,
    /// Number of elements.
    pub len: usize,
    /// The card the bytes are on.
    pub card: Arc<Card>,
    /// The bytes, shared by clones (immutable once written).
    pub buf: Arc<CudaSlice<u8>>,
    /// The host copy, made on first host read.
    host: OnceLock<HostData>,
}

impl std::fmt::Debug for CudaStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CudaStorage({}, {} elements, card {})",
            self.dtype, self.len, self.card.ordinal
        )
    }
}

impl PartialEq for CudaStorage {
    /// Equal elements (compares host copies; used by tests only).
    fn eq(&self, other: &Self) -> bool {
        self.dtype == other.dtype && self.host() == other.host()
    }
}

impl CudaStorage {
    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Wraps bytes already on `card`.
    pub(crate) fn new(dtype: DType, len: usize, card: Arc<Card>, buf: CudaSlice<u8>) -> Self {
        CudaStorage {
            dtype,
            len,
            card,
            buf: Arc::new(buf),
            host: OnceLock::new(),
        }
    }

    /// The elements in host memory, copied from the device on first call
    /// (`None` if the copy failed; callers report "not in host memory").
    pub fn host(&self) -> Option<&HostData> {
        if let Some(h) = self.host.get() {
            return Some(h);
        }
        let h = download(self).ok()?;
        Some(self.host.get_or_init(|| h))
    }

    /// The host copy, with the error when the device copy fails.
    pub fn to_host(&self) -> Result<HostData> {
        match self.host.get() {
            Some(h) => Ok(h.clone()),
            None => download(self),
        }
    }
}

/// Bytes of a host buffer as the device stores them.
fn host_bytes(h: &HostData) -> Result<std::borrow::Cow<'_, [u8]>> {
    fn raw<T: Copy>(v: &[T]) -> &[u8] {
        // SAFETY: T is a primitive (bool, integer or float) with no padding,
        // so every byte of the slice is initialised and may be read as u8.
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
    }
    use std::borrow::Cow;
    Ok(match h {
        HostData::Bool(v) => Cow::Borrowed(raw(v)),
        HostData::I8(v) => Cow::Borrowed(raw(v)),
        HostData::U8(v) => Cow::Borrowed(raw(v)),
        HostData::I16(v) => Cow::Borrowed(raw(v)),
        HostData::I32(v) => Cow::Borrowed(raw(v)),
        HostData::I64(v) => Cow::Borrowed(raw(v)),
        HostData::F16(v) => Cow::Owned(v.iter().flat_map(|x| x.to_bits().to_ne_bytes()).collect()),
        HostData::F32(v) => Cow::Borrowed(raw(v)),
        HostData::F64(v) => Cow::Borrowed(raw(v)),
        HostData::Str(_) | HostData::C64(_) | HostData::C128(_) => {
            return Err(Error::internal(
                "string and complex tensors stay in host memory on every device",
            ))
        }
    })
}

/// A zeroed device buffer the size of `c`, on `c`'s card.
pub(crate) fn alloc_like(c: &CudaStorage) -> Result<CudaSlice<u8>> {
    c.card
        .stream
        .alloc_zeros::<u8>((c.len * c.dtype.size()).max(1))
        .map_err(|e| driver_err("alloc", e))
}

/// Uploads of at most this many bytes keep their host copy.
const KEEP_HOST_COPY: usize = 1 << 20;

/// Copies a host buffer to `card`.
pub(crate) fn upload(h: &HostData, card: &Arc<Card>) -> Result<CudaStorage> {
    let bytes = host_bytes(h)?;
    let buf = if bytes.is_empty() {
        card.stream
            .alloc_zeros::<u8>(1)
            .map_err(|e| driver_err("alloc", e))?
    } else {
        card.stream
            .clone_htod(&bytes[..])
            .map_err(|e| driver_err("host-to-device copy", e))?
    };
    let s = CudaStorage::new(h.dtype(), h.len(), card.clone(), buf);
    // the host copy of a small buffer is already known: keep it, so printing
    // it costs no copy back (large ones are not duplicated in host memory)
    if bytes.len() <= KEEP_HOST_COPY {
        let _ = s.host.set(h.clone());
    }
    Ok(s)
}

fn download(s: &CudaStorage) -> Result<HostData> {
    let nbytes = s.len * s.dtype.size();
    let bytes: Vec<u8> = if nbytes == 0 {
        Vec::new()
    } else {
        let view = s.buf.slice(0..nbytes);
        s.card
            .stream
            .clone_dtoh(&view)
            .map_err(|e| driver_err("device-to-host copy", e))?
    };
    from_bytes(s.dtype, &bytes)
}

/// Host elements from device bytes.
fn from_bytes(dtype: DType, b: &[u8]) -> Result<HostData> {
    macro_rules! decode {
        ($t:ty, $n:expr) => {
            b.chunks_exact($n)
                .map(|c| {
                    let mut a = [0u8; $n];
                    a.copy_from_slice(c);
                    <$t>::from_ne_bytes(a)
                })
                .collect()
        };
    }
    Ok(match dtype {
        DType::Bool => HostData::Bool(b.iter().map(|&x| x != 0).collect()),
        DType::Int8 => HostData::I8(b.iter().map(|&x| x as i8).collect()),
        DType::UInt8 => HostData::U8(b.to_vec()),
        DType::Int16 => HostData::I16(decode!(i16, 2)),
        DType::Int32 => HostData::I32(decode!(i32, 4)),
        DType::Int64 => HostData::I64(decode!(i64, 8)),
        DType::Float16 => {
            let bits: Vec<u16> = decode!(u16, 2);
            HostData::F16(bits.into_iter().map(F16::from_bits).collect())
        }
        DType::Float32 => HostData::F32(decode!(f32, 4)),
        DType::Float64 => HostData::F64(decode!(f64, 8)),
        DType::String | DType::Complex64 | DType::Complex128 => {
            return Err(Error::internal("string or complex bytes on a device"))
        }
    })
}

/// `storage` as it must be held on `device`: uploaded to the device's card
/// for a CUDA GPU (strings stay on the host, as TensorFlow keeps them),
/// copied card to card, or brought to the host for CPUs and virtual GPUs.
pub fn place(storage: &Storage, device: Device) -> Result<Storage> {
    // (dist has no CUDA kernels for complex types: they stay on the host too)
    if is_cuda(device) && storage.dtype() != DType::String && !storage.dtype().is_complex() {
        let target = card(card_of(device)?)?;
        return match storage {
            Storage::Cuda(c) if Arc::ptr_eq(&c.card, &target) => Ok(storage.clone()),
            Storage::Cuda(c) => Ok(Storage::Cuda(upload(&c.to_host()?, &target)?)),
            Storage::Host(h) => Ok(Storage::Cuda(upload(h, &target)?)),
        };
    }
    match storage {
        Storage::Cuda(c) => Ok(Storage::Host(c.to_host()?)),
        Storage::Host(_) => Ok(storage.clone()),
    }
}
