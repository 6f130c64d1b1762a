//! What the REPL shows about where the user is and what a value holds: the
//! prompt's strategy marker (`[MirroredStrategy 2 replicas] >>> `) and
//! `:show EXPR`'s table of a distributed value's components (replica,
//! device, dtype, shape, value).

use crate::distribute::context::state;
use crate::distribute::strategy::StrategyObj;
use crate::value::{PyResult, Value, Vm};
use crate::Interpreter;

/// The prompt marker: the strategy whose scope is open at top level, or the
/// one a pending `with NAME.scope():` block is about to enter. None in the
/// default context.
pub fn scope_label(interpreter: &Interpreter, pending: &str) -> Option<String> {
    let pending_strategy = || {
        let first = pending.lines().next()?.trim_start();
        let name = first.strip_prefix("with ")?.trim_start();
        let name = &name[..name.find(".scope()")?];
        if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_alphanumeric()) {
            return None;
        }
        interpreter.global(name)
    };
    interpreter.with_vm(|vm| {
        let open = state(vm).scopes.borrow().last().cloned();
        let strategy = open.or_else(pending_strategy)?;
        let s = strategy.downcast::<StrategyObj>()?;
        let n = s.devices.len();
        let class = match vm.type_of(&strategy) {
            Value::Class(c) => c.name.to_string(),
            _ => strategy.type_name(),
        };
        Some(format!(
            "[{class} {n} replica{}]",
            if n == 1 { "" } else { "s" }
        ))
    })
}

/// `:show`'s text for a value: a table of its components for distributed
/// values and tensors, else its repr.
pub fn show(vm: &dyn Vm, v: &Value) -> PyResult<String> {
    let components = if matches!(v, Value::Tensor(_)) {
        None
    } else {
        match vm.getattr(v, "values") {
            Ok(c @ Value::Tuple(_)) => Some(vm.collect(&c)?),
            _ => None,
        }
    };
    let is_tensor_like =
        |x: &Value| vm.getattr(x, "dtype").is_ok() && vm.getattr(x, "shape").is_ok();
    let (title, rows) = match components {
        Some(parts) if parts.iter().all(is_tensor_like) => {
            let title = format!(
                "{} with {} component{}",
                class_name(vm, v),
                parts.len(),
                if parts.len() == 1 { "" } else { "s" }
            );
            let mut rows = Vec::new();
            for (i, p) in parts.iter().enumerate() {
                rows.push(row(vm, &i.to_string(), p)?);
            }
            (title, rows)
        }
        _ if is_tensor_like(v) => (
            format!("{} (not distributed: one value)", class_name(vm, v)),
            vec![row(vm, "-", v)?],
        ),
        _ => return Ok(format!("{}\n", vm.repr(v)?)),
    };
    let header = ["replica", "device", "dtype", "shape", "value"].map(String::from);
    let mut widths = header.clone().map(|h| h.len());
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = format!("{title}\n");
    for r in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, w)) in r.iter().zip(widths).enumerate() {
            if i + 1 == r.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    Ok(out)
}

fn class_name(vm: &dyn Vm, v: &Value) -> String {
    match vm.type_of(v) {
        Value::Class(c) => c.name.to_string(),
        _ => v.type_name(),
    }
}

/// One row: replica, device (short), dtype name, shape, value on one line.
fn row(vm: &dyn Vm, replica: &str, x: &Value) -> PyResult<[String; 5]> {
    let device = match vm.getattr(x, "device") {
        Ok(Value::Str(s)) => s.rsplit("device:").next().unwrap_or(&s).to_string(),
        _ => "?".into(),
    };
    let dtype = vm.getattr(x, "dtype")?;
    let dtype = match vm.getattr(&dtype, "name") {
        Ok(n) => vm.str(&n)?,
        Err(_) => vm.str(&dtype)?,
    };
    let shape = vm.str(&vm.getattr(x, "shape")?)?;
    let value = match vm.getattr(x, "numpy") {
        Ok(f) => vm.str(&vm.call(&f, Vec::new(), Vec::new())?)?,
        Err(_) => vm.str(x)?,
    };
    let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
    Ok([replica.to_string(), device, dtype, shape, value])
}
