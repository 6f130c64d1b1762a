//! `tf.print`, as TensorFlow's `print_v2` builds its output: each input's
//! nested structure becomes a template by `pprint.pformat`, with a
//! placeholder where a tensor (or variable) sits; the placeholders are then
//! filled with the tensors' summaries (`runtime::format::summarize`).
//! Everything else (a `PerReplica`, a Python number) prints as `pformat`
//! shows it. The text goes to `sys.stderr` unless `output_stream` says
//! otherwise.

use std::io::Write;

use super::convert::to_tensor;
use crate::modules::sys::Stream;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::types::namedtuple::NamedTuple;
use crate::runtime::format::summarize::summarize;
use crate::runtime::{DType, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// `pprint`'s default line width.
const WIDTH: usize = 80;

/// What one leaf of an input stands for in the template.
pub(super) fn is_tensor_like(v: &Value) -> bool {
    match v {
        Value::Tensor(_) => true,
        Value::Native(n) => n.is_variable(),
        _ => false,
    }
}

/// A structure with its tensors replaced by `placeholder` strings, and the
/// tensors in `nest.flatten` order.
fn template_of(
    vm: &dyn Vm,
    v: &Value,
    placeholder: &Value,
    tensors: &mut Vec<Tensor>,
) -> PyResult<Value> {
    if is_tensor_like(v) {
        tensors.push(to_tensor(vm, v, None)?);
        return Ok(placeholder.clone());
    }
    Ok(match v {
        Value::List(l) => {
            let items = l.borrow().clone();
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(template_of(vm, x, placeholder, tensors)?);
            }
            Value::list(out)
        }
        Value::Tuple(t) => {
            let mut out = Vec::with_capacity(t.len());
            for x in t.iter() {
                out.push(template_of(vm, x, placeholder, tensors)?);
            }
            Value::tuple(out)
        }
        Value::Dict(d) => {
            // nest.flatten's order (sorted keys) is pformat's order too
            let items = sorted_items(vm, &d.borrow().items())?;
            let mut out = crate::value::Dict::new();
            for (k, x) in items {
                out.insert(k, template_of(vm, &x, placeholder, tensors)?)?;
            }
            Value::dict(out)
        }
        other => match other.downcast::<NamedTuple>() {
            Some(nt) => {
                let mut out = Vec::with_capacity(nt.values().len());
                for x in nt.values() {
                    out.push(template_of(vm, x, placeholder, tensors)?);
                }
                nt.with_values(out)
            }
            None => other.clone(),
        },
    })
}

