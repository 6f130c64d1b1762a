//! The `re` module: Python's regular expressions on fancy-regex (a
//! backtracking engine with backreferences and look-around, delegating to
//! the linear `regex` crate where it can). `syntax` translates CPython's
//! pattern syntax and reports its errors; `pattern` holds `re.Pattern` and
//! the searching; `matchobj` holds `re.Match`. Positions are characters.
//! Only str patterns: a bytes pattern or subject is a clear TypeError.

mod matchobj;
mod pattern;
mod syntax;

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::ModuleBuilder;
use crate::object::types::int_arg;
use crate::syntax::ast::BinOp;
use crate::value::{
    Args, Class, ClassKind, ExcType, Instance, NativeObject, PyErr, PyResult, Value, Vm,
};

pub use pattern::Pattern;

thread_local! {
    static ERROR: Rc<Class> = Class::new_builtin(
        "error",
        "re",
        Some(ExcType::Exception.class()),
        ClassKind::User,
    );
    static CACHE: RefCell<HashMap<(String, i64), Value>> = RefCell::new(HashMap::new());
}

/// At most this many compiled patterns are cached (CPython: 512).
const CACHE_MAX: usize = 512;

/// `re.error`.
pub fn error_class() -> Rc<Class> {
    ERROR.with(Rc::clone)
}

/// An `re.error` with CPython's message: `msg at position N`, plus
/// `(line L, column C)` when the pattern has several lines.
#[cold]
pub fn re_error(msg: &str, pattern: Option<&str>, pos: Option<usize>) -> PyErr {
    let inst = Instance::new(error_class());
    let mut text = msg.to_string();
    let (mut line, mut col) = (Value::None, Value::None);
    if let (Some(p), Some(pos)) = (pattern, pos) {
        let before: Vec<char> = p.chars().take(pos).collect();
        let l = before.iter().filter(|c| **c == '\n').count() + 1;
        let c = match before.iter().rposition(|c| *c == '\n') {
            Some(nl) => pos - nl,
            None => pos + 1,
        };
        text = format!("{msg} at position {pos}");
        if p.contains('\n') {
            text = format!("{text} (line {l}, column {c})");
        }
        line = Value::Int(l as i64);
        col = Value::Int(c as i64);
    }
    inst.set_attr("args", Value::tuple(vec![Value::str(text)]));
    inst.set_attr("msg", Value::str(msg));
    inst.set_attr("pattern", pattern.map_or(Value::None, Value::str));
    inst.set_attr("pos", pos.map_or(Value::None, |p| Value::Int(p as i64)));
    inst.set_attr("lineno", line);
    inst.set_attr("colno", col);
    PyErr::from_value(Value::Instance(Rc::new(inst)))
}

/// The str a pattern or subject must be (bytes: not supported).
pub(crate) fn text_arg(v: &Value) -> PyResult<Rc<String>> {
    match v.as_builtin() {
        Value::Str(s) => Ok(s.clone()),
        Value::Bytes(_) => Err(PyErr::new(
            ExcType::TypeError,
            "re: bytes patterns and subjects are not supported (use str)",
        )),
        _ => Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "expected string or bytes-like object, got '{}'",
                v.type_name()
            ),
        )),
    }
}

fn flags_arg(vm: &dyn Vm, v: &Value) -> PyResult<i64> {
    int_arg(v, vm)
}

/// `re.compile(pattern, flags)` through the cache (a Pattern passes through).
pub fn compile_value(vm: &dyn Vm, pattern: &Value, flags: &Value) -> PyResult<Value> {
    let flags = flags_arg(vm, flags)?;
    if pattern.downcast::<Pattern>().is_some() {
        if flags != 0 {
            return Err(PyErr::new(
                ExcType::ValueError,
                "cannot process flags argument with a compiled pattern",
            ));
        }
        return Ok(pattern.clone());
    }
    let src = text_arg(pattern)?;
    let key = (src.to_string(), flags);
    if let Some(p) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(p);
    }
    let p = Value::native(Pattern::new(pattern.clone(), &src, flags)?);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_MAX {
            c.clear();
        }
        c.insert(key, p.clone());
    });
    Ok(p)
}

