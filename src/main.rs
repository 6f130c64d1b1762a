//! The `dist` binary: parses the command line (`dist::cli`), then runs a
//! script, `-c` code or the REPL on a thread with a large stack. All the logic
//! lives in the library so that tests exercise the same code paths.

use std::io::Write;
use std::process::ExitCode;

use dist::cli::{self, Command, Flags, ScriptError, UsageError};
use dist::SourceFile;

/// mimalloc instead of glibc's malloc: the interpreter's many small,
/// short-lived allocations (syntax trees read back at import, frames,
/// values) cost less (BENCHMARKS.md, twenty-fifth run).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // glibc's own malloc still serves what C code allocates (the threads'
    // TLS among it), and gives each thread that calls it an arena that
    // reserves 64 MiB of address space: one arena is plenty for that, and
    // a script run under an address-space limit (`ulimit -v`) keeps the
    // room for its own data.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a glibc tunable; called before any thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
    let mut args = Vec::new();
    for arg in std::env::args_os().skip(1) {
        match arg.into_string() {
            Ok(arg) => args.push(arg),
            Err(arg) => return usage_error(&UsageError(format!("argument {arg:?} is not UTF-8"))),
        }
    }
    let invocation = match cli::parse_args(args) {
        Ok(invocation) => invocation,
        Err(e) => return usage_error(&e),
    };
    let flags = invocation.flags;
    let status = match invocation.command {
        Command::Help => ExitCode::from(print_out(cli::HELP)),
        Command::Version => ExitCode::from(print_out(&format!(
            "dist {}",
            env!("CARGO_PKG_VERSION")
        ))),
        Command::Devices => ExitCode::from(print_out(
            cli::devices::report(&flags.options()).trim_end(),
        )),
        Command::Run { file, args } => ExitCode::from(match cli::read_script(&file) {
            Ok(source) => run(source, flags, std::iter::once(file).chain(args).collect()),
            Err(e) => report(&e),
        }),
        Command::Code { code, args } => ExitCode::from(run(
            SourceFile::new("<string>", code),
            flags,
            std::iter::once("-c".to_string()).chain(args).collect(),
        )),
        Command::Doctest { files, tf_checker } => ExitCode::from(doctest(files, tf_checker, flags)),
        Command::Repl if flags.trace.is_some() => usage_error(&UsageError(
            "--trace records a script's run: use it with `dist run FILE` or `-c CODE`, not the REPL"
                .into(),
        )),
        Command::Repl => match flags.options().gpu_backend.check() {
            Ok(()) => ExitCode::from(in_big_stack(move || dist::repl::main(flags.options()))),
            Err(e) => ExitCode::from(report(&ScriptError::Usage(UsageError(e)))),
        },
    };
    status
}

/// Runs a script on the interpreter thread; reports an uncaught error after
/// flushing stdout.
fn run(source: std::rc::Rc<SourceFile>, flags: Flags, argv: Vec<String>) -> u8 {
    // `Rc` is not `Send`: move the text and rebuild the source there.
    let (name, text) = (source.name.clone(), source.text.clone());
    drop(source);
    in_big_stack(move || {
        let source = SourceFile::new(name, text);
        let result = cli::run_script(source, &flags, |interpreter| {
            interpreter.with_vm(|vm| dist::modules::sys::set_argv(vm, argv));
            cli::interrupt::watch(interpreter.interrupt_handle());
        });
        let _ = std::io::stdout().flush();
        match result {
            Ok(()) => 0,
            Err(e) => i32::from(report(&e)),
        }
    })
}

/// `dist doctest`: the report on stdout; exit 1 if any example failed.
fn doctest(files: Vec<String>, tf_checker: bool, flags: Flags) -> u8 {
    in_big_stack(move || {
        let config = dist::doctest::Config {
            flags,
            checker: if tf_checker {
                dist::doctest::Checker::Tf
            } else {
                dist::doctest::Checker::Python
            },
        };
        let (report, summary) = dist::doctest::run_files(&files, &config);
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(report.as_bytes());
        let _ = out.flush();
        i32::from(summary.failed > 0)
    })
}

fn in_big_stack(f: impl FnOnce() -> i32 + Send + 'static) -> u8 {
    match cli::with_big_stack(f) {
        Ok(status) => u8::try_from(status).unwrap_or(1),
        // The panic message has already been printed by the panic hook.
        Err(_) => 101,
    }
}

fn report(error: &ScriptError) -> u8 {
    let text = error.report(cli::stderr_color());
    let _ = std::io::stderr().write_all(text.as_bytes());
    u8::try_from(error.exit_code()).unwrap_or(1)
}

fn usage_error(error: &UsageError) -> ExitCode {
    eprintln!("dist: {error}\n{}\nTry 'dist --help' for more.", cli::USAGE);
    ExitCode::from(2)
}

#[expect(clippy::print_stdout, reason = "the binary's own --help and --version")]
fn print_out(text: &str) -> u8 {
    println!("{text}");
    0
}
