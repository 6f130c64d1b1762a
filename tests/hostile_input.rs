//! Hostile input, end to end through the built binary: allocation bombs under
//! an address-space limit (`setrlimit(RLIMIT_AS)` in the child) must be
//! Python's `MemoryError` with exit status 1 — never "memory allocation of N
//! bytes failed", an abort or a Rust backtrace — and the REPL goes on after
//! one; source bytes that are not UTF-8 get CPython's `SyntaxError`. The
//! expected lines were taken from CPython 3.11 (`python3`, under `ulimit -v`
//! for the bombs) on the same programs and bytes.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};

/// The child's address space: room for the interpreter (its big stack,
/// thread pools), far less than any bomb asks for.
const ADDRESS_SPACE: u64 = 3 << 30;

fn dist_limited(args: &[&str], stdin: &str) -> Output {
    dist_limited_to(ADDRESS_SPACE, args, stdin)
}

/// [`dist_limited`] under another address-space limit.
fn dist_limited_to(address_space: u64, args: &[&str], stdin: &str) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dist"));
    cmd.args(args)
        .env("NO_COLOR", "1")
        .env("DIST_GPU_BACKEND", "host")
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches only our struct.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: address_space,
                rlim_max: address_space,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("start dist");
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

/// No abort, panic or Rust backtrace on stderr.
fn assert_no_crash(what: &str, out: &Output) {
    let err = text(&out.stderr);
    for bad in [
        "memory allocation of",
        "panicked",
        "stack backtrace",
        "RUST_BACKTRACE",
    ] {
        assert!(!err.contains(bad), "{what}: stderr has {bad:?}:\n{err}");
    }
    assert!(
        out.status.code().is_some(),
        "{what}: killed by a signal: {:?}\n{err}",
        out.status
    );
}

/// Each kind of growth a script controls, as an uncaught error: the last
/// line is CPython's (`MemoryError`, no message), the status 1.
#[test]
fn allocation_bombs_are_memory_errors() {
    let cases = [
        ("list repetition", "x = [0] * 10**12"),
        ("list repetition, 2 items", "x = [1, 2] * 2**62"),
        ("tuple repetition", "x = (0,) * 10**12"),
        ("str repetition", "x = 'x' * 2**40"),
        ("bytes repetition", "x = b'x' * 2**40"),
        ("bytes(n)", "x = bytes(10**12)"),
        ("bytes(n) under the cap, over the limit", "x = bytes(2**32)"),
        ("str repetition over the limit", "x = 'xy' * 2**31"),
        ("s = s + s", "s = 'ab'\nwhile True:\n    s = s + s"),
        ("b = b + b", "b = b'ab'\nwhile True:\n    b = b + b"),
        ("l = l + l", "l = [0]\nwhile True:\n    l = l + l"),
        ("list(range)", "x = list(range(10**12))"),
        ("tuple(range)", "x = tuple(range(10**12))"),
        ("sorted(range)", "x = sorted(range(10**12))"),
        ("[*range]", "x = [*range(10**12)]"),
        ("str.ljust", "x = 'x'.ljust(10**12)"),
        ("str.center", "x = 'x'.center(10**12)"),
        ("str.zfill", "x = 'x'.zfill(10**12)"),
        ("format width", "x = format('x', '1000000000000')"),
        ("f-string width", "x = f'{1:1000000000000}'"),
        ("%-format width", "x = '%1000000000000d' % 1"),
        ("str.join", "x = 'ab'.join(['x' * 10**8] * 100)"),
        ("str.replace", "x = ('a' * 10**5).replace('a', 'b' * 10**7)"),
        // Nested lists larger than any tensor, refused before they are walked.
        (
            "tf.constant of a huge nested list",
            "import tensorflow as tf\nx = tf.constant([[0] * 10**6] * 10**5)",
        ),
        (
            "tf.convert_to_tensor of a huge nested list",
            "import tensorflow as tf\nx = tf.convert_to_tensor([[0.5] * 10**6] * 10**5)",
        ),
        (
            "np.array of a huge nested list",
            "import numpy as np\nx = np.array([[0] * 10**6] * 10**5)",
        ),
        // A big-int product past 2**32 bits, refused before multiplying.
        ("x * x", "x = 1 << 2**31\ny = x * x"),
        ("x *= x", "def f():\n    x = 3 << 2**31\n    x *= x\nf()"),
    ];
    for (what, code) in cases {
        let out = dist_limited(&["-c", code], "");
        assert_no_crash(what, &out);
        let err = text(&out.stderr);
        assert_eq!(
            err.lines().last(),
            Some("MemoryError"),
            "{what}: stderr:\n{err}"
        );
        assert_eq!(out.status.code(), Some(1), "{what}");
    }
}

