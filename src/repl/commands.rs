//! REPL meta-commands: lines starting with `:` (never valid Python, so
//! nothing a user could mean as code).

/// `:help`.
pub const HELP: &str = "\
Type Python; a block (a line ending in ':') ends at a blank line.
The value of an expression is printed unless it is None.
help(obj) shows the documentation of a function, class or method, with an example.
The prompt shows [Strategy N replicas] while a strategy's scope is open.

  :help         this help
  :vars         the names defined so far
  :show EXPR    a distributed value (or tensor) as a table: replica, device, dtype, shape, value
  :reset        forget every name and reset the runtime
  :devices N    restart with N virtual GPUs (forgets every name: the runtime is rebuilt)
  :quit         leave (or Ctrl-D)

Ctrl-C clears the line or interrupts running code; pressed twice within a second
while code runs, it ends dist.";

/// A parsed meta-command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MetaCommand {
    /// `:help`.
    Help,
    /// `:reset`.
    Reset,
    /// `:vars`.
    Vars,
    /// `:quit` (also `:q`, `:exit`).
    Quit,
    /// `:devices N`.
    Devices(u32),
    /// `:show EXPR`.
    Show(String),
}

/// Parses a line starting with `:`. `Err` is the message to show.
pub fn parse(line: &str) -> Result<MetaCommand, String> {
    let line = line.trim();
    let body = line.strip_prefix(':').unwrap_or(line);
    let (name, arg) = match body.split_once(char::is_whitespace) {
        Some((name, arg)) => (name, arg.trim()),
        None => (body, ""),
    };
    let no_arg = |cmd: MetaCommand| {
        if arg.is_empty() {
            Ok(cmd)
        } else {
            Err(format!(":{name} takes no argument"))
        }
    };
    match name {
        "help" | "h" | "?" => no_arg(MetaCommand::Help),
        "reset" => no_arg(MetaCommand::Reset),
        "vars" => no_arg(MetaCommand::Vars),
        "quit" | "q" | "exit" => no_arg(MetaCommand::Quit),
        "devices" => arg
            .parse::<u32>()
            .map(MetaCommand::Devices)
            .map_err(|_| "usage: :devices N (the number of virtual GPUs, e.g. :devices 2)".into()),
        "show" if arg.is_empty() => Err("usage: :show EXPR".into()),
        "show" => Ok(MetaCommand::Show(arg.to_string())),
        _ => Err(format!("unknown command ':{name}' (:help lists them)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!(parse(":help"), Ok(MetaCommand::Help));
        assert_eq!(parse("  :q  "), Ok(MetaCommand::Quit));
        assert_eq!(parse(":devices 4"), Ok(MetaCommand::Devices(4)));
        assert_eq!(parse(":show x + 1"), Ok(MetaCommand::Show("x + 1".into())));
        assert!(parse(":devices").is_err());
        assert!(parse(":devices -1").is_err());
        assert!(parse(":vars x").is_err());
        assert!(parse(":frob").unwrap_err().contains(":help"));
    }
}
