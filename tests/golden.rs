//! Golden tests: every `.dist` program runs through the `dist run` code path
//! (`dist::cli::run_script`, flags from its `# dist:` line) in-process, with
//! stdout captured, and its output is compared with `<case>.out` through
//! `goldenfile::Mint`. `UPDATE_GOLDENFILES=1 cargo test` rewrites them.
//!
//! Cases, each named by its path relative to the crate root:
//! - `tests/golden/**/X.dist` → `tests/golden/**/X.out`
//! - `scripts/**/X.dist` (not `scripts/bench/`) → `scripts/**/X.out`
//! - `../shared/examples/X.dist` (read-only, skipped if absent)
//!   → `tests/golden/examples/X.out`
//!
//! A `.out` file has a `## stdout` section, then `## error` (the rendered
//! diagnostic, no colour) when the program failed. Besides the goldens:
//! - a shared example's stdout must equal its `X.expected` exactly (the
//!   user's acceptance tests);
//! - a case with a sibling `X.stdout` (CPython's stdout) must print exactly
//!   that, and one with `X.stderr_last` must fail with that last line.
//!
//! A case with a `# golden: keras-timing` line among its first five has
//! Keras's clock readings (progress bars' elapsed times, ETAs, time per
//! step, and the padding and backspaces whose counts follow their widths)
//! masked in its output and in its `.stdout` before they are compared.
//!
//! A case with a `# golden: per-cpu` line among its first five prints what
//! depends on the host's vector instructions (TensorFlow's own kernels pick
//! their code by them, and dist's follow): its golden and its CPython stdout
//! carry the host's instruction-set name, `X.avx512.out`/`X.avx512.stdout`
//! or `X.avx2.out`/`X.avx2.stdout` ([`cpu_isa`]); a host whose `.stdout`
//! nobody recorded yet checks the golden only.
//!
//! Every case runs once (on first use by any test), each on its own thread
//! with a big stack, a few at a time; a panicking case is reported and the
//! others still run.

use std::cell::RefCell;
use std::fs;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use dist::cli::{self, Flags};
use dist::Output;
use goldenfile::Mint;

/// One `.dist` program.
struct Case {
    /// Path relative to the crate root, `/`-separated; also the name the
    /// source is shown under in diagnostics.
    name: String,
    /// The program.
    path: PathBuf,
    /// The folder the golden's path is relative to.
    mint_dir: PathBuf,
    /// The golden file, relative to `mint_dir`.
    golden: PathBuf,
    /// One of `../shared/examples`.
    shared_example: bool,
}

/// What a case did.
struct Outcome {
    stdout: String,
    /// The rendered error (or `dist: …` for a bad `# dist:` line).
    error: Option<String>,
    /// The panic message, if the interpreter panicked.
    panic: Option<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn shared_examples_dir() -> PathBuf {
    root().join("../shared/examples")
}

fn update_mode() -> bool {
    std::env::var("UPDATE_GOLDENFILES").is_ok_and(|v| v == "1")
}

/// Every file under `dir` whose name ends in `ext`, sorted, skipping `skip`.
fn files_under(dir: &Path, ext: &str, skip: Option<&Path>, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if Some(path.as_path()) == skip {
            continue;
        }
        if path.is_dir() {
            files_under(&path, ext, skip, found);
        } else if path.extension().is_some_and(|e| e == ext) {
            found.push(path);
        }
    }
}

fn relative_name(path: &Path) -> String {
    let root = root();
    let rel = path
        .strip_prefix(&root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| {
            // ../shared/examples/X.dist
            let name = path.file_name().unwrap_or_default();
            Path::new("../shared/examples").join(name)
        });
    rel.to_string_lossy().replace('\\', "/")
}

