//! The REPL: a thin loop over [`Interpreter::run_interactive`] with one
//! persistent module. [`Session`] turns lines into inputs (by the rules in
//! `validator.rs`), runs them and the `:` commands, and reports errors with
//! the same renderer as `dist run` (the entered snippet as the source). The
//! line editor (rustyline, with `helper.rs`) feeds it when stdin is a
//! terminal; otherwise [`run_piped`] feeds it every piped line, without
//! prompts. An error never ends the session.

pub mod commands;
pub mod helper;
pub mod show;
pub mod tokens;
pub mod validator;

use std::cell::RefCell;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::Ordering;

use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{Config, Editor};

use self::commands::MetaCommand;
use self::helper::ReplHelper;
use self::validator::Chunker;
use crate::diag::render;
use crate::{Interpreter, Options, Output, SourceFile};

/// The name REPL input is shown under in tracebacks (as in CPython).
pub const SOURCE_NAME: &str = "<stdin>";

/// Whether the session goes on after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `:quit`.
    Quit,
}

/// One REPL session: an interpreter (rebuilt by `:devices`), pending input,
/// and where output and errors go.
pub struct Session {
    options: Options,
    interpreter: Rc<RefCell<Interpreter>>,
    chunker: Chunker,
    out: Output,
    err: Box<dyn Write>,
    color: bool,
    watch_interrupts: bool,
}

impl Session {
    /// A session printing to `out` (`None`: the process's stdout) and
    /// reporting errors to `err`, coloured if `color`.
    pub fn new(options: Options, out: Option<Output>, err: Box<dyn Write>, color: bool) -> Session {
        let out = out.unwrap_or_else(|| Rc::new(RefCell::new(std::io::stdout())));
        let interpreter = Interpreter::new(options.clone());
        interpreter.set_output(out.clone());
        Session {
            options,
            interpreter: Rc::new(RefCell::new(interpreter)),
            chunker: Chunker::new(),
            out,
            err,
            color,
            watch_interrupts: false,
        }
    }

    /// The interpreter, shared with the line editor's completer.
    pub fn interpreter(&self) -> Rc<RefCell<Interpreter>> {
        self.interpreter.clone()
    }

    /// Makes Ctrl-C interrupt running code (installs the SIGINT handler).
    pub fn watch_interrupts(&mut self) {
        self.watch_interrupts = true;
        crate::cli::interrupt::watch(self.interpreter.borrow().interrupt_handle());
    }

    /// Whether input is pending (the prompt is `... `).
    pub fn pending(&self) -> bool {
        !self.chunker.is_empty()
    }

    /// The prompt: `>>> ` (or `... ` while input is pending), after a
    /// marker when a strategy's scope is open or being entered
    /// (`[MirroredStrategy 2 replicas] >>> `).
    pub fn prompt(&self) -> String {
        let base = if self.pending() { "... " } else { ">>> " };
        let interpreter = self.interpreter.borrow();
        match show::scope_label(&interpreter, self.chunker.text()) {
            Some(label) => format!("{label} {base}"),
            None => base.to_string(),
        }
    }

    /// Drops pending input (Ctrl-C at the prompt).
    pub fn clear(&mut self) {
        self.chunker.clear();
    }

    /// Takes one line (without its newline): runs an input once complete, or
    /// a `:` command.
    pub fn feed_line(&mut self, line: &str) -> Flow {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if self.chunker.closed_by(line) {
            if let Some(code) = self.chunker.take() {
                self.execute(&code);
            }
        }
        if self.chunker.is_empty() && line.trim_start().starts_with(':') {
            return match commands::parse(line) {
                Ok(command) => self.command(command),
                Err(message) => {
                    self.error_line(&message);
                    Flow::Continue
                }
            };
        }
        if let Some(code) = self.chunker.push(line) {
            self.execute(&code);
        }
        Flow::Continue
    }

    /// End of input: runs whatever is pending.
    pub fn finish(&mut self) {
        if let Some(code) = self.chunker.take() {
            self.execute(&code);
        }
    }

