//! `dist doctest FILE…`: runs the Python-doctest examples of `.txt`/`.md`
//! files (bare or in fenced blocks) and of the docstrings of `.dist` files,
//! with the semantics of CPython's `doctest` module. Parsing is `parse.rs`,
//! comparing `check.rs`, finding docstrings `docstrings.rs`; this file runs
//! the examples through [`Interpreter::run_interactive`] (the REPL's mode:
//! expression values echoed unless None) and writes the report.
//!
//! Each text file runs in one fresh interpreter. Each docstring of a `.dist`
//! file runs in a fresh interpreter that has first run the file as a module
//! named after its stem (CPython gives each docstring a copy of the module's
//! globals, so one docstring's names never leak into another's).

pub mod check;
pub mod docstrings;
pub mod options;
pub mod parse;

use std::cell::RefCell;
use std::fmt::Write as _;
use std::path::Path;
use std::rc::Rc;

use crate::cli::{header_flags, Flags};
use crate::diag::render;
use crate::{Diagnostic, Interpreter, SourceFile};
pub use check::Checker;
use options::{Flag, Flags as OptionFlags};
use parse::Example;

/// How `dist doctest` runs.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The command-line flags (laid over each file's `# dist:` line).
    pub flags: Flags,
    /// CPython's comparison, or TensorFlow's (`--tf-checker`).
    pub checker: Checker,
}

/// Examples that passed and failed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Examples whose output matched.
    pub passed: usize,
    /// Examples that failed, plus files or docstrings that could not be run.
    pub failed: usize,
}

impl std::ops::AddAssign for Summary {
    fn add_assign(&mut self, other: Summary) {
        self.passed += other.passed;
        self.failed += other.failed;
    }
}

/// What happened to one failing example (for tests that compare with CPython).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The test's name (`file.md`, `module.func`).
    pub test: String,
    /// 1-based line of the example's `>>>` in the file (0 for a file or
    /// docstring that could not be run at all).
    pub line: usize,
}

/// The result of one file: its counts, its failures, and the report text.
#[derive(Clone, Debug, Default)]
pub struct FileResult {
    /// Passed and failed counts.
    pub summary: Summary,
    /// Each failure the report shows (`REPORT_ONLY_FIRST_FAILURE` hides some).
    pub failures: Vec<Failure>,
    /// The failure report (empty when everything passed).
    pub report: String,
}

/// The line that separates failures in a report (CPython's).
const RULE: &str = "**********************************************************************";

/// The imports TensorFlow's doc tests provide to every docstring.
const TF_GLOBALS: &str = "import tensorflow as tf\nimport numpy as np\nimport os\n";

/// Runs every file in order and returns the whole report (ending with
/// `N passed, N failed`) and the totals.
pub fn run_files(files: &[String], config: &Config) -> (String, Summary) {
    let mut report = String::new();
    let mut total = Summary::default();
    for file in files {
        let result = run_file(file, config);
        report.push_str(&result.report);
        total += result.summary;
    }
    let _ = writeln!(report, "{} passed, {} failed", total.passed, total.failed);
    (report, total)
}

/// One docstring or text file's examples.
struct Test {
    name: String,
    examples: Vec<Example>,
    /// 0-based line of the file where the parsed text starts.
    line: usize,
}