/// The address space of the dict and set cases: small, so that a table
/// growing one entry at a time reaches it in seconds (the interpreter itself
/// starts in well under 512 MiB).
const TABLE_ADDRESS_SPACE: u64 = 600 << 20;

/// Dicts and sets grown until memory runs out, by each way a script grows
/// one: CPython's `MemoryError` (its last line and status 1 under the same
/// limit, `python3` 3.11), never an abort.
#[test]
fn dict_and_set_growth_is_a_memory_error() {
    let cases = [
        ("d[i] = i", "d = {}\ni = 0\nwhile True:\n    d[i] = i\n    i += 1"),
        ("dict comprehension", "d = {i: i for i in range(10**9)}"),
        ("set comprehension", "s = {i for i in range(10**9)}"),
        ("s.add", "s = set()\ni = 0\nwhile True:\n    s.add(i)\n    i += 1"),
        ("dict.fromkeys", "d = dict.fromkeys(range(10**9))"),
        ("set(range)", "s = set(range(10**9))"),
        ("frozenset(range)", "s = frozenset(range(10**9))"),
        (
            "dict.fromkeys of a generator",
            "d = dict.fromkeys(i for i in range(10**9))",
        ),
        ("set of a generator", "s = set(i for i in range(10**9))"),
        ("setdefault", "d = {}\nfor i in range(10**9):\n    d.setdefault(i, i)"),
        (
            "{**a, **b}",
            "a = dict.fromkeys(range(10**6))\nb = dict.fromkeys(range(10**6, 2 * 10**6))\nl = []\nwhile True:\n    l.append({**a, **b})",
        ),
        (
            "d.update",
            "a = dict.fromkeys(range(10**6))\nl = []\nwhile True:\n    d = {}\n    d.update(a)\n    l.append(d)",
        ),
        (
            "dict(a)",
            "a = dict.fromkeys(range(10**6))\nl = []\nwhile True:\n    l.append(dict(a))",
        ),
        (
            "d | e",
            "a = dict.fromkeys(range(10**6))\nb = dict.fromkeys(range(10**6, 2 * 10**6))\nl = []\nwhile True:\n    l.append(a | b)",
        ),
        (
            "dict.copy",
            "a = dict.fromkeys(range(10**6))\nl = []\nwhile True:\n    l.append(a.copy())",
        ),
        (
            "set | set",
            "a = set(range(10**6))\nb = set(range(10**6, 2 * 10**6))\nl = []\nwhile True:\n    l.append(a | b)",
        ),
        (
            "set ^ set",
            "a = set(range(10**6))\nb = set(range(10**6, 2 * 10**6))\nl = []\nwhile True:\n    l.append(a ^ b)",
        ),
        (
            "set.union",
            "a = set(range(10**6))\nl = []\nwhile True:\n    l.append(a.union(range(10**6, 2 * 10**6)))",
        ),
        (
            "set.copy",
            "a = set(range(10**6))\nl = []\nwhile True:\n    l.append(a.copy())",
        ),
        (
            "set |=",
            "a = set()\ni = 0\nwhile True:\n    a |= set(range(i, i + 10**5))\n    i += 10**5",
        ),
        (
            "set.update",
            "a = set()\ni = 0\nwhile True:\n    a.update(range(i, i + 10**5))\n    i += 10**5",
        ),
    ];
    for (what, code) in cases {
        let out = dist_limited_to(TABLE_ADDRESS_SPACE, &["-c", code], "");
        assert_no_crash(what, &out);
        let err = text(&out.stderr);
        assert_eq!(
            err.lines().last(),
            Some("MemoryError"),
            "{what}: stderr:\n{err}"
        );
        assert_eq!(out.status.code(), Some(1), "{what}");
    }
}

