//! `help(C)` and `help(instance)` of a class defined in the script, as
//! CPython's pydoc prints it (3.11, `TextDoc.docclass`): the class line, the
//! constructor's signature, the docstring, the method resolution order,
//! then per class along it the methods, data descriptors (`__dict__`,
//! `__weakref__` of the first class above `object`) and other attributes,
//! sorted by name. Classes with properties, class or static methods, or a
//! builtin base other than `object` are refused (what pydoc prints for
//! them is not reproduced).

use std::rc::Rc;

use super::{cleandoc, indent, unsupported_class};
use crate::value::{Class, ClassKind, PyResult, Value, ValueType, Vm};

/// Names pydoc never lists.
const HIDDEN: &[&str] = &[
    "__author__",
    "__builtins__",
    "__cached__",
    "__credits__",
    "__date__",
    "__doc__",
    "__file__",
    "__spec__",
    "__loader__",
    "__module__",
    "__name__",
    "__package__",
    "__path__",
    "__qualname__",
    "__slots__",
    "__version__",
];

/// The docs `object`'s own methods lend to overrides without a docstring
/// (`inspect.getdoc` looks a missing docstring up along the MRO).
fn object_doc(name: &str) -> Option<&'static str> {
    Some(match name {
        "__init__" => "Initialize self.  See help(type(self)) for accurate signature.",
        "__repr__" => "Return repr(self).",
        "__str__" => "Return str(self).",
        "__eq__" => "Return self==value.",
        "__ne__" => "Return self!=value.",
        "__lt__" => "Return self<value.",
        "__le__" => "Return self<=value.",
        "__gt__" => "Return self>value.",
        "__ge__" => "Return self>=value.",
        "__hash__" => "Return hash(self).",
        "__format__" => "Default object formatter.",
        "__getattribute__" => "Return getattr(self, name).",
        "__setattr__" => "Implement setattr(self, name, value).",
        "__delattr__" => "Implement delattr(self, name).",
        _ => return None,
    })
}

fn visible(name: &str) -> bool {
    if HIDDEN.contains(&name) {
        return false;
    }
    (name.starts_with("__") && name.ends_with("__")) || !name.starts_with('_')
}

/// The user classes of `c`'s MRO, and whether it ends at `object`.
fn user_mro(c: &Rc<Class>) -> Option<Vec<Rc<Class>>> {
    let mro = c.mro();
    let (object, users) = mro.split_last()?;
    let ok = object.kind == ClassKind::Builtin(ValueType::Object)
        && users.iter().all(|k| k.kind == ClassKind::User);
    ok.then(|| users.to_vec())
}