/// Runs the examples of one file (`path` as given: it names the file in the report).
pub fn run_file(path: &str, config: &Config) -> FileResult {
    let mut result = FileResult::default();
    // Universal newlines, as CPython's doctest reads a file.
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            result.fail_file(path, path, &format!("can't open file '{path}': {e}"));
            return result;
        }
    };
    // A `.dist` file is Python source (a BOM, a coding line, else UTF-8,
    // as CPython imports it); a text file is read as UTF-8, as `doctest`'s
    // `testfile` reads it.
    let is_source = Path::new(path).extension().is_some_and(|e| e == "dist");
    let decoded = if is_source {
        crate::syntax::encoding::decode(&bytes, path)
            .map_err(|e| render(&crate::diag::from_source_error(path, &e), false))
    } else {
        String::from_utf8(bytes).map_err(|e| {
            let (bytes, error) = (e.as_bytes(), e.utf8_error());
            let at = error.valid_up_to();
            format!(
                "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x{:02x} in position {at}: {}",
                bytes[at],
                crate::syntax::encoding::utf8_reason(bytes, &error)
            )
        })
    };
    // Universal newlines, as CPython's doctest reads a file.
    let text = match decoded {
        Ok(text) => text.replace("\r\n", "\n"),
        Err(report) => {
            result.fail_file(path, path, &report);
            return result;
        }
    };
    let flags = match file_flags(&text) {
        Ok(script) => config.flags.over(&script),
        Err(e) => {
            result.fail_file(path, path, &e);
            return result;
        }
    };
    if flags.trace.is_some() {
        result.fail_file(path, path, "--trace is not available with dist doctest");
        return result;
    }
    let base = if config.checker == Checker::Tf {
        tf_default_flags()
    } else {
        OptionFlags::empty()
    };
    let file = Path::new(path);
    let base_name = file
        .file_name()
        .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
    let runner = Runner {
        path,
        config,
        flags: &flags,
        base,
    };
    if file.extension().is_some_and(|e| e == "dist") {
        let module = file
            .file_stem()
            .map_or(base_name.clone(), |s| s.to_string_lossy().into_owned());
        let source = SourceFile::new(path, text);
        let docs = match docstrings::docstrings(&source, &module) {
            Ok(docs) => docs,
            Err(e) => {
                let d = crate::diag::from_syntax_error(&source, &e);
                result.fail_file(path, &module, &render(&d, false));
                return result;
            }
        };
        for doc in docs {
            match parse::parse(&doc.text, &doc.name) {
                Ok(examples) if examples.is_empty() => {}
                Ok(examples) => runner.run_test(
                    &Test {
                        name: doc.name,
                        examples,
                        line: doc.line,
                    },
                    Some((&source, &module)),
                    &mut result,
                ),
                Err(e) => result.fail_file(path, &doc.name, &format!("ValueError: {}", e.message)),
            }
        }
    } else {
        let is_md = file
            .extension()
            .is_some_and(|e| e == "md" || e == "markdown");
        let text = if is_md {
            parse::blank_fences(&text)
        } else {
            text
        };
        match parse::parse(&text, &base_name) {
            Ok(examples) => runner.run_test(
                &Test {
                    name: base_name,
                    examples,
                    line: 0,
                },
                None,
                &mut result,
            ),
            Err(e) => result.fail_file(path, &base_name, &format!("ValueError: {}", e.message)),
        }
    }
    result
}

/// The option flags TensorFlow's doc tests run with.
fn tf_default_flags() -> OptionFlags {
    let mut f = OptionFlags::empty();
    for flag in [
        Flag::Ellipsis,
        Flag::NormalizeWhitespace,
        Flag::IgnoreExceptionDetail,
        Flag::DontAcceptBlankline,
    ] {
        f.insert(flag);
    }
    f
}

/// The `# dist: FLAGS` first line; in Markdown also `<!-- dist: FLAGS -->`.
fn file_flags(text: &str) -> Result<Flags, String> {
    let first = text.lines().next().unwrap_or("").trim();
    if let Some(inner) = first
        .strip_prefix("<!--")
        .and_then(|r| r.strip_suffix("-->"))
    {
        if inner.trim_start().starts_with("dist:") {
            return header_flags(&format!("# {}\n", inner.trim())).map_err(|e| e.0);
        }
    }
    header_flags(text).map_err(|e| e.0)
}

impl FileResult {
    /// Records a file or docstring that could not be run at all.
    fn fail_file(&mut self, path: &str, test: &str, message: &str) {
        self.summary.failed += 1;
        self.failures.push(Failure {
            test: test.to_string(),
            line: 0,
        });
        let _ = writeln!(self.report, "{RULE}\nFile \"{path}\", in {test}");
        let _ = writeln!(self.report, "{}", message.trim_end());
    }
}

/// What captures `print` and the echo.
type Buffer = Rc<RefCell<Vec<u8>>>;

fn take(buffer: &Buffer) -> String {
    let bytes = std::mem::take(&mut *buffer.borrow_mut());
    let mut got = String::from_utf8_lossy(&bytes).into_owned();
    // doctest's fake stdout: output that does not end a line still ends one.
    if !got.is_empty() && !got.ends_with('\n') {
        got.push('\n');
    }
    got
}

struct Runner<'a> {
    path: &'a str,
    config: &'a Config,
    flags: &'a Flags,
    base: OptionFlags,
}

/// How one example went.
enum Outcome {
    Success,
    /// Output (or exception line) differed: the expected and got texts to
    /// diff, and whether to show empty lines as `<BLANKLINE>`.
    Failure {
        want: String,
        got: String,
        mark_blank: bool,
    },
    /// An exception nobody expected.
    Boom(Box<Diagnostic>),
}

