//! Command-line and `# dist:` flag parsing, by hand (no CLI crate: `dist run`
//! of a one-line script must start in a few milliseconds).

use std::fmt;

use crate::Options;

/// Short usage, shown after a usage error.
pub const USAGE: &str = "\
usage: dist [FLAGS]                      start the REPL
       dist [FLAGS] run FILE [ARGS...]   run a script (FILE '-' reads stdin)
       dist [FLAGS] -c CODE [ARGS...]    run CODE as a script
       dist [FLAGS] devices              list the devices scripts can use
       dist [FLAGS] doctest [--tf-checker] FILE...   run the doctest examples of files
       dist --version | --help";

/// `dist --help`.
pub const HELP: &str = "\
dist: TensorFlow's tf.distribute in a Python subset, without TensorFlow.
Scripts are plain Python; they print what TensorFlow 2.21 prints.

usage: dist [FLAGS]                      start the REPL (reads piped stdin without prompts)
       dist [FLAGS] run FILE [ARGS...]   run a script (FILE '-' reads stdin)
       dist [FLAGS] -c CODE [ARGS...]    run CODE as a script
       dist [FLAGS] devices              list the devices: real GPUs, virtual GPUs, the CPU
       dist [FLAGS] doctest [--tf-checker] FILE...
                                         run the `>>>` examples of .txt/.md files and of
                                         the docstrings of .dist files, as Python's doctest
       dist --version | --help

flags (before or after the command):
  --echo               print the repr of every top-level expression that is not None
  --virtual-gpus N     add N simulated GPUs (GPU:0 ... GPU:N-1) backed by host memory
  --gpu-backend=MODE   where GPUs live: auto (real CUDA GPUs are GPU:0..R-1, the virtual
                       ones follow), host (virtual GPUs only, in host memory), cuda (the
                       virtual GPUs live on the real cards, GPU:k on card k % R);
                       default: $DIST_GPU_BACKEND, else auto
  --always-wrap        wrap a single replica's strategy.run result as PerReplica:{ 0: ... }
  --trace[=FILE.json]  record a per-replica timeline: a summary on stderr, or Chrome
                       trace JSON written to FILE.json (with which tf.function calls
                       traced, replayed their graph, or ran their Python body, and why)
  --graph NAME         print the graph each trace of the tf.function NAME records
                       (nodes, inputs, dtypes, static shapes, devices); '*': every one
  --tf-checker         (doctest) TensorFlow's doc-test rules: floats compared with
                       rtol and atol 1e-3, `at 0x...` addresses wildcarded, ELLIPSIS,
                       NORMALIZE_WHITESPACE, IGNORE_EXCEPTION_DETAIL on; tf, np, os imported
  -h, --help           show this help
  -V, --version        show the version

A script whose first line is `# dist: FLAGS` gets those flags by default;
flags on the command line win. Arguments after FILE that are not dist flags
are the script's; put them after `--` to pass dist flags through too.

