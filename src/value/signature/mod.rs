//! Python signatures and the one argument binder. User functions and native
//! functions both declare a `Signature` and go through [`Signature::bind`],
//! so every call error reads like CPython's
//! (`f() missing 1 required positional argument: 'x'`).
//!
//! This module holds the signature types, their parsing from text and their
//! rendering; binding and its error messages are in `bind.rs`.

mod bind;

use std::rc::Rc;

use super::value::Value;

/// How a parameter can be passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// Before `/`.
    PositionalOnly,
    /// The usual kind.
    PositionalOrKeyword,
    /// `*args`.
    VarPositional,
    /// After `*` or `*args`.
    KeywordOnly,
    /// `**kwargs`.
    VarKeyword,
}

/// One parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its name.
    pub name: Rc<str>,
    /// How it is passed.
    pub kind: ParamKind,
    /// Its default (None: required; never set for var parameters).
    pub default: Option<Value>,
}

/// A function's signature, in Python's parameter order.
#[derive(Clone, Debug)]
pub struct Signature {
    /// The name used in error messages (`fn`, `C.method`, `OneDeviceStrategy.__init__`).
    pub name: Rc<str>,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// A builtin written in C in CPython (builtins, methods of builtin
    /// types): wrong argument counts get CPython's C-level messages
    /// (`len() takes exactly one argument (0 given)`, `get expected at least
    /// 1 argument, got 0`) instead of a Python function's.
    pub builtin: BuiltinStyle,
}

/// Whose argument-count messages a signature gives (see [`Signature::builtin`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BuiltinStyle {
    /// A Python function's (`f() missing 1 required positional argument: 'x'`).
    #[default]
    Python,
    /// A C builtin function or method's.
    Function,
    /// A C builtin type's constructor.
    Constructor,
}

/// Bound arguments, one per parameter in signature order.
#[derive(Debug, Default)]
pub struct Args {
    /// The values: defaults filled in, `*args` a tuple, `**kwargs` a dict.
    pub values: Vec<Value>,
    /// Which parameters were passed explicitly (not from their default).
    /// None when every parameter was passed (the fast path allocates nothing).
    pub given: Option<Vec<bool>>,
}

impl Args {
    /// The value of parameter `i`.
    pub fn get(&self, i: usize) -> &Value {
        &self.values[i]
    }

    /// The value of parameter `i`, or None when it is Python `None`.
    pub fn opt(&self, i: usize) -> Option<&Value> {
        match &self.values[i] {
            Value::None => None,
            v => Some(v),
        }
    }

    /// Whether parameter `i` was passed by the caller.
    pub fn was_given(&self, i: usize) -> bool {
        self.given
            .as_ref()
            .is_none_or(|g| g.get(i).copied().unwrap_or(false))
    }

