//! `help(obj)`: for functions and classes defined in a script, what
//! CPython's pydoc prints (`Help on function f in module __main__:`, the
//! signature, the cleaned docstring; classes in `pydoc_class.rs`); for natives, our API documentation: the binder's
//! signature, one paragraph and an example with its output. The
//! documentation lives in one place, `docs.txt` beside this file (see its
//! header), parsed once per thread; `tests/help_docs.rs` runs every example
//! there and checks it prints what the entry says. A native without an entry
//! still gets its signature and the one line it declares.

mod docs;
mod pydoc_class;

use std::rc::Rc;

pub use self::docs::{entries, Doc};
use crate::object::module::ModuleObj;
use crate::object::native;
use crate::value::{
    Class, ClassKind, ExcType, NativeFunction, PyErr, PyResult, Signature, Value, Vm,
};

/// Prints the documentation of an object: `help(tf.distribute.MirroredStrategy)`.
#[native("help(*args)", c)]
pub fn help(vm: &dyn Vm, args: &[Value]) -> PyResult<()> {
    let items = args;
    let text = match items {
        [] => {
            "Type help(object) for help about object, e.g. help(tf.distribute.MirroredStrategy).\n\
               (The interactive help utility of CPython is not available.)\n"
                .to_string()
        }
        [x] => render(vm, x)?,
        _ => {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "help() takes from 0 to 1 positional arguments but {} were given",
                    items.len()
                ),
            ))
        }
    };
    vm.write_stdout(&text);
    Ok(())
}

/// The text `help(x)` prints.
pub fn render(vm: &dyn Vm, x: &Value) -> PyResult<String> {
    match x {
        Value::Str(name) => Ok(match entries().iter().find(|d| d.title == name.as_str()) {
            Some(d) => native_entry(vm, d, None)?,
            None => format!(
                "No Python documentation found for '{name}'.\n\
                 Use help() to get the interactive help utility.\n\
                 Use help(str) for help on the str class.\n\n"
            ),
        }),
        Value::Function(_) => user_function(vm, x, None),
        Value::BoundMethod(m) if matches!(m.func, Value::Function(_)) => {
            user_function(vm, &m.func, Some(&m.receiver))
        }
        Value::BoundMethod(m) => render(vm, &m.func),
        Value::NativeFunction(nf) => native_function(vm, nf),
        Value::Class(c) => class(vm, c),
        Value::Instance(i) if i.class.exception_type().is_none() => {
            pydoc_class::render(vm, &i.class, true)
        }
        Value::Native(_) if x.downcast::<ModuleObj>().is_some() => module(x),
        _ => match vm.type_of(x) {
            Value::Class(c) => class(vm, &c),
            _ => Err(unsupported(x)),
        },
    }
}

#[cold]
fn unsupported(x: &Value) -> PyErr {
    PyErr::new(
        ExcType::NotImplementedError,
        format!(
            "help() of a {} is not supported: dist documents functions, native classes and their methods",
            x.type_name()
        ),
    )
}

/// A class defined in the script whose pydoc text we do not reproduce.
#[cold]
fn unsupported_class(c: &Class) -> PyErr {
    PyErr::new(
        ExcType::NotImplementedError,
        format!(
            "help() of class '{}' is not supported: dist prints pydoc's text for classes with plain methods and attributes only; help() of its methods works",
            c.name
        ),
    )
}

/// pydoc's rendering of a function defined in the language (and of a method
/// bound to an instance of a user class).
fn user_function(vm: &dyn Vm, f: &Value, receiver: Option<&Value>) -> PyResult<String> {
    let Value::Function(fun) = f else {
        return Err(unsupported(f));
    };
    let name = fun.def.name.to_string();
    let mut params = fun.sig.render_params(&|v| vm.repr(v).unwrap_or_default());
    let kind = if receiver.is_some() {
        "method"
    } else {
        "function"
    };
    let mut out = format!("Help on {kind} {name} in module __main__:\n\n");
    if name == "<lambda>" {
        // pydoc shows a lambda as `<lambda> lambda x`.
        params = params[1..params.len() - 1].to_string();
        out.push_str(&format!("<lambda> lambda {params}\n"));
    } else if let Some(r) = receiver {
        params = drop_first_param(&params);
        let cls = match vm.type_of(r) {
            Value::Class(c) => format!("{}.{}", c.module, c.qualname),
            _ => r.type_name(),
        };
        out.push_str(&format!("{name}{params} method of {cls} instance\n"));
    } else {
        out.push_str(&format!("{name}{params}\n"));
    }
    if let Value::Str(doc) = vm.getattr(f, "__doc__")? {
        out.push_str(&indent(&cleandoc(&doc)));
        out.push('\n');
    }
    out.push('\n');
    Ok(out)
}

/// `(self, x)` → `(x)`.
fn drop_first_param(params: &str) -> String {
    match params.find(", ") {
        Some(i) => format!("({}", &params[i + 2..]),
        None => "()".to_string(),
    }
}

