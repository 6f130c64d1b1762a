//! The teaching hints on stderr (`dist: hint: …`) for mistakes TensorFlow
//! answers silently: each golden case under `tests/golden/autodiff/hint_*`
//! prints TensorFlow's stdout (checked by the golden test against the
//! oracle's), and here its stderr must carry the hint, once.

use std::process::Command;

fn stderr_of(case: &str, flags: &[&str]) -> String {
    stderr_in("autodiff", case, flags)
}

fn stderr_in(area: &str, case: &str, flags: &[&str]) -> String {
    let path = format!(
        "{}/tests/golden/{area}/{case}.dist",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut args = vec!["run"];
    args.extend_from_slice(flags);
    args.push(&path);
    let out = Command::new(env!("CARGO_BIN_EXE_dist"))
        .args(&args)
        .env("NO_COLOR", "1")
        .env("DIST_GPU_BACKEND", "host")
        .output()
        .expect("run dist");
    assert!(
        out.status.success(),
        "{case}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_hint(case: &str, flags: &[&str], parts: &[&str]) {
    let err = stderr_of(case, flags);
    assert_eq!(
        err.matches("dist: hint: ").count(),
        1,
        "{case}: one hint:\n{err}"
    );
    for p in parts {
        assert!(err.contains(p), "{case}: {p:?} not in:\n{err}");
    }
}

#[test]
fn a_loss_computed_outside_the_tape() {
    assert_hint(
        "hint_outside_tape",
        &[],
        &[
            "tape.gradient returned None for source 0 (the variable 'w:0')",
            "the target was not computed from ops the tape recorded",
            "inside `with tf.GradientTape() as tape:`",
        ],
    );
}

#[test]
fn a_value_taken_off_the_tape_with_numpy() {
    assert_hint(
        "hint_numpy",
        &[],
        &["`.numpy()` took the value of a tensor the tape followed (the output of Mul, shape (3,), float32)"],
    );
}

#[test]
fn an_unwatched_tensor() {
    // once per run: the second None gradient (a non-trainable variable) adds none
    assert_hint(
        "hint_unwatched",
        &[],
        &["(a tensor of shape () and dtype float32): the tape does not watch this tensor: call `tape.watch(x)`"],
    );
}

#[test]
fn an_unevenly_split_batch_without_global_batch_size() {
    assert_hint(
        "hint_uneven_batch",
        &["--virtual-gpus", "2"],
        &["compute_average_loss was called without global_batch_size on an unevenly split batch (replica 0: 2 examples, replica 1: 1)"],
    );
}

#[test]
fn devices_that_do_not_exist_are_placed_on_the_cpu() {
    // one hint per missing device, one for the collectives TensorFlow
    // never finishes on one device; none once the GPUs exist
    let err = stderr_in("distribute", "soft_placement_collectives", &[]);
    assert_eq!(err.matches("dist: hint: ").count(), 3, "{err}");
    for p in [
        "dist: hint: GPU:0 does not exist (0 GPUs are visible): TensorFlow's soft placement runs what is placed there on CPU:0 and keeps the name; run with --virtual-gpus 1 to simulate one",
        "dist: hint: GPU:1 does not exist (0 GPUs are visible)",
        "--virtual-gpus 2 to simulate two",
        "replicas 0 and 1 both run on CPU:0",
    ] {
        assert!(err.contains(p), "{p:?} not in:\n{err}");
    }
    let err = stderr_in(
        "distribute",
        "soft_placement_collectives",
        &["--virtual-gpus", "2"],
    );
    assert!(!err.contains("dist: hint: "), "{err}");
}