fn discover() -> Vec<Case> {
    let root = root();
    let mut cases = Vec::new();
    for (dir, skip) in [
        (root.join("tests/golden"), None),
        (root.join("scripts"), Some(root.join("scripts/bench"))),
    ] {
        let mut found = Vec::new();
        files_under(&dir, "dist", skip.as_deref(), &mut found);
        for path in found {
            let golden = with_isa(
                path.strip_prefix(&dir).unwrap(),
                is_per_cpu(&path),
                cpu_isa(),
                "out",
            );
            cases.push(Case {
                name: relative_name(&path),
                path,
                mint_dir: dir.clone(),
                golden,
                shared_example: false,
            });
        }
    }
    let mut found = Vec::new();
    files_under(&shared_examples_dir(), "dist", None, &mut found);
    for path in found {
        let golden = PathBuf::from(path.file_name().unwrap()).with_extension("out");
        cases.push(Case {
            name: relative_name(&path),
            path,
            mint_dir: root.join("tests/golden/examples"),
            golden,
            shared_example: true,
        });
    }
    cases
}

/// Runs one case the way `dist run` would, output captured.
fn run_case(case: &Case) -> Outcome {
    // Bytes, decoded as `dist run` decodes a file (BOM, coding line).
    let bytes = match fs::read(&case.path) {
        Ok(bytes) => bytes,
        Err(e) => {
            return Outcome {
                stdout: String::new(),
                error: None,
                panic: Some(format!("cannot read {}: {e}", case.path.display())),
            }
        }
    };
    let name = case.name.clone();
    let mask = asks_for_timing_mask(&bytes);
    let ran = cli::with_big_stack(move || {
        let buffer = Rc::new(RefCell::new(Vec::<u8>::new()));
        let output: Output = buffer.clone();
        let source = match cli::decode_script(&name, &bytes) {
            Ok(source) => source,
            Err(e) => return (String::new(), Some(e.report(false))),
        };
        // The goldens describe `--virtual-gpus N` machines: real GPUs stay out
        // unless DIST_GPU_BACKEND asks for them (the GPU check sets `cuda`).
        let flags = Flags {
            gpu_backend: match std::env::var_os("DIST_GPU_BACKEND") {
                Some(_) => None,
                None => Some(dist::runtime::GpuBackend::Host),
            },
            ..Flags::default()
        };
        let result = cli::run_script(source, &flags, |interpreter| {
            interpreter.set_output(output);
        });
        let _ = buffer.borrow_mut().flush();
        let stdout = String::from_utf8_lossy(&buffer.borrow()).into_owned();
        (stdout, result.err().map(|e| e.report(false)))
    });
    match ran {
        Ok((stdout, error)) => Outcome {
            stdout: if mask {
                mask_keras_timing(&stdout)
            } else {
                stdout
            },
            error,
            panic: None,
        },
        Err(payload) => Outcome {
            stdout: String::new(),
            error: None,
            panic: Some(panic_message(payload.as_ref())),
        },
    }
}

/// The instruction-set name of a `per-cpu` case's files on this host.
fn cpu_isa() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f") {
            return "avx512";
        }
        if is_x86_feature_detected!("avx2") {
            return "avx2";
        }
    }
    "generic"
}

/// The instruction-set names `per-cpu` goldens may carry.
const CPU_ISAS: [&str; 3] = ["avx512", "avx2", "generic"];

/// Whether a program's results depend on the host's vector instructions
/// (see the module doc).
fn is_per_cpu(path: &Path) -> bool {
    fs::read(path).is_ok_and(|source| {
        String::from_utf8_lossy(&source)
            .lines()
            .take(5)
            .any(|line| line.trim() == "# golden: per-cpu")
    })
}

/// `X.ext` of a case, or `X.<isa>.ext` for a `per-cpu` one.
fn with_isa(path: &Path, per_cpu: bool, isa: &str, ext: &str) -> PathBuf {
    match per_cpu {
        true => path.with_extension(format!("{isa}.{ext}")),
        false => path.with_extension(ext),
    }
}

/// Whether a program asks for `mask_keras_timing` (see the module doc).
fn asks_for_timing_mask(source: &[u8]) -> bool {
    String::from_utf8_lossy(source)
        .lines()
        .take(5)
        .any(|line| line.trim() == "# golden: keras-timing")
}

