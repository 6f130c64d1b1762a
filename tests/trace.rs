//! `dist run --trace`: the per-replica text timeline on stderr (its time
//! column masked) and `--trace=FILE.json` in the Chrome trace-event format.

use std::process::{Command, Output};

const SCRIPT: &str = "\
import tensorflow as tf
strategy = tf.distribute.MirroredStrategy()
def step(x):
    ctx = tf.distribute.get_replica_context()
    y = x * 2.0
    for _ in range(3):
        y = y + 1.0
    return ctx.all_reduce(tf.distribute.ReduceOp.SUM, y)
x = tf.constant([1.0, 2.0])
r = strategy.run(step, args=(x,))
print(strategy.reduce(tf.distribute.ReduceOp.MEAN, r, axis=None))
";

fn dist(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dist"))
        .args(args)
        .env("NO_COLOR", "1")
        // real GPUs stay out unless asked for (the goldens describe virtual ones)
        .env(
            "DIST_GPU_BACKEND",
            std::env::var("DIST_GPU_BACKEND").unwrap_or_else(|_| "host".into()),
        )
        .output()
        .expect("run dist")
}

fn script(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("dist-trace-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, SCRIPT).unwrap();
    path.to_string_lossy().into_owned()
}

/// The timeline with its `[start + duration]` column replaced by `[T]`.
fn masked(text: &str) -> String {
    text.lines()
        .map(|l| match (l.find("  ["), l.find("]  ")) {
            (Some(0), Some(end)) => format!("  [T]{}", &l[end + 1..]),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn text_timeline_on_stderr() {
    let path = script("text.dist");
    let out = dist(&["--virtual-gpus", "2", "run", &path, "--trace"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "tf.Tensor([10. 14.], shape=(2,), dtype=float32)\n"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let want = "\
== trace: 8 ops, 2 collectives, 2 replica lanes (times: [start + duration] in ms) ==
main program (cross-replica context)
  [T]  line 11   reduce MEAN            CPU:0  #2 with replicas 0,1, 16 bytes
replica 0
  [T]  line 5    Mul                    GPU:0
  [T]  line 7    AddV2 x3               GPU:0
  [T]  line 8    all_reduce SUM         GPU:0  #1 with replicas 0,1, 16 bytes
replica 1
  [T]  line 5    Mul                    GPU:1
  [T]  line 7    AddV2 x3               GPU:1
  [T]  line 8    all_reduce SUM         GPU:0  #1 with replicas 0,1, 16 bytes
collectives (where the replicas met)
  #1   all_reduce SUM         on GPU:0  replicas 0,1 at line 8; 16 bytes moved
  #2   reduce MEAN            on CPU:0  replicas 0,1 at line 11; 16 bytes moved";
    assert_eq!(masked(&stderr), want, "{stderr}");
}

#[test]
fn chrome_json_file() {
    let path = script("json.dist");
    let json_path = format!("{path}.json");
    let flag = format!("--trace={json_path}");
    let out = dist(&["--virtual-gpus", "2", "run", &path, &flag]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("events written to"), "{stderr}");
    let json = std::fs::read_to_string(&json_path).unwrap();
    // Parse it with dist's own `json` module (CPython's behaviour) and list
    // what a trace viewer needs.
    let check = format!(
        "import json\n\
         d = json.loads(r'''{json}''')\n\
         ev = d['traceEvents']\n\
         print(sorted(set(e['ph'] for e in ev)))\n\
         print([(e['tid'], e['args']['name']) for e in ev if e['name'] == 'thread_name'])\n\
         xs = [e for e in ev if e['ph'] == 'X']\n\
         print(all(set(e) >= {{'name', 'ts', 'dur', 'pid', 'tid', 'args'}} for e in xs))\n\
         print([(e['tid'], e['name'], e['args']['line']) for e in xs if e['cat'] == 'collective'])\n\
         print(sorted(set((e['tid'], e['name']) for e in xs if e['cat'] == 'op')))\n"
    );
    let out = dist(&["-c", &check]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "['M', 'X']\n\
         [(0, 'main program'), (1, 'replica 0'), (2, 'replica 1')]\n\
         True\n\
         [(1, 'all_reduce SUM', 8), (2, 'all_reduce SUM', 8), (0, 'reduce MEAN', 11)]\n\
         [(1, 'AddV2'), (1, 'Mul'), (2, 'AddV2'), (2, 'Mul')]\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn unwritable_trace_file_is_reported() {
    let path = script("bad.dist");
    let out = dist(&["run", &path, "--trace=/nonexistent-dir/t.json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the trace"));
}

#[test]
fn no_trace_no_timeline() {
    let path = script("plain.dist");
    let out = dist(&["--virtual-gpus", "2", "run", &path]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
