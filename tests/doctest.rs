//! `dist doctest`:
//! - the fixtures under `tests/doctest/` pass and fail exactly the examples
//!   CPython's doctest passes and fails (`tests/data/doctest_reference.jsonl`,
//!   and `doctest_reference_tf.jsonl` for TensorFlow's checker, both written
//!   by `tools/gen_doctest_reference.py`; these tests do not need python3);
//! - every doctest file of the docs corpus (`scripts/docs/**/*.md`, `.txt`,
//!   and the docstrings of its `.dist` scripts) passes;
//! - the failure report and exit status of the `dist doctest` binary are
//!   pinned by goldens (`tests/doctest/**/X.report`; `UPDATE_GOLDENFILES=1`
//!   rewrites them).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use dist::doctest::{run_file, Checker, Config};
use goldenfile::Mint;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One line of a reference file.
#[derive(Debug, PartialEq)]
struct Record {
    file: String,
    attempted: usize,
    failed: usize,
    /// (test name, line), sorted.
    failures: Vec<(String, usize)>,
}

/// The `"key": ` value of a one-line JSON object, as raw text.
fn raw<'a>(line: &'a str, key: &str) -> &'a str {
    let start = line
        .find(&format!("\"{key}\": "))
        .unwrap_or_else(|| panic!("no {key} in {line}"))
        + key.len()
        + 4;
    &line[start..]
}

fn number(line: &str, key: &str) -> usize {
    let text = raw(line, key);
    let end = text.find(|c: char| !c.is_ascii_digit()).unwrap();
    text[..end].parse().unwrap()
}

/// `[["name", 12], ...]`: names hold no quotes or brackets.
fn failures(line: &str) -> Vec<(String, usize)> {
    let text = raw(line, "failures");
    let body = &text[1..text.find("]]").map_or(1, |e| e + 1)];
    body.split('[')
        .filter(|p| p.contains('"'))
        .map(|p| {
            let mut parts = p.split('"');
            let name = parts.nth(1).unwrap().to_string();
            let rest = parts.next().unwrap();
            let digits: String = rest.chars().filter(char::is_ascii_digit).collect();
            (name, digits.parse().unwrap())
        })
        .collect()
}

fn records(text: &str) -> Vec<Record> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let file = raw(line, "file");
            Record {
                file: file[1..file[1..].find('"').unwrap() + 1].to_string(),
                attempted: number(line, "attempted"),
                failed: number(line, "failed"),
                failures: failures(line),
            }
        })
        .collect()
}

/// What our runner says about `file` (relative to the crate root).
fn ours(file: &str, checker: Checker) -> Record {
    let file = file.to_string();
    dist::with_big_stack(move || {
        let mut config = Config {
            checker,
            ..Config::default()
        };
        if std::env::var_os("DIST_GPU_BACKEND").is_none() {
            config.flags.gpu_backend = Some(dist::runtime::GpuBackend::Host);
        }
        let result = run_file(&file, &config);
        let mut failures: Vec<(String, usize)> = result
            .failures
            .into_iter()
            .map(|f| (f.test, f.line))
            .collect();
        failures.sort();
        Record {
            file,
            attempted: result.summary.passed + result.summary.failed,
            failed: result.summary.failed,
            failures,
        }
    })
}

fn fixtures(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .is_some_and(|e| e == "txt" || e == "md" || e == "dist")
        })
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    names.sort();
    names
}

fn compare_with_reference(reference: &str, dir: &str, checker: Checker) {
    std::env::set_current_dir(root()).unwrap();
    let records = records(reference);
    let listed: Vec<&str> = records.iter().map(|r| r.file.as_str()).collect();
    assert_eq!(
        listed,
        fixtures(&root().join(dir)),
        "the reference is stale: run tools/gen_doctest_reference.py"
    );
    let mut mismatches = Vec::new();
    for want in &records {
        let got = ours(&want.file, checker);
        if &got != want {
            mismatches.push(format!("CPython: {want:?}\ndist:    {got:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n\n"));
}

#[test]
fn fixtures_pass_and_fail_as_in_cpython() {
    compare_with_reference(
        include_str!("data/doctest_reference.jsonl"),
        "tests/doctest",
        Checker::Python,
    );
}

#[test]
fn tf_checker_fixtures_pass_and_fail_as_in_tensorflow() {
    compare_with_reference(
        include_str!("data/doctest_reference_tf.jsonl"),
        "tests/doctest/tf",
        Checker::Tf,
    );
}

fn doc_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        if path.is_dir() {
            doc_files(&path, found);
        } else if path
            .extension()
            .is_some_and(|e| e == "md" || e == "txt" || e == "dist")
            && path.file_name().is_some_and(|n| n != "README.md")
        {
            found.push(path);
        }
    }
}

#[test]
fn docs_corpus_passes() {
    std::env::set_current_dir(root()).unwrap();
    let mut files = Vec::new();
    doc_files(&root().join("scripts/docs"), &mut files);
    files.sort();
    assert!(!files.is_empty(), "no doctest files under scripts/docs");
    let mut bad = Vec::new();
    for path in files {
        let name = path
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let file = name.clone();
        let result = dist::with_big_stack(move || run_file(&file, &Config::default()));
        // A .dist script without docstring examples has nothing to run; a
        // doctest page must have examples.
        let is_page = !name.ends_with(".dist");
        if result.summary.failed > 0 || (is_page && result.summary.passed == 0) {
            bad.push(format!(
                "{name}: {} passed, {} failed\n{}",
                result.summary.passed, result.summary.failed, result.report
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn reports_and_exit_status() {
    let root = root();
    let mut cases: Vec<(String, Vec<&str>)> = fixtures(&root.join("tests/doctest"))
        .into_iter()
        .map(|f| (f, vec![]))
        .collect();
    cases.extend(
        fixtures(&root.join("tests/doctest/tf"))
            .into_iter()
            .map(|f| (f, vec!["--tf-checker"])),
    );
    let mut mint = Mint::new(&root);
    for (file, extra) in cases {
        let output = Command::new(env!("CARGO_BIN_EXE_dist"))
            .current_dir(&root)
            .env("NO_COLOR", "1")
            // real GPUs stay out unless asked for (the goldens describe virtual ones)
            .env(
                "DIST_GPU_BACKEND",
                std::env::var("DIST_GPU_BACKEND").unwrap_or_else(|_| "host".into()),
            )
            .arg("doctest")
            .args(&extra)
            .arg(&file)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let status = output.status.code().unwrap_or(-1);
        let failed = !stdout.ends_with(" 0 failed\n");
        assert_eq!(status, i32::from(failed), "{file}: exit status");
        let golden = Path::new(&file).with_extension("report");
        let mut f = mint.new_goldenfile(golden).unwrap();
        write!(
            f,
            "$ dist doctest {}{file}\n{stdout}exit status: {status}\n",
            extra.iter().map(|e| format!("{e} ")).collect::<String>()
        )
        .unwrap();
    }
}
