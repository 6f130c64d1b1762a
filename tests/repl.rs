//! The REPL and the CLI as a user meets them: the built `dist` binary, with
//! stdin piped (the REPL then reads every line without prompts).

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn dist(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dist"))
        .args(args)
        .env("NO_COLOR", "1")
        // real GPUs stay out unless asked for (the goldens describe virtual ones)
        .env(
            "DIST_GPU_BACKEND",
            std::env::var("DIST_GPU_BACKEND").unwrap_or_else(|_| "host".into()),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start dist");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().expect("run dist")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn piped_repl_runs_a_def_and_echoes_a_call() {
    // A blank line ends the first block; a line back at column 0 ends the second.
    let input = "\
def add(a, b):
    c = a + b
    return c

add(1, 2)
def twice(x):
    return 2 * x
twice(add(1, 1))
print('done')
";
    let out = dist(&[], input);
    assert_eq!(
        text(&out.stdout),
        "3\n4\ndone\n",
        "stderr: {}",
        text(&out.stderr)
    );
    assert_eq!(text(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn piped_repl_goes_on_after_an_error() {
    let out = dist(&[], "1 / 0\nx = 5\nx\n:vars\n");
    assert_eq!(text(&out.stdout), "5\nx\n");
    assert!(text(&out.stderr).ends_with("ZeroDivisionError: division by zero\n"));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn meta_commands_without_an_interpreter() {
    let out = dist(
        &["--virtual-gpus", "1"],
        ":devices 3\n:bogus\n:quit\n:help\n",
    );
    assert_eq!(
        text(&out.stdout),
        "runtime reset with 3 virtual GPUs: every name is forgotten\n"
    );
    assert!(text(&out.stderr).contains("unknown command ':bogus'"));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["run"][..],
        &["--virtual-gpus", "x"],
        &["frob"],
        &["x.dist"],
    ] {
        let out = dist(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.starts_with("dist: "), "{stderr}");
        assert!(stderr.contains("dist --help"), "{stderr}");
    }
    let out = dist(&["run", "/nonexistent/x.dist"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("dist: can't open file"));
}

#[test]
fn help_and_version() {
    let out = dist(&["--help"], "");
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("dist run scripts/docs/mirrored_run.dist"));
    let out = dist(&["--version"], "");
    assert_eq!(
        text(&out.stdout),
        format!("dist {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_bad_dist_line_is_a_usage_error() {
    let out = dist(&["run", "-"], "# dist: --virtual-gpus many\nprint(1)\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("dist: <stdin>: --virtual-gpus needs a whole number"));
}

#[test]
fn script_prints_and_fails_like_python() {
    let out = dist(&["run", "-"], "print('a')\nprint(undefined_name)\n");
    assert_eq!(text(&out.stdout), "a\n");
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("Traceback (most recent call last):\n"),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().last(),
        Some("NameError: name 'undefined_name' is not defined")
    );
    let out = dist(&["-c", "print(6 * 7)"], "");
    assert_eq!(text(&out.stdout), "42\n");
}

#[test]
fn show_prints_a_table_of_components() {
    let input = "\
import tensorflow as tf
s = tf.distribute.MirroredStrategy()
r = s.run(lambda: tf.constant([1.0, 2.0]))
:show r
:show tf.constant([[1, 2], [3, 4]])
:show 'plain'
:show missing
";
    let out = dist(&["--virtual-gpus", "2"], input);
    assert_eq!(
        text(&out.stdout),
        "\
PerReplica with 2 components
replica  device  dtype    shape  value
0        GPU:0   float32  (2,)   [1. 2.]
1        GPU:1   float32  (2,)   [1. 2.]
EagerTensor (not distributed: one value)
replica  device  dtype  shape   value
-        CPU:0   int32  (2, 2)  [[1 2] [3 4]]
'plain'
"
    );
    assert!(text(&out.stderr).ends_with("NameError: name 'missing' is not defined\n"));
    // The hidden name does not stay behind.
    let out = dist(&[], "x = 1\n:show x\n:vars\n");
    assert_eq!(text(&out.stdout), "1\nx\n");
}

#[test]
fn help_in_the_repl_and_trace_refused() {
    let out = dist(&[], "import tensorflow as tf\nhelp(tf.constant)\n");
    assert!(text(&out.stdout).starts_with("Help on tf.constant:\n\nconstant(value, dtype=None"));
    let out = dist(&["--trace"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--trace records a script's run"));
}