/// A dict or set that ran out of memory in the REPL: the statement's
/// MemoryError, and the session goes on (the table's memory is given back
/// once its last reference goes).
#[test]
fn the_repl_goes_on_after_a_table_runs_out() {
    let out = dist_limited_to(
        TABLE_ADDRESS_SPACE,
        &[],
        "d = {}\ni = 0\nwhile True:\n    d[i] = i\n    i += 1\n\nprint(len(d) > 10**5)\ndel d\ns = {i for i in range(10**9)}\nd = {i: -i for i in range(10**4)}\nprint('still here', len(d), d[9999])\n",
    );
    assert_no_crash("repl", &out);
    assert_eq!(
        text(&out.stdout),
        "True\nstill here 10000 -9999\n",
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        text(&out.stderr)
            .lines()
            .filter(|l| *l == "MemoryError")
            .count(),
        2,
        "{}",
        text(&out.stderr)
    );
}

/// Tensors and arrays too large to allocate: an error, not an abort.
#[test]
fn tensor_bombs_are_errors() {
    let cases = [
        (
            "tf.zeros",
            "import tensorflow as tf\nx = tf.zeros([10**6, 10**6])",
        ),
        (
            "tf.ones",
            "import tensorflow as tf\nx = tf.ones([10**6, 10**6])",
        ),
        (
            "tf.fill",
            "import tensorflow as tf\nx = tf.fill([10**6, 10**6], 1.0)",
        ),
        ("tf.range", "import tensorflow as tf\nx = tf.range(10**12)"),
        (
            "tf.tile",
            "import tensorflow as tf\nx = tf.tile(tf.ones([2]), [10**12])",
        ),
        ("np.ones", "import numpy as np\nx = np.ones((10**6, 10**6))"),
        ("np.arange", "import numpy as np\nx = np.arange(10**12)"),
        (
            "np.linspace",
            "import numpy as np\nx = np.linspace(0, 1, 10**12)",
        ),
        (
            "tf.broadcast_to",
            "import tensorflow as tf\nx = tf.broadcast_to(tf.ones([1]), [10**6, 10**6])",
        ),
        (
            "tf.pad",
            "import tensorflow as tf\nx = tf.pad(tf.ones([2]), [[10**12, 0]])",
        ),
        ("tf.eye", "import tensorflow as tf\nx = tf.eye(10**6)"),
        (
            "tf.one_hot",
            "import tensorflow as tf\nx = tf.one_hot([0, 1], 2**31 - 1)",
        ),
        (
            "np.zeros",
            "import numpy as np\nx = np.zeros((10**6, 10**6))",
        ),
        (
            "np.empty",
            "import numpy as np\nx = np.empty((10**6, 10**6))",
        ),
        ("np.eye", "import numpy as np\nx = np.eye(10**6)"),
        ("np.eye overflow", "import numpy as np\nx = np.eye(2**62)"),
        (
            "np.repeat",
            "import numpy as np\nx = np.repeat([1, 2], [2**62, 2**62])",
        ),
        (
            "np.tile",
            "import numpy as np\nx = np.tile([1, 2], (10**6, 10**6))",
        ),
        (
            "np.diag",
            "import numpy as np\nx = np.diag([1, 2], k=2**62)",
        ),
        (
            "np.meshgrid",
            "import numpy as np\nx = np.meshgrid(np.arange(10**6), np.arange(10**6))",
        ),
        (
            "np.array_split",
            "import numpy as np\nx = np.array_split(np.arange(4), 10**12)",
        ),
        ("np.pad", "import numpy as np\nx = np.pad([1], 10**12)"),
        (
            "np.logspace",
            "import numpy as np\nx = np.logspace(0, 1, 10**12)",
        ),
    ];
    for (what, code) in cases {
        let out = dist_limited(&["-c", code], "");
        assert_no_crash(what, &out);
        assert_eq!(out.status.code(), Some(1), "{what}: {}", text(&out.stderr));
    }
}

