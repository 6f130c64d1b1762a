//! Every CUDA kernel source compiles with NVRTC, without a GPU: to PTX (what
//! the backend loads) and to machine code for sm_90 (H100/H200), which also
//! runs NVRTC's assembler over the inline PTX. Needs only libnvrtc (the
//! `nvidia-cuda-nvrtc-cu12` wheel; `.ci/run` installs it and points
//! `LD_LIBRARY_PATH` at it). Without libnvrtc the tests say why and pass,
//! unless `DIST_REQUIRE_NVRTC=1`, where they fail.

use dist::runtime::backend::{cuda, kernels};

/// Whether NVRTC can run here; prints why not (or fails if it is required).
fn nvrtc_or_skip(test: &str) -> bool {
    if cuda::nvrtc_available() {
        return true;
    }
    let why = if cuda::BUILT_WITH_CUDA {
        "libnvrtc could not be loaded (install nvidia-cuda-nvrtc-cu12 and put its lib/ on LD_LIBRARY_PATH)"
    } else {
        "built without the `cuda` feature"
    };
    assert!(
        std::env::var("DIST_REQUIRE_NVRTC").as_deref() != Ok("1"),
        "{test}: DIST_REQUIRE_NVRTC=1 but {why}"
    );
    eprintln!("skipping {test}: {why}");
    false
}

/// Compiles every source with `f` on a few threads; returns the failures.
fn compile_all(f: fn(&str) -> Result<(), String>) -> (usize, Vec<String>) {
    let all = kernels::all();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let chunk = all.len().div_ceil(threads);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .filter_map(|k| f(&k.source).err().map(|e| format!("{}: {e}", k.name)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|_| vec!["a compile thread panicked".into()])
            })
            .collect()
    });
    (all.len(), failures)
}

#[test]
fn every_kernel_compiles_to_ptx() {
    if !nvrtc_or_skip("every_kernel_compiles_to_ptx") {
        return;
    }
    let (n, failures) = compile_all(|src| {
        let ptx = cuda::compile(src, None)?;
        if ptx.contains(".entry") {
            Ok(())
        } else {
            Err("no entry point in the PTX".into())
        }
    });
    assert!(
        failures.is_empty(),
        "{} of {n} kernels failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("compiled {n} kernels to PTX");
}

#[test]
fn every_kernel_assembles_for_sm90() {
    if !nvrtc_or_skip("every_kernel_assembles_for_sm90") {
        return;
    }
    let (n, failures) = compile_all(|src| match cuda::compile_cubin(src, (9, 0)) {
        Ok(bin) if bin.len() > 100 => Ok(()),
        Ok(bin) => Err(format!("a CUBIN of {} bytes", bin.len())),
        Err(e) => Err(e),
    });
    assert!(
        failures.is_empty(),
        "{} of {n} kernels failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("assembled {n} kernels for sm_90");
}

#[test]
fn a_broken_kernel_fails_to_compile() {
    if !nvrtc_or_skip("a_broken_kernel_fails_to_compile") {
        return;
    }
    let good = kernels::binary(dist::runtime::BinaryOp::Add, dist::runtime::DType::Float32)
        .map(|k| k.source)
        .unwrap_or_default();
    assert!(cuda::compile(&good, None).is_ok());
    // an undeclared name in C++ and an invalid PTX instruction in inline asm
    let broken = good.replace("out[i] =", "out[i] = undeclared_name +");
    let err = cuda::compile(&broken, None).expect_err("undeclared name compiled");
    assert!(err.contains("undeclared_name"), "{err}");
    // (float16 kernels use the inline-PTX conversions)
    let half = kernels::binary(dist::runtime::BinaryOp::Add, dist::runtime::DType::Float16)
        .map(|k| k.source)
        .unwrap_or_default();
    assert!(cuda::compile_cubin(&half, (9, 0)).is_ok());
    let bad_asm = half.replace("cvt.f32.f16", "cvt.f32.nonsense");
    assert!(
        cuda::compile_cubin(&bad_asm, (9, 0)).is_err(),
        "bad inline PTX assembled"
    );
}
