//! `dist devices`: the devices a script run with the same flags would see,
//! one a line in index order (the CPU, then every GPU with what backs it),
//! followed by what the CUDA probe found and how to change the placement.

use std::fmt::Write;

use crate::runtime::backend::cuda;
use crate::runtime::{Device, GpuBackend};
use crate::Options;

fn gib(bytes: usize) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// The listing `dist devices` prints for these options.
pub fn report(options: &Options) -> String {
    let mode = options.gpu_backend;
    let mut out = String::new();
    let _ = writeln!(out, "CPU:0  host CPU");
    let probe = cuda::gpus();
    let real: &[cuda::GpuInfo] = probe.as_deref().unwrap_or(&[]);
    let describe = |d: Device| -> String {
        if d.is_virtual {
            return "virtual GPU (host memory, CPU kernels)".to_string();
        }
        match real.len() {
            0 => "CUDA GPU (unavailable)".to_string(),
            n => {
                let g = &real[d.index as usize % n];
                format!(
                    "{}, {}, compute capability {}.{} (CUDA device {})",
                    g.name,
                    gib(g.total_mem),
                    g.compute_capability.0,
                    g.compute_capability.1,
                    g.ordinal
                )
            }
        }
    };
    if mode.check().is_ok() {
        for d in mode.gpus(options.virtual_gpus) {
            let _ = writeln!(out, "{}  {}", d.short_name(), describe(d));
        }
    }
    let _ = writeln!(out);
    match &probe {
        Ok(gpus) => {
            let _ = writeln!(out, "CUDA: {} GPU(s) found", gpus.len());
            for g in gpus.iter() {
                let _ = writeln!(
                    out,
                    "  cuda:{}  {}, {}, compute capability {}.{}",
                    g.ordinal,
                    g.name,
                    gib(g.total_mem),
                    g.compute_capability.0,
                    g.compute_capability.1
                );
            }
        }
        Err(why) => {
            let _ = writeln!(out, "CUDA: no real GPUs ({why})");
        }
    }
    let _ = writeln!(
        out,
        "GPU placement: --gpu-backend={} with --virtual-gpus {}",
        mode.name(),
        options.virtual_gpus
    );
    if let Err(e) = mode.check() {
        let _ = writeln!(out, "error: {e}");
    }
    if mode == GpuBackend::Auto && real.is_empty() && options.virtual_gpus == 0 {
        let _ = writeln!(out, "(run with --virtual-gpus N to simulate N GPUs)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_cpu_and_virtual_gpus() {
        let options = Options {
            virtual_gpus: 2,
            gpu_backend: GpuBackend::Host,
            ..Options::default()
        };
        let text = report(&options);
        assert!(
            text.starts_with("CPU:0  host CPU\nGPU:0  virtual GPU"),
            "{text}"
        );
        assert!(text.contains("GPU:1  virtual GPU"), "{text}");
        assert!(
            text.contains("--gpu-backend=host with --virtual-gpus 2"),
            "{text}"
        );
    }

    #[test]
    fn cuda_placement_without_a_driver_is_an_error() {
        if cuda::gpu_count() > 0 {
            return; // a machine with a GPU: nothing to refuse
        }
        let options = Options {
            virtual_gpus: 2,
            gpu_backend: GpuBackend::Cuda,
            ..Options::default()
        };
        assert!(report(&options).contains("error: --gpu-backend=cuda: "));
        assert!(GpuBackend::Cuda.check().is_err());
    }
}
