//! `dist run` / `dist -c` end-to-end: `sys.exit` statuses and messages,
//! `sys.argv`, and `print(file=sys.stderr)`, each as CPython 3.11 behaves
//! (status, stdout, stderr checked against what `python3` does for the same
//! code; the expectations here were taken from it).

use std::process::{Command, Output};

fn dist(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dist"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("DIST_GPU_BACKEND", "host")
        .output()
        .expect("run dist")
}

fn run_code(code: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["-c", code];
    args.extend_from_slice(extra);
    let out = dist(&args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn sys_exit_sets_the_status_without_a_traceback() {
    for (code, status, stderr) in [
        ("import sys; print('a'); sys.exit(0); print('no')", 0, ""),
        ("import sys; print('a'); sys.exit(3)", 3, ""),
        ("import sys; print('a'); sys.exit()", 0, ""),
        ("import sys; print('a'); sys.exit(None)", 0, ""),
        ("import sys; print('a'); sys.exit('bye')", 1, "bye\n"),
        ("print('a'); raise SystemExit(2)", 2, ""),
    ] {
        let (st, out, err) = run_code(code, &[]);
        assert_eq!(
            (st, out.as_str(), err.as_str()),
            (status, "a\n", stderr),
            "{code}"
        );
    }
}

#[test]
fn argv_and_stderr() {
    let (st, out, err) = run_code(
        "import sys; print(sys.argv); print('oops', file=sys.stderr)",
        &["x", "y"],
    );
    assert_eq!(st, 0);
    assert_eq!(out, "['-c', 'x', 'y']\n");
    assert_eq!(err, "oops\n");
}