/// numpy's own words for an array it cannot allocate (numpy 2, the
/// oracle's venv), under the address-space limit too.
#[test]
fn numpy_bombs_are_array_memory_errors() {
    let out = dist_limited(
        &["-c", "import numpy as np\nx = np.ones((10**6, 10**6))"],
        "",
    );
    assert_no_crash("np.ones", &out);
    assert_eq!(
        text(&out.stderr).lines().last(),
        Some("numpy._core._exceptions._ArrayMemoryError: Unable to allocate 7.28 TiB for an array with shape (1000000, 1000000) and data type float64"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1));
}

/// A MemoryError in the REPL is one more error: the session goes on.
#[test]
fn the_repl_goes_on_after_a_memory_error() {
    let out = dist_limited(
        &[],
        "x = [0] * 10**12\ns = 'x' * 2**40\nprint('still here', 1 + 1)\n",
    );
    assert_no_crash("repl", &out);
    assert_eq!(text(&out.stdout), "still here 2\n", "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr)
            .lines()
            .filter(|l| *l == "MemoryError")
            .count(),
        2,
        "{}",
        text(&out.stderr)
    );
}

/// A source file's bytes: CPython's SyntaxError for bytes that are not
/// UTF-8 without a declaration (exit 1, the file named as given), for a
/// declared encoding the bytes do not fit, and for an unknown encoding.
#[test]
fn source_bytes_errors_are_cpythons() {
    let dir = std::env::temp_dir().join(format!("dist-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, &[u8], String); 5] = [
        (
            "undeclared.py",
            b"x = 1\ny = '\xff'\n",
            "SyntaxError: Non-UTF-8 code starting with '\\xff' in file {} on line 2, but no encoding declared; see https://peps.python.org/pep-0263/ for details".into(),
        ),
        (
            "late_declaration.py",
            b"print(1)\n# coding: latin-1\nprint('\xe9')\n",
            "SyntaxError: Non-UTF-8 code starting with '\\xe9' in file {} on line 3, but no encoding declared; see https://peps.python.org/pep-0263/ for details".into(),
        ),
        ("unknown.py", b"# coding: xyz\nprint(1)\n", "SyntaxError: encoding problem: xyz".into()),
        (
            "bom_latin1.py",
            b"\xef\xbb\xbf# coding: latin-1\nprint(1)\n",
            "SyntaxError: encoding problem: iso-8859-1 with BOM".into(),
        ),
        ("ascii.py", b"# coding: ascii\n# \xe9\nprint(2)\n", "SyntaxError: encoding problem: ascii".into()),
    ];
    for (name, bytes, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let path = path.to_string_lossy().into_owned();
        let out = dist_limited(&["run", &path], "");
        assert_no_crash(name, &out);
        let err = text(&out.stderr);
        assert_eq!(err, format!("{}\n", want.replace("{}", &path)), "{name}");
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert_eq!(text(&out.stdout), "", "{name}");
    }
    // Piped on stdin, the file is `<stdin>`.
    let out = dist_limited(&["run", "-"], "");
    assert_eq!(out.status.code(), Some(0));
    std::fs::remove_dir_all(&dir).ok();
}

/// `dist doctest` on a `.dist` file with a coding line reads it by that
/// encoding; one whose bytes are not UTF-8 and declare nothing fails with
/// CPython's SyntaxError.
#[test]
fn doctest_reads_source_bytes_like_run() {
    let dir = std::env::temp_dir().join(format!("dist-hostile-doc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("latin.dist");
    std::fs::write(
        &good,
        b"# -*- coding: latin-1 -*-\ndef f():\n    \"\"\"\n    >>> print('caf\xe9')\n    caf\xe9\n    \"\"\"\n",
    )
    .unwrap();
    let bad = dir.join("bad.dist");
    std::fs::write(&bad, b"x = '\xe9'\n").unwrap();
    let good = good.to_string_lossy().into_owned();
    let bad = bad.to_string_lossy().into_owned();
    let out = dist_limited(&["doctest", &good], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).ends_with("1 passed, 0 failed\n"),
        "{}",
        text(&out.stdout)
    );
    let out = dist_limited(&["doctest", &bad], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains(&format!(
            "SyntaxError: Non-UTF-8 code starting with '\\xe9' in file {bad} on line 1"
        )),
        "{}",
        text(&out.stdout)
    );
    std::fs::remove_dir_all(&dir).ok();
}