/// A dict's items sorted by key, as `pprint` and `tf.nest` order them.
fn sorted_items(vm: &dyn Vm, items: &[(Value, Value)]) -> PyResult<Vec<(Value, Value)>> {
    let mut out = items.to_vec();
    let mut err = None;
    out.sort_by(|(a, _), (b, _)| {
        if err.is_some() {
            return std::cmp::Ordering::Equal;
        }
        match vm.lt(a, b) {
            Ok(true) => std::cmp::Ordering::Less,
            Ok(false) => std::cmp::Ordering::Greater,
            Err(e) => {
                err = Some(e);
                std::cmp::Ordering::Equal
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// `pprint`'s `_safe_repr`: `repr`, with dicts in sorted key order.
fn safe_repr(vm: &dyn Vm, v: &Value) -> PyResult<String> {
    Ok(match v {
        Value::List(l) => {
            let items = l.borrow().clone();
            let parts: PyResult<Vec<String>> = items.iter().map(|x| safe_repr(vm, x)).collect();
            format!("[{}]", parts?.join(", "))
        }
        Value::Tuple(t) => {
            let parts: PyResult<Vec<String>> = t.iter().map(|x| safe_repr(vm, x)).collect();
            let parts = parts?;
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
        Value::Dict(d) => {
            let items = sorted_items(vm, &d.borrow().items())?;
            let mut parts = Vec::with_capacity(items.len());
            for (k, x) in &items {
                parts.push(format!("{}: {}", safe_repr(vm, k)?, safe_repr(vm, x)?));
            }
            format!("{{{}}}", parts.join(", "))
        }
        other => vm.repr(other)?,
    })
}

/// `PrettyPrinter._format`: `v` on one line when it fits in what is left
/// of the line, else lists, tuples and dicts one item per line.
fn pformat(
    vm: &dyn Vm,
    v: &Value,
    indent: usize,
    allowance: usize,
    out: &mut String,
) -> PyResult<()> {
    let rep = safe_repr(vm, v)?;
    let max_width = WIDTH.saturating_sub(indent + allowance);
    if rep.chars().count() <= max_width {
        out.push_str(&rep);
        return Ok(());
    }
    match v {
        Value::List(l) => {
            out.push('[');
            let items = l.borrow().clone();
            format_items(vm, &items, indent, allowance + 1, out)?;
            out.push(']');
        }
        Value::Tuple(t) => {
            out.push('(');
            let end = if t.len() == 1 { ",)" } else { ")" };
            format_items(vm, t, indent, allowance + end.len(), out)?;
            out.push_str(end);
        }
        Value::Dict(d) => {
            out.push('{');
            let items = sorted_items(vm, &d.borrow().items())?;
            let indent = indent + 1;
            let last = items.len().saturating_sub(1);
            for (i, (k, x)) in items.iter().enumerate() {
                let key = safe_repr(vm, k)?;
                out.push_str(&key);
                out.push_str(": ");
                let key_len = key.chars().count();
                let allow = if i == last { allowance + 1 } else { 1 };
                pformat(vm, x, indent + key_len + 2, allow, out)?;
                if i != last {
                    out.push_str(",\n");
                    out.push_str(&" ".repeat(indent));
                }
            }
            out.push('}');
        }
        _ => out.push_str(&rep),
    }
    Ok(())
}

/// `PrettyPrinter._format_items`.
fn format_items(
    vm: &dyn Vm,
    items: &[Value],
    indent: usize,
    allowance: usize,
    out: &mut String,
) -> PyResult<()> {
    let indent = indent + 1;
    let last = items.len().saturating_sub(1);
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
            out.push_str(&" ".repeat(indent));
        }
        pformat(vm, x, indent, if i == last { allowance } else { 1 }, out)?;
    }
    Ok(())
}

/// The digits `random.Random(5).randint(0, 9)` draws, which TensorFlow
/// appends to `{}` until the placeholder appears nowhere in the inputs.
const PLACEHOLDER_DIGITS: [u8; 8] = [9, 4, 5, 8, 0, 7, 3, 0];

/// Prints tensors as TensorFlow's print op does (`[0 1 2 ... 7 8 9]`), to
/// sys.stderr unless `output_stream` is sys.stdout.
#[native("print(*inputs, output_stream=None, summarize=3, sep=' ', end='\\n', name=None)")]
fn tf_print(
    vm: &dyn Vm,
    inputs: &[Value],
    output_stream: &Value,
    summarize: &Value,
    sep: &Value,
    end: &Value,
    _name: &Value,
) -> PyResult<()> {
    let summarize_n = match summarize {
        Value::None => 3,
        v => crate::object::types::int_arg(v, vm)?,
    };
    let sep = vm.str(sep)?;
    let end = vm.str(end)?;
    if crate::runtime::graph::tracing() {
        return trace_print(vm, inputs, output_stream, summarize_n, sep, end);
    }
    print_now(vm, inputs, output_stream, summarize_n, &sep, &end)
}

/// `tf.print` inside a traced `tf.function`: a `PrintV2` node that prints
/// at every execution of the graph (and now, for the traced call).
fn trace_print(
    vm: &dyn Vm,
    inputs: &[Value],
    output_stream: &Value,
    n: i64,
    sep: String,
    end: String,
) -> PyResult<()> {
    use crate::distribute::function::trace::{dry, map_arg_tensors, HostEffect};
    let mut tensors = Vec::new();
    for x in inputs {
        map_arg_tensors(x, &mut |t| {
            tensors.push(t.clone());
            t.clone()
        })?;
    }
    let template: Vec<Value> = inputs.to_vec();
    let stream = output_stream.clone();
    let (sep2, end2) = (sep.clone(), end.clone());
    let payload = HostEffect(Box::new(move |vm: &dyn Vm, ts: &[Tensor]| {
        let mut k = 0;
        let mut fill = |t: &Tensor| {
            let r = ts.get(k).cloned().unwrap_or_else(|| t.clone());
            k += 1;
            r
        };
        let ins = template
            .iter()
            .map(|x| map_arg_tensors(x, &mut fill))
            .collect::<PyResult<Vec<_>>>()?;
        print_now(vm, &ins, &stream, n, &sep2, &end2)
    }));
    let refs: Vec<&Tensor> = tensors.iter().collect();
    crate::runtime::graph::effect("PrintV2", std::rc::Rc::new(payload), &refs);
    if dry() {
        return Ok(());
    }
    // the traced call runs the graph once: print its values now (reading
    // them is the print op's, not Python's)
    crate::runtime::graph::paused(|| print_now(vm, inputs, output_stream, n, &sep, &end))
}

/// Formats and writes what `tf.print` prints.
fn print_now(
    vm: &dyn Vm,
    inputs: &[Value],
    output_stream: &Value,
    summarize_n: i64,
    sep: &str,
    end: &str,
) -> PyResult<()> {
    let text = match inputs {
        // a single string scalar prints as it is
        [Value::Tensor(t)] if t.rank() == 0 && t.dtype() == DType::String => match t.get(0) {
            Some(crate::runtime::Scalar::Bytes(b)) => String::from_utf8_lossy(&b).into_owned(),
            _ => String::new(),
        },
        _ => format_inputs(vm, inputs, sep, summarize_n)?,
    };
    write_out(vm, output_stream, &format!("{text}{end}"))
}

/// The template of every input joined by `sep`, placeholders filled.
fn format_inputs(vm: &dyn Vm, inputs: &[Value], sep: &str, n: i64) -> PyResult<String> {
    // the placeholder must not occur in the tensor-free template
    let empty = Value::str("");
    let mut free = Vec::with_capacity(inputs.len());
    for x in inputs {
        let t = template_of(vm, x, &empty, &mut Vec::new())?;
        let mut s = String::new();
        pformat(vm, &t, 0, 0, &mut s)?;
        free.push(s);
    }
    let free = free.join(" ");
    let mut placeholder = "{}".to_string();
    let mut digits = PLACEHOLDER_DIGITS.iter().cycle();
    while free.contains(&placeholder) {
        placeholder.push(char::from(b'0' + digits.next().copied().unwrap_or(0)));
    }
    let ph = Value::str(placeholder.as_str());
    let mut tensors = Vec::new();
    let mut templates = Vec::with_capacity(inputs.len());
    for x in inputs {
        let t = template_of(vm, x, &ph, &mut tensors)?;
        match x {
            Value::Str(s) => templates.push(s.to_string()),
            _ => {
                let mut s = String::new();
                pformat(vm, &t, 0, 0, &mut s)?;
                templates.push(s);
            }
        }
    }
    let template = templates
        .join(sep)
        .replace(&format!("'{placeholder}'"), &placeholder);
    let mut out = String::new();
    let mut pieces = template.split(placeholder.as_str());
    out.push_str(pieces.next().unwrap_or(""));
    let mut tensors = tensors.iter();
    for piece in pieces {
        if let Some(t) = tensors.next() {
            out.push_str(&summarize(&host(t)?, n));
        }
        out.push_str(piece);
    }
    Ok(out)
}

/// A host copy of `t` (a GPU tensor is read back to print it).
pub(super) fn host(t: &Tensor) -> PyResult<Tensor> {
    if t.host().is_ok() {
        return Ok(t.clone());
    }
    t.to_device(crate::runtime::Device::CPU0)
        .map_err(super::convert::runtime_err)
}

/// Writes `text` to `sys.stdout`/`sys.stderr` (the default) or a
/// `file://` path.
fn write_out(vm: &dyn Vm, stream: &Value, text: &str) -> PyResult<()> {
    if let Value::None = stream {
        Stream { err: true }.write(vm, text);
        return Ok(());
    }
    if let Some(s) = stream.downcast::<Stream>() {
        s.write(vm, text);
        return Ok(());
    }
    if let Value::Str(s) = stream {
        if let Some(path) = s.strip_prefix("file://") {
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| PyErr::new(ExcType::OSError, e.to_string()))?;
            return f
                .write_all(text.as_bytes())
                .map_err(|e| PyErr::new(ExcType::OSError, e.to_string()));
        }
    }
    Err(PyErr::new(
        ExcType::ValueError,
        format!(
            "Unsupported output stream, logging level, or file.{}. Supported streams are \
             sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error. \
             File needs to be in the form of 'file://<filepath>'.",
            vm.str(stream)?
        ),
    ))
}

/// Adds `tf.print`.
pub fn register(m: &mut ModuleBuilder) {
    m.add(tf_print::DEF);
}