    /// A `**kwargs` parameter as keyword pairs (to pass on in a call).
    pub fn keywords(&self, i: usize) -> Vec<(Rc<str>, Value)> {
        match &self.values[i] {
            Value::Dict(d) => d
                .borrow()
                .items()
                .into_iter()
                .filter_map(|(k, v)| match k {
                    Value::Str(s) => Some((Rc::from(s.as_str()), v)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The elements of a `*args` parameter.
    pub fn varargs(&self, i: usize) -> &[Value] {
        match &self.values[i] {
            Value::Tuple(t) => t,
            _ => &[],
        }
    }
}

impl Signature {
    /// Whether every parameter can be passed by position (no `*args`,
    /// keyword-only or `**kwargs`): a call with exactly `params.len()`
    /// positional arguments then binds them as they are.
    #[inline]
    pub fn all_positional(&self) -> bool {
        self.params.iter().all(|p| {
            matches!(
                p.kind,
                ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword
            )
        })
    }

    /// Parses a Python-style signature: `name(a, b=1, /, c=None, *args, d, e='x', **kw)`.
    /// Defaults may be None, True, False, ints, floats, strings and `()`.
    /// Only used on signatures written in our own source, so a malformed one is a bug
    /// caught by the test that parses every registered signature.
    pub fn parse(text: &str) -> Signature {
        let open = text.find('(').unwrap_or(text.len());
        let name: Rc<str> = text[..open].trim().into();
        let inner = text[open..]
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')');
        let mut params = Vec::new();
        let mut kind = ParamKind::PositionalOrKeyword;
        for part in split_params(inner) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            if part == "/" {
                for p in params.iter_mut() {
                    let p: &mut Param = p;
                    p.kind = ParamKind::PositionalOnly;
                }
                continue;
            }
            if part == "*" {
                kind = ParamKind::KeywordOnly;
                continue;
            }
            if let Some(n) = part.strip_prefix("**") {
                params.push(Param {
                    name: n.trim().into(),
                    kind: ParamKind::VarKeyword,
                    default: None,
                });
                continue;
            }
            if let Some(n) = part.strip_prefix('*') {
                params.push(Param {
                    name: n.trim().into(),
                    kind: ParamKind::VarPositional,
                    default: None,
                });
                kind = ParamKind::KeywordOnly;
                continue;
            }
            let (pname, default) = match part.split_once('=') {
                Some((n, d)) => (n.trim(), Some(parse_default(d.trim()))),
                None => (part, None),
            };
            params.push(Param {
                name: pname.into(),
                kind,
                default,
            });
        }
        Signature {
            name,
            params,
            builtin: BuiltinStyle::Python,
        }
    }

    /// The signature as a C builtin (see `builtin`); `ctor` for a type's
    /// constructor (`int(...)`, `reversed(...)`), which CPython never gives
    /// the one-argument `METH_O` messages.
    pub fn c_builtin(mut self, ctor: bool) -> Signature {
        self.builtin = if ctor {
            BuiltinStyle::Constructor
        } else {
            BuiltinStyle::Function
        };
        self
    }

    /// The signature as Python shows it: `(a, b=1, *args, **kwargs)`.
    pub fn render_params(&self, repr: &dyn Fn(&Value) -> String) -> String {
        let mut parts = Vec::new();
        let mut star_done = false;
        for (i, p) in self.params.iter().enumerate() {
            match p.kind {
                ParamKind::VarPositional => {
                    parts.push(format!("*{}", p.name));
                    star_done = true;
                }
                ParamKind::VarKeyword => parts.push(format!("**{}", p.name)),
                ParamKind::KeywordOnly if !star_done => {
                    parts.push("*".to_string());
                    star_done = true;
                    parts.push(param_text(p, repr));
                }
                _ => parts.push(param_text(p, repr)),
            }
            let next_not_posonly = self
                .params
                .get(i + 1)
                .is_none_or(|q| q.kind != ParamKind::PositionalOnly);
            if p.kind == ParamKind::PositionalOnly && next_not_posonly {
                parts.push("/".to_string());
            }
        }
        format!("({})", parts.join(", "))
    }
}

fn param_text(p: &Param, repr: &dyn Fn(&Value) -> String) -> String {
    match &p.default {
        Some(d) => format!("{}={}", p.name, repr(d)),
        None => p.name.to_string(),
    }
}

fn split_params(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(&s[start..i]);
                    start = i + 1;
                }
                _ => {}
            },
        }
    }
    out.push(&s[start..]);
    out
}

fn parse_default(d: &str) -> Value {
    match d {
        "None" => Value::None,
        "True" => Value::Bool(true),
        "False" => Value::Bool(false),
        "()" => Value::tuple(Vec::new()),
        _ => {
            if let Ok(i) = d.parse::<i64>() {
                Value::Int(i)
            } else if let Ok(f) = d.parse::<f64>() {
                Value::Float(f)
            } else if (d.starts_with('\'') && d.ends_with('\''))
                || (d.starts_with('"') && d.ends_with('"'))
            {
                let body = &d[1..d.len() - 1];
                Value::str(body.replace("\\n", "\n").replace("\\t", "\t"))
            } else {
                Value::str(d)
            }
        }
    }
}
