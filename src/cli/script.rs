//! The `dist run` code path: read a script, lay the command-line flags over
//! its `# dist:` line, build an interpreter and run the script. The golden
//! harness calls exactly these functions, so what it checks is what
//! `dist run` does.

use std::io::Read;
use std::rc::Rc;

use super::args::{header_flags, Flags, UsageError};
use crate::diag::render;
use crate::{Diagnostic, Interpreter, SourceFile};

pub use crate::STACK_SIZE;

/// Why a script did not run to the end.
#[derive(Debug)]
pub enum ScriptError {
    /// Bad flags in its `# dist:` line, or the file could not be read (exit 2).
    Usage(UsageError),
    /// An uncaught exception (exit 1, or 130 for `KeyboardInterrupt`).
    Exception(Box<Diagnostic>),
}

impl ScriptError {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            ScriptError::Usage(_) => 2,
            ScriptError::Exception(d) if d.exit_status.is_some() => d.exit_status.unwrap_or(0),
            ScriptError::Exception(d) if d.class == "KeyboardInterrupt" => 130,
            ScriptError::Exception(_) => 1,
        }
    }

    /// The text for stderr: the rendered diagnostic, or `dist: message`.
    pub fn report(&self, color: bool) -> String {
        match self {
            ScriptError::Usage(e) => format!("dist: {e}\n"),
            // sys.exit(): no traceback; a status that is not an int is printed.
            ScriptError::Exception(d) if d.exit_status.is_some() => {
                if d.exit_status == Some(1)
                    && !d.message.is_empty()
                    && d.message.parse::<i64>().is_err()
                {
                    format!("{}\n", d.message)
                } else {
                    String::new()
                }
            }
            ScriptError::Exception(d) => render(d, color),
        }
    }
}

impl From<UsageError> for ScriptError {
    fn from(e: UsageError) -> ScriptError {
        ScriptError::Usage(e)
    }
}

/// Reads a script: `-` is stdin (shown as `<stdin>`), anything else a path
/// (shown as given). Its bytes are decoded by CPython's rules (a BOM, a
/// PEP 263 coding line, else UTF-8); bytes that do not decode are the
/// `SyntaxError` CPython raises (exit 1), a file that cannot be opened a
/// usage error (exit 2).
pub fn read_script(file: &str) -> Result<Rc<SourceFile>, ScriptError> {
    let mut bytes = Vec::new();
    let read = if file == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(drop)
    } else {
        std::fs::read(file).map(|b| bytes = b)
    };
    read.map_err(|e| UsageError(format!("can't open file '{file}': {e}")))?;
    let name = if file == "-" { "<stdin>" } else { file };
    decode_script(name, &bytes)
}

/// A script's bytes as source text shown under `name` (see [`read_script`]).
pub fn decode_script(name: &str, bytes: &[u8]) -> Result<Rc<SourceFile>, ScriptError> {
    match crate::syntax::encoding::decode(bytes, name) {
        Ok(text) => Ok(SourceFile::new(name, text)),
        Err(e) => Err(ScriptError::Exception(Box::new(
            crate::diag::from_source_error(name, &e),
        ))),
    }
}

/// The interpreter `dist run` builds for this script: the command-line
/// `flags` laid over the script's `# dist:` line.
pub fn interpreter_for(source: &SourceFile, flags: &Flags) -> Result<Interpreter, UsageError> {
    let script =
        header_flags(&source.text).map_err(|e| UsageError(format!("{}: {e}", source.name)))?;
    let flags = flags.over(&script);
    let options = flags.options();
    options.gpu_backend.check().map_err(UsageError)?;
    Ok(Interpreter::new(options))
}

/// Runs a script the way `dist run` does. `setup` sees the interpreter before
/// the script starts (the CLI registers its Ctrl-C flag there; tests redirect
/// the output).
pub fn run_script(
    source: Rc<SourceFile>,
    flags: &Flags,
    setup: impl FnOnce(&Interpreter),
) -> Result<(), ScriptError> {
    let interpreter = interpreter_for(&source, flags)?;
    if source.name.as_str() != "<string>" {
        interpreter.set_main_file(&source.name);
    }
    setup(&interpreter);
    let trace = interpreter.options().trace.clone();
    if trace.is_some() {
        crate::runtime::trace::start();
    }
    let result = interpreter.run_source(source);
    if result.is_ok() {
        interpreter.finalize();
    }
    if let Some(dest) = trace {
        report_trace(dest.as_deref(), &crate::runtime::trace::finish());
    }
    result.map_err(ScriptError::Exception)
}

/// `--trace`: the timeline on stderr, or the Chrome JSON written to `file`
/// (a line on stderr says where, or why it could not be written).
fn report_trace(file: Option<&str>, events: &[crate::runtime::trace::Event]) {
    use std::io::Write;
    let text = match file {
        None => super::trace::timeline(events),
        Some(path) => match std::fs::write(path, super::trace::chrome_json(events)) {
            Ok(()) => format!(
                "dist: trace of {} events written to {path} (open it in chrome://tracing or https://ui.perfetto.dev)\n",
                events.len()
            ),
            Err(e) => format!("dist: cannot write the trace to {path}: {e}\n"),
        },
    };
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// Runs `f` on an interpreter thread ([`crate::on_interpreter_thread`]:
/// a [`STACK_SIZE`] stack, the kernels' thread pool) and waits for it.
/// `Err` carries the panic, if `f` panicked (unlike [`crate::with_big_stack`],
/// which resumes it: the golden harness reports a panicking case and goes on).
pub fn with_big_stack<T, F>(f: F) -> std::thread::Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    crate::on_interpreter_thread(f)
}

/// Whether stderr should get colour: a terminal, and `NO_COLOR` unset.
pub fn stderr_color() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_dist_line_is_a_usage_error() {
        let source = SourceFile::new("x.dist", "# dist: --gpus 2\nprint(1)\n");
        let err = run_script(source, &Flags::default(), |_| {}).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err
            .report(false)
            .starts_with("dist: x.dist: unknown flag '--gpus'"));
    }

    #[test]
    fn options_come_from_the_dist_line_and_the_command_line() {
        let source = SourceFile::new("x.dist", "# dist: --virtual-gpus 4 --echo\n");
        let cli = Flags {
            virtual_gpus: Some(2),
            ..Flags::default()
        };
        let interp = interpreter_for(&source, &cli).unwrap();
        assert_eq!(interp.options().virtual_gpus, 2);
        assert!(interp.options().echo);
    }

    #[test]
    fn missing_file() {
        let err = read_script("/nonexistent/x.dist").unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err
            .report(false)
            .starts_with("dist: can't open file '/nonexistent/x.dist'"));
    }

    #[test]
    fn big_stack_reports_panics() {
        assert_eq!(with_big_stack(|| 7).unwrap(), 7);
        assert!(with_big_stack(|| panic!("boom")).is_err());
    }

    #[test]
    fn exit_codes() {
        let d = |class: &str| {
            ScriptError::Exception(Box::new(Diagnostic {
                class: class.into(),
                message: String::new(),
                frames: Vec::new(),
                help: Vec::new(),
                notes: Vec::new(),
                exit_status: None,
            }))
        };
        assert_eq!(d("ValueError").exit_code(), 1);
        assert_eq!(d("KeyboardInterrupt").exit_code(), 130);
    }
}