examples:
  dist run scripts/docs/mirrored_run.dist
  dist --virtual-gpus 4 run train.dist
  dist run gather.dist --echo
  dist -c 'import tensorflow as tf; print(tf.constant([1, 2]))'
  echo 'print(1 + 1)' | dist run -
  dist --virtual-gpus=2          REPL with two virtual GPUs (:help inside)
  dist doctest scripts/docs/*.md

exit status: 0 success, 1 uncaught exception (doctest: an example failed),
2 usage error, 130 interrupted";

/// A usage error: bad flags or arguments (exit status 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

#[cold]
fn usage(message: impl Into<String>) -> UsageError {
    UsageError(message.into())
}

/// The flags that become [`Options`]. `None`/`false` means "not given", so
/// command-line flags can be laid over a script's `# dist:` flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// `--echo`.
    pub echo: bool,
    /// `--virtual-gpus N`.
    pub virtual_gpus: Option<u32>,
    /// `--gpu-backend=MODE`.
    pub gpu_backend: Option<crate::runtime::GpuBackend>,
    /// `--always-wrap`.
    pub always_wrap: bool,
    /// `--trace` (`Some(None)`) or `--trace=FILE.json` (`Some(Some(file))`).
    pub trace: Option<Option<String>>,
    /// `--graph NAME`.
    pub graph: Option<String>,
}

impl Flags {
    /// These flags laid over `base` (a script's `# dist:` flags): a flag
    /// given here wins, one not given here keeps `base`'s value.
    pub fn over(&self, base: &Flags) -> Flags {
        Flags {
            echo: self.echo || base.echo,
            virtual_gpus: self.virtual_gpus.or(base.virtual_gpus),
            gpu_backend: self.gpu_backend.or(base.gpu_backend),
            always_wrap: self.always_wrap || base.always_wrap,
            trace: self.trace.clone().or_else(|| base.trace.clone()),
            graph: self.graph.clone().or_else(|| base.graph.clone()),
        }
    }

    /// The interpreter options these flags ask for.
    pub fn options(&self) -> Options {
        Options {
            echo: self.echo,
            virtual_gpus: self.virtual_gpus.unwrap_or(0),
            gpu_backend: self.gpu_backend.unwrap_or_else(default_gpu_backend),
            always_wrap: self.always_wrap,
            trace: self.trace.clone(),
            graph: self.graph.clone(),
        }
    }

    /// Consumes `arg` if it is a dist flag, taking its value from `rest`
    /// when it has one. `Ok(false)`: not a dist flag.
    fn take(
        &mut self,
        arg: &str,
        rest: &mut dyn Iterator<Item = String>,
    ) -> Result<bool, UsageError> {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (arg, None),
        };
        match name {
            "--echo" | "--always-wrap" => {
                if inline.is_some() {
                    return Err(usage(format!("{name} takes no value")));
                }
                if name == "--echo" {
                    self.echo = true;
                } else {
                    self.always_wrap = true;
                }
            }
            "--virtual-gpus" => {
                let value = match inline {
                    Some(v) => v.to_string(),
                    None => rest.next().ok_or_else(|| {
                        usage("--virtual-gpus needs a number, e.g. --virtual-gpus 2")
                    })?,
                };
                let n = value.parse::<u32>().map_err(|_| {
                    usage(format!(
                        "--virtual-gpus needs a whole number of GPUs, not '{value}'"
                    ))
                })?;
                self.virtual_gpus = Some(n);
            }
            "--gpu-backend" => {
                let value = match inline {
                    Some(v) => v.to_string(),
                    None => rest
                        .next()
                        .ok_or_else(|| usage("--gpu-backend needs auto, host or cuda"))?,
                };
                self.gpu_backend =
                    Some(crate::runtime::GpuBackend::parse(&value).ok_or_else(|| {
                        usage(format!(
                            "--gpu-backend is auto, host or cuda, not '{value}'"
                        ))
                    })?);
            }
            "--graph" => {
                let value = match inline {
                    Some(v) => v.to_string(),
                    None => rest.next().ok_or_else(|| {
                        usage("--graph needs the name of a tf.function (or '*' for every one)")
                    })?,
                };
                if value.is_empty() {
                    return Err(usage(
                        "--graph needs the name of a tf.function (or '*' for every one)",
                    ));
                }
                self.graph = Some(value);
            }
            "--trace" => match inline {
                None => self.trace = Some(None),
                Some("") => return Err(usage("--trace= needs a file name, e.g. --trace=run.json")),
                Some(file) => self.trace = Some(Some(file.to_string())),
            },
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// What `dist` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `dist`: the REPL (or, with stdin not a terminal, the piped REPL).
    Repl,
    /// `dist run FILE [ARGS…]` (`FILE` is `-` for stdin).
    Run {
        /// The path as given.
        file: String,
        /// The script's own arguments.
        args: Vec<String>,
    },
    /// `dist -c CODE [ARGS…]`.
    Code {
        /// The program text.
        code: String,
        /// The script's own arguments.
        args: Vec<String>,
    },
    /// `dist devices`.
    Devices,
    /// `dist doctest [--tf-checker] FILE…`.
    Doctest {
        /// The files, in order.
        files: Vec<String>,
        /// `--tf-checker`: TensorFlow's doc-test comparison rules.
        tf_checker: bool,
    },
    /// `dist --version`.
    Version,
    /// `dist --help`.
    Help,
}

/// A parsed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// What to do.
    pub command: Command,
    /// The flags given on the command line.
    pub flags: Flags,
}

/// The GPU placement when no flag says: `$DIST_GPU_BACKEND` (auto, host or
/// cuda; anything else is ignored), else auto.
pub fn default_gpu_backend() -> crate::runtime::GpuBackend {
    std::env::var("DIST_GPU_BACKEND")
        .ok()
        .and_then(|v| crate::runtime::GpuBackend::parse(&v))
        .unwrap_or_default()
}

/// Parses the command line (without the program name).
pub fn parse_args<I>(args: I) -> Result<Invocation, UsageError>
where
    I: IntoIterator<Item = String>,
{
    let mut args = args.into_iter();
    let mut flags = Flags::default();
    let mut command: Option<Command> = None;
    // `run` seen, FILE not yet.
    let mut awaiting_file = false;
    let mut passthrough = false;
    while let Some(arg) = args.next() {
        if let Some(Command::Doctest { files, tf_checker }) = &mut command {
            if flags.take(&arg, &mut args)? {
                continue;
            }
            if arg == "--tf-checker" {
                *tf_checker = true;
            } else if arg.starts_with('-') {
                return Err(usage(format!("unknown flag '{arg}'")));
            } else {
                files.push(arg);
            }
            continue;
        }
        let script_args = match &mut command {
            Some(Command::Run { args, .. } | Command::Code { args, .. }) => Some(args),
            _ => None,
        };
        if passthrough {
            match script_args {
                Some(script_args) => script_args.push(arg),
                None => return Err(usage(format!("unexpected argument '{arg}'"))),
            }
            continue;
        }
        if arg == "--" {
            if awaiting_file || script_args.is_none() {
                return Err(usage("'--' comes after `run FILE` or `-c CODE`"));
            }
            passthrough = true;
            continue;
        }
        if flags.take(&arg, &mut args)? {
            continue;
        }
        if let Some(script_args) = script_args {
            // After FILE or CODE, anything that is not a dist flag is the script's.
            script_args.push(arg);
            continue;
        }
        if awaiting_file {
            if arg.starts_with('-') && arg != "-" {
                return Err(usage(format!("unknown flag '{arg}'")));
            }
            command = Some(Command::Run {
                file: arg,
                args: Vec::new(),
            });
            awaiting_file = false;
            continue;
        }
        match arg.as_str() {
            "-h" | "--help" | "help" => command = Some(Command::Help),
            "-V" | "--version" => command = Some(Command::Version),
            "-c" => {
                let code = args
                    .next()
                    .ok_or_else(|| usage("-c needs the code to run, e.g. dist -c 'print(1)'"))?;
                command = Some(Command::Code {
                    code,
                    args: Vec::new(),
                });
            }
            "run" if command.is_none() => awaiting_file = true,
            "devices" if command.is_none() => command = Some(Command::Devices),
            "doctest" if command.is_none() => {
                command = Some(Command::Doctest {
                    files: Vec::new(),
                    tf_checker: false,
                });
            }
            _ if arg.starts_with('-') && arg != "-" => {
                return Err(usage(format!("unknown flag '{arg}'")));
            }
            _ if command.is_some() => return Err(usage(format!("unexpected argument '{arg}'"))),
            _ if arg.ends_with(".dist") || arg == "-" => {
                return Err(usage(format!(
                    "unknown command '{arg}' (did you mean `dist run {arg}`?)"
                )));
            }
            _ => return Err(usage(format!("unknown command '{arg}'"))),
        }
    }
    if awaiting_file {
        return Err(usage("run needs a FILE to run (or '-' for stdin)"));
    }
    if matches!(&command, Some(Command::Doctest { files, .. }) if files.is_empty()) {
        return Err(usage(
            "doctest needs at least one FILE (.txt, .md or .dist)",
        ));
    }
    Ok(Invocation {
        command: command.unwrap_or(Command::Repl),
        flags,
    })
}

/// The flags of a script's `# dist: FLAGS` line: its first line, or its
/// second after a `#!` line. No such line: no flags.
pub fn header_flags(text: &str) -> Result<Flags, UsageError> {
    let mut lines = text.lines();
    let mut first = lines.next().unwrap_or("");
    if first.starts_with("#!") {
        first = lines.next().unwrap_or("");
    }
    let Some(rest) = first
        .trim_start_matches('\u{feff}')
        .strip_prefix('#')
        .map(str::trim_start)
        .and_then(|c| c.strip_prefix("dist:"))
    else {
        return Ok(Flags::default());
    };
    let mut flags = Flags::default();
    let mut words = rest.split_whitespace().map(str::to_string);
    while let Some(word) = words.next() {
        if !flags.take(&word, &mut words)? {
            return Err(usage(format!(
                "unknown flag '{word}' in the `# dist:` line (it accepts --echo, --virtual-gpus N, --gpu-backend MODE, --always-wrap, --trace[=FILE], --graph NAME)"
            )));
        }
    }
    Ok(flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Invocation, UsageError> {
        parse_args(line.split_whitespace().map(str::to_string))
    }

    fn run(file: &str, args: &[&str]) -> Command {
        Command::Run {
            file: file.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn commands() {
        assert_eq!(parse("").unwrap().command, Command::Repl);
        assert_eq!(parse("--help").unwrap().command, Command::Help);
        assert_eq!(parse("-V").unwrap().command, Command::Version);
        assert_eq!(parse("run a.dist").unwrap().command, run("a.dist", &[]));
        assert_eq!(parse("run -").unwrap().command, run("-", &[]));
        assert_eq!(
            parse("run a.dist x -y").unwrap().command,
            run("a.dist", &["x", "-y"])
        );
        assert_eq!(
            parse("-c print(1) z").unwrap().command,
            Command::Code {
                code: "print(1)".into(),
                args: vec!["z".into()]
            }
        );
    }

    #[test]
    fn gpu_backend_flag() {
        use crate::runtime::GpuBackend;
        let f = parse("--gpu-backend=cuda --virtual-gpus 2 run a.dist")
            .unwrap()
            .flags;
        assert_eq!(f.gpu_backend, Some(GpuBackend::Cuda));
        let f = parse("--gpu-backend host devices").unwrap();
        assert_eq!(f.command, Command::Devices);
        assert_eq!(f.flags.gpu_backend, Some(GpuBackend::Host));
        assert!(parse("--gpu-backend=tpu run a.dist").is_err());
        assert!(parse("--gpu-backend").is_err());
        let script = header_flags("# dist: --gpu-backend host\n").unwrap();
        assert_eq!(script.gpu_backend, Some(GpuBackend::Host));
        let cli = parse("--gpu-backend=cuda run x.dist").unwrap().flags;
        assert_eq!(cli.over(&script).options().gpu_backend, GpuBackend::Cuda);
    }

    #[test]
    fn flags_anywhere() {
        let want = Flags {
            echo: true,
            virtual_gpus: Some(4),
            always_wrap: true,
            trace: Some(Some("t.json".into())),
            ..Flags::default()
        };
        for line in [
            "--echo --virtual-gpus 4 --always-wrap --trace=t.json run a.dist",
            "run --echo --virtual-gpus=4 a.dist --always-wrap --trace=t.json",
            "--virtual-gpus 4 run a.dist --echo --always-wrap --trace=t.json",
        ] {
            let inv = parse(line).unwrap();
            assert_eq!(inv.flags, want, "{line}");
            assert_eq!(inv.command, run("a.dist", &[]), "{line}");
        }
        let inv = parse("run a.dist --trace -- --echo").unwrap();
        assert_eq!(inv.flags.trace, Some(None));
        assert!(!inv.flags.echo);
        assert_eq!(inv.command, run("a.dist", &["--echo"]));
        assert_eq!(parse("--virtual-gpus=2").unwrap().command, Command::Repl);
    }

    #[test]
    fn usage_errors() {
        for line in [
            "run",
            "--virtual-gpus",
            "--virtual-gpus two",
            "--virtual-gpus=-1",
            "--frobnicate",
            "run --frobnicate a.dist",
            "a.dist",
            "walk",
            "-c",
            "--echo=yes",
            "--trace=",
            "-- x",
            "run a.dist --virtual-gpus",
        ] {
            assert!(parse(line).is_err(), "{line}");
        }
        assert!(parse("a.dist").unwrap_err().0.contains("dist run a.dist"));
    }

    #[test]
    fn doctest_command() {
        let inv = parse("--virtual-gpus 2 doctest a.md --tf-checker b.dist --always-wrap").unwrap();
        assert_eq!(
            inv.command,
            Command::Doctest {
                files: vec!["a.md".into(), "b.dist".into()],
                tf_checker: true
            }
        );
        assert_eq!(inv.flags.virtual_gpus, Some(2));
        assert!(inv.flags.always_wrap);
        assert!(parse("doctest").is_err());
        assert!(parse("doctest a.md --bogus").is_err());
        assert!(parse("--tf-checker doctest a.md").is_err());
    }

    #[test]
    fn dist_line() {
        assert_eq!(header_flags("print(1)\n").unwrap(), Flags::default());
        assert_eq!(header_flags("").unwrap(), Flags::default());
        let f = header_flags("# dist: --virtual-gpus 4 --echo\nimport tensorflow as tf\n").unwrap();
        assert_eq!(f.virtual_gpus, Some(4));
        assert!(f.echo);
        let f = header_flags("#!/usr/bin/env dist\n#dist:--always-wrap\n").unwrap();
        assert!(f.always_wrap);
        // Only the first line counts.
        assert_eq!(
            header_flags("x = 1\n# dist: --echo\n").unwrap(),
            Flags::default()
        );
        assert!(header_flags("# dist: --echo run\n").is_err());
        assert!(header_flags("# dist: --virtual-gpus\n").is_err());
    }

    #[test]
    fn command_line_wins() {
        let script = header_flags("# dist: --virtual-gpus 4 --trace=a.json\n").unwrap();
        let cli = parse("--virtual-gpus 2 --echo run x.dist").unwrap().flags;
        let merged = cli.over(&script);
        assert_eq!(merged.virtual_gpus, Some(2));
        assert_eq!(merged.trace, Some(Some("a.json".into())));
        let options = merged.options();
        assert_eq!(options.virtual_gpus, 2);
        assert!(options.echo && !options.always_wrap);
    }
}