/// The flag values' names in `RegexFlag`'s definition order.
const FLAG_NAMES: &[(&str, i64)] = &[
    ("ASCII", syntax::A),
    ("IGNORECASE", syntax::I),
    ("LOCALE", syntax::L),
    ("UNICODE", syntax::U),
    ("MULTILINE", syntax::M),
    ("DOTALL", syntax::S),
    ("VERBOSE", syntax::X),
    ("TEMPLATE", 1),
    ("DEBUG", syntax::DEBUG),
];

/// `re.RegexFlag`: an int that prints as `re.IGNORECASE|re.MULTILINE`.
pub struct RegexFlag(pub i64);

impl RegexFlag {
    fn names(v: i64) -> String {
        if v == 0 {
            return "re.NOFLAG".into();
        }
        let mut parts: Vec<String> = FLAG_NAMES
            .iter()
            .filter(|(_, f)| v & f != 0)
            .map(|(n, _)| format!("re.{n}"))
            .collect();
        let rest = v & !FLAG_NAMES.iter().fold(0, |a, (_, f)| a | f);
        if rest != 0 {
            parts.push(format!("{rest:#x}"));
        }
        parts.join("|")
    }
}

impl NativeObject for RegexFlag {
    fn type_name(&self) -> &str {
        "RegexFlag"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(Self::names(self.0))
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "value" => Some(Value::Int(self.0)),
            "name" => Some(match FLAG_NAMES.iter().find(|(_, f)| *f == self.0) {
                Some((n, _)) => Value::str(*n),
                None if self.0 == 0 => Value::str("NOFLAG"),
                None => Value::None,
            }),
            _ => None,
        })
    }

    fn to_number(&self, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(Value::Int(self.0)))
    }

    fn hash_as(&self) -> Option<Value> {
        Some(Value::Int(self.0))
    }

    fn truthy(&self, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        Ok(Some(self.0 != 0))
    }

    fn binop(
        &self,
        _this: &Value,
        op: BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let o = match other {
            Value::Int(i) => *i,
            Value::Bool(b) => *b as i64,
            v => match v.downcast::<RegexFlag>() {
                Some(f) => f.0,
                None => return Ok(None),
            },
        };
        let bit = match op {
            BinOp::BitOr => Some(self.0 | o),
            BinOp::BitAnd => Some(self.0 & o),
            BinOp::BitXor => Some(self.0 ^ o),
            _ => None,
        };
        if let Some(v) = bit {
            return Ok(Some(Value::native(RegexFlag(v))));
        }
        // Any other operator: the int's.
        let (a, b) = (Value::Int(self.0), Value::Int(o));
        let r = if reflected {
            vm.binop(op, &b, &a)
        } else {
            vm.binop(op, &a, &b)
        };
        r.map(Some)
    }

    fn unary(&self, _this: &Value, op: char, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match op {
            '~' => Some(Value::native(RegexFlag(
                !self.0 & FLAG_NAMES.iter().fold(0, |a, (_, f)| a | f),
            ))),
            '-' => Some(Value::Int(-self.0)),
            '+' => Some(Value::Int(self.0)),
            _ => None,
        })
    }

    fn compare(
        &self,
        _this: &Value,
        op: &str,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let o = match other {
            Value::Int(_) | Value::Bool(_) | Value::Float(_) => other.clone(),
            v => match v.downcast::<RegexFlag>() {
                Some(f) => Value::Int(f.0),
                None => return Ok(None),
            },
        };
        let a = Value::Int(self.0);
        Ok(Some(Value::Bool(match op {
            "==" => vm.eq(&a, &o)?,
            "!=" => !vm.eq(&a, &o)?,
            "<" => vm.lt(&a, &o)?,
            ">" => vm.lt(&o, &a)?,
            "<=" => !vm.lt(&o, &a)?,
            ">=" => !vm.lt(&a, &o)?,
            _ => return Ok(None),
        })))
    }
}

