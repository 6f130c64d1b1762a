//! PLACEHOLDER until branch `builtins` lands: just `print`.
use crate::value::{Args, NativeFunction, PyResult, Value, Vm};

fn print(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let mut parts = Vec::new();
    for v in args.varargs(0) {
        parts.push(vm.str(v)?);
    }
    let sep = vm.str(args.get(1))?;
    let end = vm.str(args.get(2))?;
    vm.write_stdout(&format!("{}{}", parts.join(&sep), end));
    Ok(Value::None)
}

/// The builtins namespace.
pub fn builtins() -> Vec<(&'static str, Value)> {
    vec![(
        "print",
        Value::NativeFunction(NativeFunction::new("print(*args, sep=' ', end='\\n', file=None, flush=False)", print, "")),
    )]
}