impl Runner<'_> {
    /// A fresh interpreter for one test, with the TF globals under
    /// `--tf-checker` and the module run first for a docstring.
    fn interpreter(
        &self,
        buffer: &Buffer,
        module: Option<(&Rc<SourceFile>, &str)>,
    ) -> Result<Interpreter, String> {
        let mut options = self.flags.options();
        options.echo = false;
        let interpreter = Interpreter::new(options);
        interpreter.set_output(buffer.clone());
        if self.config.checker == Checker::Tf {
            interpreter
                .run_source(SourceFile::new("<tf doctest globals>", TF_GLOBALS))
                .map_err(|d| render(&d, false))?;
        }
        if let Some((source, name)) = module {
            interpreter.set_module_name(name);
            interpreter
                .run_source(source.clone())
                .map_err(|d| render(&d, false))?;
        }
        buffer.borrow_mut().clear();
        Ok(interpreter)
    }

    fn run_test(
        &self,
        test: &Test,
        module: Option<(&Rc<SourceFile>, &str)>,
        result: &mut FileResult,
    ) {
        let buffer: Buffer = Rc::new(RefCell::new(Vec::new()));
        let interpreter = match self.interpreter(&buffer, module) {
            Ok(i) => i,
            Err(error) => {
                let message = format!("the module could not be run:\n{}", indent(&error));
                result.fail_file(self.path, &test.name, &message);
                return;
            }
        };
        let checker = self.config.checker;
        let mut failures = 0;
        // CPython decides whether to stay quiet with the flags the runner
        // holds before merging this example's: the previous example's.
        let mut current = self.base;
        for (k, example) in test.examples.iter().enumerate() {
            let quiet = current.contains(Flag::ReportOnlyFirstFailure) && failures > 0;
            let flags = self.base.with(example.set, example.unset);
            current = flags;
            if flags.contains(Flag::Skip) {
                continue;
            }
            let source = SourceFile::new(
                format!("<doctest {}[{k}]>", test.name),
                example.source.clone(),
            );
            let run = interpreter.run_interactive(source);
            let got = take(&buffer);
            let outcome = match run {
                Ok(()) if checker.check(&example.want, &got, flags) => Outcome::Success,
                Ok(()) => {
                    let literal = flags.contains(Flag::DontAcceptBlankline);
                    Outcome::Failure {
                        // `<BLANKLINE>` stands for the empty line it matches.
                        want: if literal {
                            example.want.clone()
                        } else {
                            check::blank_markers(&example.want)
                        },
                        got,
                        mark_blank: !literal,
                    }
                }
                Err(d) => match &example.exc_msg {
                    None => Outcome::Boom(d),
                    Some(want) => {
                        let got = format!("{}\n", d.headline());
                        let ignore = flags.contains(Flag::IgnoreExceptionDetail);
                        if checker.check(want, &got, flags)
                            || (ignore
                                && checker.check(
                                    check::strip_exception_details(want),
                                    check::strip_exception_details(&got),
                                    flags,
                                ))
                        {
                            Outcome::Success
                        } else {
                            Outcome::Failure {
                                want: want.clone(),
                                got,
                                mark_blank: false,
                            }
                        }
                    }
                },
            };
            if let Outcome::Success = outcome {
                result.summary.passed += 1;
            } else {
                failures += 1;
                result.summary.failed += 1;
                if !quiet {
                    let line = test.line + example.lineno + 1;
                    result.failures.push(Failure {
                        test: test.name.clone(),
                        line,
                    });
                    self.report(&mut result.report, test, example, line, &outcome);
                }
            }
            if failures > 0 && flags.contains(Flag::FailFast) {
                break;
            }
        }
    }

    fn report(
        &self,
        out: &mut String,
        test: &Test,
        example: &Example,
        line: usize,
        outcome: &Outcome,
    ) {
        let _ = writeln!(out, "{RULE}");
        let _ = writeln!(out, "File \"{}\", line {line}, in {}", self.path, test.name);
        let _ = writeln!(out, "Failed example:");
        out.push_str(&indent(&example.source));
        match outcome {
            Outcome::Success => {}
            Outcome::Failure {
                want,
                got,
                mark_blank,
            } => {
                if want.is_empty() {
                    let _ = writeln!(out, "Expected nothing");
                }
                if got.is_empty() {
                    let _ = writeln!(out, "Got nothing");
                }
                let _ = writeln!(out, "Differences (-expected +got):");
                for line in check::diff(want, got, *mark_blank) {
                    let _ = writeln!(out, "    {line}");
                }
            }
            Outcome::Boom(d) => {
                let _ = writeln!(out, "Exception raised:");
                out.push_str(&indent(&render(d, false)));
            }
        }
    }
}

/// Each line indented by four spaces (blank lines stay empty).
fn indent(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "    {line}");
        }
    }
    out
}