fn compile(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    compile_value(vm, a.get(0), a.get(1))
}

fn purge(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    CACHE.with(|c| c.borrow_mut().clear());
    Ok(Value::None)
}

fn escape(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::str(syntax::escape(&text_arg(a.get(0))?)))
}

/// `re.f(pattern, string, ..., flags)` as `re.compile(pattern, flags).f(string, ...)`:
/// `rest` is the arguments between the pattern and the flags.
fn via_pattern(vm: &dyn Vm, a: &Args, method: &str) -> PyResult<Value> {
    let n = a.values.len();
    let p = compile_value(vm, a.get(0), a.get(n - 1))?;
    let f = vm.getattr(&p, method)?;
    vm.call(&f, a.values[1..n - 1].to_vec(), Vec::new())
}

macro_rules! forward {
    ($($name:ident),*) => {$(
        fn $name(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
            via_pattern(vm, a, stringify!($name))
        }
    )*};
}

forward!(search, fullmatch, findall, finditer, sub, subn, split);

fn match_fn(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let n = a.values.len();
    let p = compile_value(vm, a.get(0), a.get(n - 1))?;
    let f = vm.getattr(&p, "match")?;
    vm.call(&f, a.values[1..n - 1].to_vec(), Vec::new())
}

/// The `re` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("re");
    m.function(
        "compile(pattern, flags=0)",
        compile,
        "Compiles a pattern: `re.compile('a+').match('aa')`.",
    )
    .function(
        "search(pattern, string, flags=0)",
        search,
        "The first match anywhere in the string, or None.",
    )
    .function(
        "match(pattern, string, flags=0)",
        match_fn,
        "A match at the start of the string, or None.",
    )
    .function(
        "fullmatch(pattern, string, flags=0)",
        fullmatch,
        "A match of the whole string, or None.",
    )
    .function(
        "findall(pattern, string, flags=0)",
        findall,
        "All non-overlapping matches: strings, or tuples of groups.",
    )
    .function(
        "finditer(pattern, string, flags=0)",
        finditer,
        "An iterator over the match objects.",
    )
    .function(
        "sub(pattern, repl, string, count=0, flags=0)",
        sub,
        "The string with matches replaced (`\\1`, `\\g<name>` or a function).",
    )
    .function(
        "subn(pattern, repl, string, count=0, flags=0)",
        subn,
        "`(new_string, number_of_subs)`.",
    )
    .function(
        "split(pattern, string, maxsplit=0, flags=0)",
        split,
        "The string split at the matches (groups included).",
    )
    .function(
        "escape(pattern)",
        escape,
        "Backslashes before special characters.",
    )
    .function("purge()", purge, "Clears the pattern cache.")
    .value("error", Value::Class(error_class()))
    .value("Pattern", Value::Class(pattern::pattern_class()))
    .value("Match", Value::Class(matchobj::match_class()));
    for (long, short, v) in [
        ("ASCII", "A", syntax::A),
        ("IGNORECASE", "I", syntax::I),
        ("LOCALE", "L", syntax::L),
        ("UNICODE", "U", syntax::U),
        ("MULTILINE", "M", syntax::M),
        ("DOTALL", "S", syntax::S),
        ("VERBOSE", "X", syntax::X),
    ] {
        m.value(long, Value::native(RegexFlag(v)));
        m.value(short, Value::native(RegexFlag(v)));
    }
    m.value("DEBUG", Value::native(RegexFlag(syntax::DEBUG)))
        .value("NOFLAG", Value::native(RegexFlag(0)));
    m.build()
}