    /// Runs one complete input; an error is reported, never returned.
    /// Whether it ran without error.
    fn execute(&mut self, code: &str) -> bool {
        let source = SourceFile::new(SOURCE_NAME, code.to_string());
        let result = {
            let interpreter = self.interpreter.borrow();
            interpreter
                .interrupt_handle()
                .store(false, Ordering::SeqCst);
            interpreter.run_interactive(source)
        };
        if let Err(diagnostic) = result {
            let _ = self.out.borrow_mut().flush();
            let _ = self
                .err
                .write_all(render(&diagnostic, self.color).as_bytes());
            let _ = self.err.flush();
            return false;
        }
        true
    }

    fn command(&mut self, command: MetaCommand) -> Flow {
        match command {
            MetaCommand::Help => self.say(commands::HELP),
            MetaCommand::Quit => return Flow::Quit,
            MetaCommand::Vars => {
                let mut names = self.interpreter.borrow().global_names();
                // `__name__` and the like are always there; show the user's names.
                names.retain(|n| !(n.starts_with("__") && n.ends_with("__")));
                names.sort();
                if names.is_empty() {
                    self.say("(no names defined)");
                } else {
                    self.say(&names.join("  "));
                }
            }
            MetaCommand::Reset => {
                self.interpreter.borrow().reset();
                self.say("reset: every name is forgotten and the runtime starts afresh");
            }
            MetaCommand::Devices(n) => {
                self.options.virtual_gpus = n;
                let interpreter = Interpreter::new(self.options.clone());
                interpreter.set_output(self.out.clone());
                *self.interpreter.borrow_mut() = interpreter;
                if self.watch_interrupts {
                    self.watch_interrupts();
                }
                let gpus = if n == 1 { "GPU" } else { "GPUs" };
                self.say(&format!(
                    "runtime reset with {n} virtual {gpus}: every name is forgotten"
                ));
            }
            MetaCommand::Show(expr) => self.show(&expr),
        }
        Flow::Continue
    }

    /// `:show EXPR`: evaluates EXPR (through a hidden global, so errors read
    /// as for any input) and prints its table.
    fn show(&mut self, expr: &str) {
        const SLOT: &str = "__show__";
        if !self.execute(&format!("{SLOT} = ({expr})\n")) {
            return;
        }
        let interpreter = self.interpreter.clone();
        let value = interpreter.borrow().global(SLOT);
        let text = value.map(|v| interpreter.borrow().with_vm(|vm| show::show(vm, &v)));
        self.execute(&format!("del {SLOT}\n"));
        match text {
            Some(Ok(text)) => {
                let mut out = self.out.borrow_mut();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            Some(Err(e)) => {
                let text = interpreter.borrow().with_vm(|vm| {
                    vm.str(e.value())
                        .map(|m| format!("{}: {m}", e.value().type_name()))
                        .unwrap_or_default()
                });
                self.error_line(&text);
            }
            None => {}
        }
    }

    fn say(&self, text: &str) {
        let mut out = self.out.borrow_mut();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }

    fn error_line(&mut self, message: &str) {
        let _ = self.out.borrow_mut().flush();
        let _ = writeln!(self.err, "{message}");
    }
}

/// Feeds every line of `input` to the session as the REPL would, without
/// prompts, then runs what is pending. Stops early at `:quit`.
pub fn run_piped(session: &mut Session, input: impl BufRead) -> std::io::Result<()> {
    for line in input.lines() {
        if session.feed_line(&line?) == Flow::Quit {
            return Ok(());
        }
    }
    session.finish();
    Ok(())
}

/// `dist` without a command: the interactive REPL when stdin is a terminal,
/// otherwise the piped REPL. Returns the exit status.
pub fn main(options: Options) -> i32 {
    let err_color = crate::cli::stderr_color();
    let mut session = Session::new(options, None, Box::new(std::io::stderr()), err_color);
    session.watch_interrupts();
    if !std::io::stdin().is_terminal() {
        return match run_piped(&mut session, std::io::stdin().lock()) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("dist: reading stdin: {e}");
                1
            }
        };
    }
    interactive(session)
}

