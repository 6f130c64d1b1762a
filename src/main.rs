//! Temporary minimal CLI (the full one lands from branch `cli`).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let code = dist::with_big_stack(move || {
        let path = args.get(2).cloned().unwrap_or_default();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let interp = dist::Interpreter::new(dist::Options::default());
        match interp.run_source(dist::SourceFile::new(path, text)) {
            Ok(()) => 0,
            Err(d) => {
                eprint!("{}", dist::diag::render(&d, false));
                1
            }
        }
    });
    std::process::exit(code);
}