/// `inspect.cleandoc`: the first line stripped, the others dedented by their
/// common indentation, blank lines at both ends removed.
pub fn cleandoc(doc: &str) -> String {
    let expanded = doc.replace('\t', "        ");
    let mut lines: Vec<&str> = expanded.split('\n').collect();
    let margin = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim_start().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    if let Some(first) = lines.first_mut() {
        out.push(first.trim_start().to_string());
    }
    for l in lines.iter().skip(1) {
        out.push(match margin {
            Some(m) => l.get(m..).unwrap_or("").to_string(),
            None => l.to_string(),
        });
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    out.join("\n")
}

/// pydoc's `indent`: four spaces before every line, the last one right-stripped.
fn indent(text: &str) -> String {
    let mut lines: Vec<String> = text.split('\n').map(|l| format!("    {l}")).collect();
    if let Some(last) = lines.last_mut() {
        *last = last.trim_end().to_string();
    }
    lines.join("\n")
}

/// A native function: its entry, or its signature and declared line.
fn native_function(vm: &dyn Vm, nf: &Rc<NativeFunction>) -> PyResult<String> {
    if let Some(d) = docs::for_function(nf) {
        return native_entry(vm, d, Some(nf));
    }
    let mut out = format!(
        "Help on built-in function {}:\n\n{}\n",
        nf.name(),
        declaration(vm, nf)
    );
    if !nf.doc.is_empty() {
        out.push_str(&indent(nf.doc));
        out.push('\n');
    }
    out.push('\n');
    Ok(out)
}

/// `name(params)` as the binder declares it (without `self` when bound).
fn declaration(vm: &dyn Vm, nf: &NativeFunction) -> String {
    let params = signature_text(vm, &nf.sig);
    let params = if nf.bound.is_some() {
        drop_first_param(&params)
    } else {
        params
    };
    format!("{}{params}", nf.name())
}

fn signature_text(vm: &dyn Vm, sig: &Signature) -> String {
    sig.render_params(&|v| vm.repr(v).unwrap_or_default())
}

/// A documented native: title, declaration, paragraph, example and output.
fn native_entry(vm: &dyn Vm, d: &Doc, nf: Option<&NativeFunction>) -> PyResult<String> {
    let mut out = format!("Help on {}:\n\n", d.title);
    let decl = match nf {
        Some(nf) => declaration(vm, nf),
        None => docs::resolve(d)
            .map(|v| match v {
                Value::NativeFunction(nf) => declaration(vm, &nf),
                Value::Class(c) => class_declaration(vm, &c),
                _ => d.short_name().to_string(),
            })
            .unwrap_or_else(|| d.short_name().to_string()),
    };
    out.push_str(&decl);
    out.push('\n');
    write_body(&mut out, d);
    Ok(out)
}

fn write_body(out: &mut String, d: &Doc) {
    out.push_str(&indent(d.text));
    out.push_str("\n\n    Example (after `import tensorflow as tf`, with 2 virtual GPUs):\n");
    out.push_str(&indent(&indent(d.example)));
    out.push_str("\n    prints:\n");
    out.push_str(&indent(&indent(d.output)));
    out.push_str("\n\n");
}

/// `MirroredStrategy(devices=None, cross_device_ops=None)`.
fn class_declaration(vm: &dyn Vm, c: &Class) -> String {
    match c.lookup("__new__") {
        Some(Value::NativeFunction(nf)) => format!("{}{}", c.name, signature_text(vm, &nf.sig)),
        _ => c.name.to_string(),
    }
}

/// A class: its entry (or a plain header), then its native methods.
fn class(vm: &dyn Vm, c: &Rc<Class>) -> PyResult<String> {
    if c.kind == ClassKind::User {
        return pydoc_class::render(vm, c, false);
    }
    let mut out = match docs::for_class(c) {
        Some(d) => {
            let mut out = format!("Help on {}:\n\n{}\n", d.title, class_declaration(vm, c));
            write_body(&mut out, d);
            out
        }
        None => format!(
            "Help on class {} in module {}:\n\n{}\n\n",
            c.name,
            c.module,
            class_declaration(vm, c)
        ),
    };
    let mut methods: Vec<(String, String)> = Vec::new();
    for k in c.mro() {
        for (name, v) in k.dict.borrow().iter() {
            let Value::NativeFunction(nf) = v else {
                continue;
            };
            if name.starts_with('_') || methods.iter().any(|(n, _)| **n == **name) {
                continue;
            }
            let summary = docs::for_function(nf)
                .map(|d| first_sentence(d.text))
                .unwrap_or_else(|| nf.doc.to_string());
            methods.push((
                name.to_string(),
                format!("{}\n{}", declaration(vm, nf), summary),
            ));
        }
    }
    if !methods.is_empty() {
        methods.sort();
        out.push_str("    Methods:\n");
        for (_, text) in methods {
            let (decl, summary) = text.split_once('\n').unwrap_or((&text, ""));
            out.push_str(&format!("        {decl}\n"));
            for line in wrap(summary, 79 - 12) {
                out.push_str(&format!("            {line}\n"));
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// `text`'s words in lines of at most `width` characters (a longer word
/// gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// The first sentence of a paragraph, on one line.
fn first_sentence(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.find(". ") {
        Some(i) => flat[..=i].to_string(),
        None => flat,
    }
}

/// A module: the documented names under it.
fn module(m: &Value) -> PyResult<String> {
    let Some(obj) = m.downcast::<ModuleObj>() else {
        return Err(unsupported(m));
    };
    let public = match obj.name.strip_prefix("tensorflow") {
        Some(rest) => format!("tf{rest}"),
        None => obj.name.to_string(),
    };
    let prefix = format!("{public}.");
    let mut out = format!("Help on module {}:\n\n", obj.name);
    let titles: Vec<&str> = entries()
        .iter()
        .map(|d| d.title)
        .filter(|t| t.starts_with(&prefix))
        .collect();
    if titles.is_empty() {
        let mut names: Vec<String> = obj
            .dict
            .borrow()
            .keys()
            .filter(|k| !k.starts_with('_'))
            .map(|k| k.to_string())
            .collect();
        names.sort();
        out.push_str("    Names:\n");
        for n in names {
            out.push_str(&format!("        {n}\n"));
        }
    } else {
        out.push_str("    Documented (help(NAME) shows each):\n");
        for t in titles {
            out.push_str(&format!("        {t}\n"));
        }
    }
    out.push('\n');
    Ok(out)
}