/// Keras's progress output with its clock readings replaced by `T`: the
/// time per unit (`12ms/step`), the bold elapsed time or ETA
/// (`\x1b[1m3s\x1b[0m`), verbose 2's ` - 0s - `; runs of backspaces become
/// one and the spaces before a line end, `\r` or backspace go, since their
/// counts follow the widths of those readings.
fn mask_keras_timing(text: &str) -> String {
    static RULES: OnceLock<Vec<(fancy_regex::Regex, &'static str)>> = OnceLock::new();
    let rules = RULES.get_or_init(|| {
        [
            (r"\d+(?:us|ms|s)/(\w+)", "T/$1"),
            (r"\x1b\[1m\d+(?::\d\d)*s\x1b\[0m", "\x1b[1mTs\x1b[0m"),
            (r" - \d+s - ", " - Ts - "),
            (r"\x08+", "\x08"),
            (r" +(?=[\r\n\x08]|$)", ""),
        ]
        .into_iter()
        .map(|(pattern, with)| (fancy_regex::Regex::new(pattern).unwrap(), with))
        .collect()
    });
    let mut text = text.to_string();
    for (pattern, with) in rules {
        text = pattern.replace_all(&text, *with).into_owned();
    }
    text
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".to_string()
    }
}

/// Every case and what it did, computed once for all the tests here.
fn outcomes() -> &'static [(Case, Outcome)] {
    static ALL: OnceLock<Vec<(Case, Outcome)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let cases = discover();
        let results: Vec<Mutex<Option<Outcome>>> = cases.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(case) = cases.get(i) else { break };
                    let outcome = run_case(case);
                    *results[i].lock().unwrap() = Some(outcome);
                });
            }
        });
        cases
            .into_iter()
            .zip(results)
            .map(|(case, r)| (case, r.into_inner().unwrap().unwrap()))
            .collect()
    })
}

/// The golden file's text: `## stdout`, then `## error` if there was one.
fn golden_text(outcome: &Outcome) -> String {
    let mut text = String::from("## stdout\n");
    text.push_str(&outcome.stdout);
    if !outcome.stdout.is_empty() && !outcome.stdout.ends_with('\n') {
        text.push_str("\n\\ no newline at end of stdout\n");
    }
    if let Some(error) = &outcome.error {
        text.push_str("## error\n");
        text.push_str(error);
    }
    text
}

/// Fails listing every failure, if there were any.
fn report(what: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} {what}:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[test]
fn goldens() {
    let mut failures = Vec::new();
    for (case, outcome) in outcomes() {
        if let Some(panic) = &outcome.panic {
            failures.push(format!("{}: panicked: {panic}", case.name));
            continue;
        }
        let text = golden_text(outcome);
        let checked = catch_unwind(AssertUnwindSafe(|| {
            let mut mint = Mint::new(&case.mint_dir);
            let mut file = mint
                .new_goldenfile(&case.golden)
                .expect("create the golden file");
            file.write_all(text.as_bytes())
                .expect("write the golden file");
            drop(file);
            // Dropping the mint compares (or, in update mode, rewrites).
            drop(mint);
        }));
        if checked.is_err() {
            failures.push(format!(
                "{}: output differs from {} (diff above; UPDATE_GOLDENFILES=1 cargo test accepts it)",
                case.name,
                relative_name(&case.mint_dir.join(&case.golden))
            ));
        }
    }
    failures.extend(orphans());
    report("golden case(s) failed", &failures);
}

/// `.out` files no case writes any more (deleted in update mode).
fn orphans() -> Vec<String> {
    let root = root();
    // (a per-cpu case's goldens for other hosts are its own too)
    let expected: Vec<PathBuf> = outcomes()
        .iter()
        .flat_map(|(case, _)| {
            let own = case.mint_dir.join(&case.golden);
            let per_cpu = is_per_cpu(&case.path);
            let rel = case.path.strip_prefix(&case.mint_dir).ok();
            let others: Vec<PathBuf> = match (per_cpu, rel) {
                (true, Some(rel)) => CPU_ISAS
                    .iter()
                    .map(|isa| case.mint_dir.join(with_isa(rel, true, isa, "out")))
                    .collect(),
                _ => Vec::new(),
            };
            std::iter::once(own).chain(others)
        })
        .collect();
    let mut outs = Vec::new();
    let examples = root.join("tests/golden/examples");
    let skip = (!shared_examples_dir().is_dir()).then_some(examples.as_path());
    files_under(&root.join("tests/golden"), "out", skip, &mut outs);
    files_under(
        &root.join("scripts"),
        "out",
        Some(&root.join("scripts/bench")),
        &mut outs,
    );
    let mut found = Vec::new();
    for out in outs.into_iter().filter(|o| !expected.contains(o)) {
        if update_mode() {
            let _ = fs::remove_file(&out);
        } else {
            found.push(format!(
                "{}: no .dist program writes this golden any more (delete it)",
                relative_name(&out)
            ));
        }
    }
    found
}