/// The text of `help(c)` (`instance`: the title of `help(obj)`).
pub fn render(vm: &dyn Vm, c: &Rc<Class>, instance: bool) -> PyResult<String> {
    let users = user_mro(c).ok_or_else(|| unsupported_class(c))?;
    for k in &users {
        for v in k.dict.borrow().values() {
            if matches!(v, Value::Native(_)) {
                return Err(unsupported_class(c));
            }
        }
    }
    let name = &*c.name;
    let title = if instance {
        format!("Help on {name} in module {} object:\n\n", c.module)
    } else {
        format!("Help on class {name} in module {}:\n\n", c.module)
    };
    let bases = match users.get(1) {
        Some(b) => b.name.to_string(),
        None => "builtins.object".into(),
    };
    let mut contents: Vec<String> = Vec::new();
    if let Some(Value::Function(init)) = c.lookup("__init__") {
        let params = init.sig.render_params(&|v| vm.repr(v).unwrap_or_default());
        let params = super::drop_first_param(&params);
        if params != "()" {
            contents.push(format!("{name}{params}\n"));
        }
    }
    if let Some(doc) = class_doc(c) {
        contents.push(format!("{doc}\n"));
    }
    if users.len() > 1 {
        contents.push("Method resolution order:".into());
        for k in &users {
            contents.push(format!("    {}", k.name));
        }
        contents.push("    builtins.object".into());
        contents.push(String::new());
    }
    let mut sections = 0;
    let top = users.last().map(|k| k.name.clone());
    for k in &users {
        let tag = if Rc::ptr_eq(k, c) {
            "defined here".to_string()
        } else {
            format!("inherited from {}", k.name)
        };
        let mut methods: Vec<(String, Value)> = Vec::new();
        let mut data: Vec<(String, Value)> = Vec::new();
        for (n, v) in k.dict.borrow().iter() {
            if !visible(n)
                || users
                    .iter()
                    .take_while(|u| !Rc::ptr_eq(u, k))
                    .any(|u| u.dict.borrow().contains_key(n))
            {
                continue;
            }
            match v {
                Value::Function(_) => methods.push((n.to_string(), v.clone())),
                _ => data.push((n.to_string(), v.clone())),
            }
        }
        methods.sort_by(|a, b| a.0.cmp(&b.0));
        data.sort_by(|a, b| a.0.cmp(&b.0));
        let mut section = |contents: &mut Vec<String>, head: String, items: Vec<String>| {
            if items.is_empty() {
                return;
            }
            if sections > 0 {
                contents.push("-".repeat(70));
            }
            sections += 1;
            contents.push(format!("{head}\n"));
            contents.extend(items);
        };
        let mut items = Vec::new();
        for (n, f) in &methods {
            items.push(method_doc(vm, &users, n, f)?);
        }
        section(&mut contents, format!("Methods {tag}:"), items);
        if top.as_deref() == Some(&*k.name) {
            section(
                &mut contents,
                format!("Data descriptors {tag}:"),
                vec![
                    "__dict__\n    dictionary for instance variables\n".into(),
                    "__weakref__\n    list of weak references to the object\n".into(),
                ],
            );
        }
        let mut items = Vec::new();
        for (n, v) in &data {
            items.push(format!("{n} = {}\n", vm.repr(v)?));
        }
        section(
            &mut contents,
            format!("Data and other attributes {tag}:"),
            items,
        );
    }
    let body = contents.join("\n");
    let body = body.trim_end();
    let lines: Vec<String> = body.split('\n').map(|l| format!(" |  {l}")).collect();
    let mut text = lines.join("\n");
    let trimmed = text.trim_end().len();
    text.truncate(trimmed);
    Ok(format!("{title}class {name}({bases})\n{text}\n\n"))
}

/// The class's docstring, cleaned (none for a class without one).
fn class_doc(c: &Class) -> Option<String> {
    match c.dict.borrow().get("__doc__") {
        Some(Value::Str(s)) => Some(cleandoc(s)),
        _ => None,
    }
}

/// One method: `name(params)`, then its docstring (or the one it inherits).
fn method_doc(vm: &dyn Vm, users: &[Rc<Class>], name: &str, f: &Value) -> PyResult<String> {
    let Value::Function(fun) = f else {
        return Ok(String::new());
    };
    let params = fun.sig.render_params(&|v| vm.repr(v).unwrap_or_default());
    let mut out = format!("{name}{params}\n");
    let own = match vm.getattr(f, "__doc__")? {
        Value::Str(s) => Some(cleandoc(&s)),
        _ => None,
    };
    let doc = own.or_else(|| {
        users.iter().find_map(|k| match k.dict.borrow().get(name) {
            Some(g @ Value::Function(_)) if !g.is(f) => match vm.getattr(g, "__doc__") {
                Ok(Value::Str(s)) => Some(cleandoc(&s)),
                _ => None,
            },
            _ => None,
        })
    });
    let doc = doc.or_else(|| object_doc(name).map(str::to_string));
    if let Some(doc) = doc {
        out.push_str(indent(&doc).trim_end());
        out.push('\n');
    }
    Ok(out)
}
