//! What dist refuses of TensorFlow's multi-machine strategies, end to end:
//! a `TF_CONFIG` (or a resolver) naming a cluster of several tasks, and a
//! `CentralStorageStrategy` over several compute devices, each a
//! `NotImplementedError` that says so (TensorFlow itself would connect to
//! the other workers, so the oracle has no output to compare with).

use std::process::Command;

/// Runs `code` with `dist -c` (and `extra` flags): status, stdout, stderr.
fn run(code: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["-c", code];
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_dist"))
        .args(&args)
        .env("NO_COLOR", "1")
        .env("DIST_GPU_BACKEND", "host")
        .env_remove("TF_CONFIG")
        .output()
        .expect("run dist");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const TF_CONFIG: &str = r#"
import json, os
import tensorflow as tf
os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["localhost:12345", "localhost:23456"]}, "task": {"type": "worker", "index": 0}})
print("before")
"#;

#[test]
fn a_tf_config_cluster_is_not_implemented() {
    for strategy in [
        "tf.distribute.MultiWorkerMirroredStrategy()",
        "tf.distribute.experimental.MultiWorkerMirroredStrategy()",
        "tf.distribute.MultiWorkerMirroredStrategy(tf.distribute.cluster_resolver.SimpleClusterResolver(tf.train.ClusterSpec({'worker': ['a:1']})))",
    ] {
        let code = format!("{TF_CONFIG}{strategy}\nprint('after')\n");
        let (status, stdout, stderr) = run(&code, &[]);
        assert_eq!(status, 1, "{strategy}: {stderr}");
        assert_eq!(stdout, "before\n", "{strategy}");
        let last = stderr.trim_end().lines().last().unwrap_or_default();
        assert!(
            last.starts_with("NotImplementedError: MultiWorkerMirroredStrategy with a cluster (ClusterSpec({")
                && last.ends_with("is not supported in dist: dist runs one local worker (no TF_CONFIG, or a cluster of one task); run the script without TF_CONFIG, or under real TensorFlow for several workers"),
            "{strategy}: {last}"
        );
    }
}

#[test]
fn without_tf_config_one_local_worker_runs() {
    let code = "import tensorflow as tf\ns = tf.distribute.MultiWorkerMirroredStrategy()\nprint(s.num_replicas_in_sync, s.extended.worker_devices)\n";
    let (status, stdout, stderr) = run(code, &["--virtual-gpus", "2"]);
    assert_eq!(status, 0, "{stderr}");
    // one local worker mirrors over its GPUs, as TensorFlow's does
    assert_eq!(
        stdout,
        "2 ('/job:localhost/replica:0/task:0/device:GPU:0', '/job:localhost/replica:0/task:0/device:GPU:1')\n"
    );
}

#[test]
fn central_storage_over_several_devices_is_not_implemented() {
    let code = "import tensorflow as tf\ntf.distribute.experimental.CentralStorageStrategy()\n";
    let (status, _, stderr) = run(code, &["--virtual-gpus", "2"]);
    assert_eq!(status, 1);
    assert!(
        stderr.trim_end().ends_with(
            "NotImplementedError: CentralStorageStrategy with 2 compute devices is not supported in dist yet"
        ),
        "{stderr}"
    );
}