/// Where two texts first differ, for failure messages.
fn first_difference(want: &str, got: &str) -> String {
    let (mut want_lines, mut got_lines) = (want.split('\n'), got.split('\n'));
    for line in 1.. {
        match (want_lines.next(), got_lines.next()) {
            (None, None) => break,
            (w, g) if w == g => continue,
            (w, g) => {
                return format!(
                    "line {line}: expected {:?}, got {:?}",
                    w.unwrap_or("<end>"),
                    g.unwrap_or("<end>")
                )
            }
        }
    }
    "identical".into()
}

#[test]
fn shared_examples_print_expected() {
    let mut failures = Vec::new();
    for (case, outcome) in outcomes().iter().filter(|(c, _)| c.shared_example) {
        let expected_path = case.path.with_extension("expected");
        let Ok(expected) = fs::read_to_string(&expected_path) else {
            failures.push(format!("{}: no {}", case.name, expected_path.display()));
            continue;
        };
        if let Some(panic) = &outcome.panic {
            failures.push(format!("{}: panicked: {panic}", case.name));
        } else if let Some(error) = &outcome.error {
            let last = error.lines().last().unwrap_or("");
            failures.push(format!("{}: failed with {last}", case.name));
        } else if outcome.stdout != expected {
            failures.push(format!(
                "{}: stdout differs from its .expected ({})",
                case.name,
                first_difference(&expected, &outcome.stdout)
            ));
        }
    }
    report(
        "shared example(s) do not print their .expected output",
        &failures,
    );
}

#[test]
fn cpython_expectations() {
    let mut failures = Vec::new();
    for (case, outcome) in outcomes() {
        if let Some(panic) = &outcome.panic {
            failures.push(format!("{}: panicked: {panic}", case.name));
            continue;
        }
        let stdout = with_isa(&case.path, is_per_cpu(&case.path), cpu_isa(), "stdout");
        if let Ok(want) = fs::read_to_string(stdout) {
            let masked = fs::read(&case.path).is_ok_and(|source| asks_for_timing_mask(&source));
            let want = if masked {
                mask_keras_timing(&want)
            } else {
                want
            };
            if outcome.stdout != want {
                failures.push(format!(
                    "{}: stdout differs from CPython's .stdout ({})",
                    case.name,
                    first_difference(&want, &outcome.stdout)
                ));
            }
        }
        if let Ok(want) = fs::read_to_string(case.path.with_extension("stderr_last")) {
            let want = want.trim_end_matches(['\n', '\r']);
            match &outcome.error {
                None => failures.push(format!(
                    "{}: expected to fail with {want:?}, but it succeeded",
                    case.name
                )),
                Some(error) => {
                    let last = error.lines().last().unwrap_or("");
                    if last != want {
                        failures.push(format!(
                            "{}: last error line {last:?}, CPython's is {want:?}",
                            case.name
                        ));
                    }
                }
            }
        }
    }
    report("case(s) differ from CPython", &failures);
}

#[test]
fn discovery_names_cases_by_path() {
    for (case, _) in outcomes() {
        assert!(case.name.ends_with(".dist"), "{}", case.name);
        assert!(!case.name.starts_with("scripts/bench/"), "{}", case.name);
        assert_eq!(case.golden.extension().unwrap(), "out");
        if case.shared_example {
            assert!(
                case.name.starts_with("../shared/examples/"),
                "{}",
                case.name
            );
            assert!(case.mint_dir.ends_with("tests/golden/examples"));
        }
    }
}