fn interactive(mut session: Session) -> i32 {
    let color = std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal();
    let config = Config::builder()
        .auto_add_history(false)
        .max_history_size(10_000)
        .and_then(|b| b.history_ignore_dups(true))
        .map(|b| b.build());
    let editor = config.and_then(Editor::<ReplHelper, DefaultHistory>::with_config);
    let mut editor = match editor {
        Ok(editor) => editor,
        Err(e) => {
            eprintln!("dist: cannot start the line editor: {e}");
            return 1;
        }
    };
    editor.set_helper(Some(ReplHelper {
        interpreter: session.interpreter(),
        color,
    }));
    let history = history_path();
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    session.say(&format!(
        "dist {} (tf.distribute as in TensorFlow 2.21). :help for help, Ctrl-D to leave.",
        env!("CARGO_PKG_VERSION")
    ));
    let mut status = 0;
    'read: loop {
        let prompt = session.prompt();
        match editor.readline(&prompt) {
            Ok(text) => {
                if !text.trim().is_empty() {
                    let _ = editor.add_history_entry(text.as_str());
                }
                // A paste may bring several lines at once.
                for line in text.split('\n') {
                    if session.feed_line(line) == Flow::Quit {
                        break 'read;
                    }
                }
            }
            Err(ReadlineError::Interrupted) => session.clear(),
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("dist: reading input: {e}");
                status = 1;
                break;
            }
        }
    }
    if let Some(path) = &history {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = editor.save_history(path);
    }
    status
}

/// `$XDG_DATA_HOME/dist/history`, else `~/.local/share/dist/history`.
pub fn history_path() -> Option<PathBuf> {
    let nonempty = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty());
    let data = match nonempty("XDG_DATA_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(nonempty("HOME")?).join(".local/share"),
    };
    Some(data.join("dist").join("history"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer tests can read back.
    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8(self.0.borrow().clone()).unwrap()
        }
    }

    fn session() -> (Session, Shared, Shared) {
        let out = Shared::default();
        let err = Shared::default();
        let output: Output = Rc::new(RefCell::new(out.clone()));
        let session = Session::new(
            Options::default(),
            Some(output),
            Box::new(err.clone()),
            false,
        );
        (session, out, err)
    }

    #[test]
    fn meta_commands() {
        let (mut s, out, err) = session();
        let input = ":help\n:vars\n:devices 2\n:frob\n:quit\n:help\n";
        run_piped(&mut s, input.as_bytes()).unwrap();
        let text = out.text();
        assert!(text.starts_with(commands::HELP), "{text}");
        assert!(text.contains("(no names defined)"));
        assert!(text.contains("runtime reset with 2 virtual GPUs"));
        // Nothing after :quit runs.
        assert_eq!(text.matches(":devices N").count(), 1);
        assert!(err.text().contains("unknown command ':frob'"));
        assert_eq!(s.interpreter().borrow().options().virtual_gpus, 2);
    }

    #[test]
    fn pending_input_and_clear() {
        let (mut s, _, _) = session();
        assert_eq!(s.feed_line("def f():"), Flow::Continue);
        assert!(s.pending());
        // A `:` line inside a block is code, not a command.
        s.feed_line("    :quit");
        assert!(s.pending());
        s.clear();
        assert!(!s.pending());
    }

    #[test]
    fn prompt_marks_an_open_strategy_scope() {
        let (mut s, _, err) = session();
        assert_eq!(s.prompt(), ">>> ");
        s.feed_line("import tensorflow as tf");
        s.feed_line("st = tf.distribute.MirroredStrategy()");
        s.feed_line("with st.scope():");
        assert_eq!(s.prompt(), "[MirroredStrategy 1 replica] ... ");
        s.feed_line("    v = tf.Variable(1.0)");
        s.feed_line("");
        assert_eq!(s.prompt(), ">>> ");
        // A scope that stays open between inputs.
        s.feed_line("tf.distribute.experimental_set_strategy(st)");
        assert_eq!(s.prompt(), "[MirroredStrategy 1 replica] >>> ");
        s.feed_line("tf.distribute.experimental_set_strategy(None)");
        assert_eq!(s.prompt(), ">>> ");
        // Not a strategy: no marker.
        s.feed_line("with open_thing.scope():");
        assert_eq!(s.prompt(), "... ");
        assert_eq!(err.text(), "");
    }

    #[test]
    fn history_location() {
        // Only checks the shape; the environment is the test runner's.
        if let Some(path) = history_path() {
            assert!(path.ends_with("dist/history"));
        }
    }
}
