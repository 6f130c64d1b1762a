//! The `re` module: Python's regular expressions on fancy-regex (a
//! backtracking engine with backreferences and look-around, delegating to
//! the linear `regex` crate where it can). `syntax` translates CPython's
//! pattern syntax and reports its errors; `pattern` holds `re.Pattern` and
//! the searching; `matchobj` holds `re.Match`; `template` the replacement
//! templates. Positions are characters.
//! Only str patterns: a bytes pattern or subject is a clear TypeError.

mod matchobj;
mod pattern;
mod syntax;
mod template;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::ModuleBuilder;
use crate::distribute::classes::native_class;
use crate::object::types::int_arg;
use crate::object::{native, ClassSpec, Member};
use crate::syntax::ast;
use crate::syntax::ast::BinOp;
use crate::syntax::ast::CmpOp;
use crate::value::{Class, ClassKind, ExcType, Instance, NativeObject, PyErr, PyResult, Value, Vm};

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

/// The class of the flags.
pub static REGEX_FLAG: ClassSpec = ClassSpec {
    name: "RegexFlag",
    module: "re",
    bases: &[],
    members: &[
        Member::Getter(flag_value::DEF),
        Member::Getter(flag_name::DEF),
    ],
};

native_class!(RegexFlag: REGEX_FLAG);

/// The flag's int value.
#[native("RegexFlag.value(self)")]
fn flag_value(this: &RegexFlag) -> i64 {
    this.0
}

/// The flag's name (None for a combination).
#[native("RegexFlag.name(self)")]
fn flag_name(this: &RegexFlag) -> Value {
    match FLAG_NAMES.iter().find(|(_, f)| *f == this.0) {
        Some((n, _)) => Value::str(*n),
        None if this.0 == 0 => Value::str("NOFLAG"),
        None => Value::None,
    }
}

impl NativeObject for RegexFlag {
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(Self::names(self.0))
    }

    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&REGEX_FLAG)
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

    fn unary(&self, _this: &Value, op: ast::UnaryOp, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match op {
            ast::UnaryOp::Invert => Some(Value::native(RegexFlag(
                !self.0 & FLAG_NAMES.iter().fold(0, |a, (_, f)| a | f),
            ))),
            ast::UnaryOp::USub => Some(Value::Int(-self.0)),
            ast::UnaryOp::UAdd => Some(Value::Int(self.0)),
            _ => None,
        })
    }

    fn compare(
        &self,
        _this: &Value,
        op: CmpOp,
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
            CmpOp::Eq => vm.eq(&a, &o)?,
            CmpOp::NotEq => !vm.eq(&a, &o)?,
            CmpOp::Lt => vm.lt(&a, &o)?,
            CmpOp::Gt => vm.lt(&o, &a)?,
            CmpOp::LtE => !vm.lt(&o, &a)?,
            CmpOp::GtE => !vm.lt(&a, &o)?,
            _ => return Ok(None),
        })))
    }
}

/// Compiles a pattern: `re.compile('a+').match('aa')`.
#[native("compile(pattern, flags=0)")]
fn compile(vm: &dyn Vm, pattern: &Value, flags: &Value) -> PyResult<Value> {
    compile_value(vm, pattern, flags)
}

/// Clears the pattern cache.
#[native("purge()")]
fn purge() {
    CACHE.with(|c| c.borrow_mut().clear());
}

/// Backslashes before special characters.
#[native("escape(pattern)")]
fn escape(pattern: &Value) -> PyResult<String> {
    Ok(syntax::escape(&text_arg(pattern)?))
}

/// `re.f(pattern, ..., flags)` as `re.compile(pattern, flags).f(...)`.
fn via_pattern(
    vm: &dyn Vm,
    pattern: &Value,
    flags: &Value,
    method: &str,
    args: &[&Value],
) -> PyResult<Value> {
    let p = compile_value(vm, pattern, flags)?;
    let f = vm.getattr(&p, method)?;
    vm.call(&f, args.iter().map(|v| (*v).clone()).collect(), Vec::new())
}

/// Natives `re.f(pattern, ..., flags=0)` that are
/// `re.compile(pattern, flags).f(...)`: the name, the signature, the
/// method, and the arguments between `pattern` and `flags`.
macro_rules! via_pattern {
    ($($(#[doc = $doc:tt])* fn $name:ident($sig:tt, $method:tt, $($arg:ident),*);)*) => {$(
        $(#[doc = $doc])*
        #[native($sig)]
        fn $name(vm: &dyn Vm, pattern: &Value, $($arg: &Value,)* flags: &Value) -> PyResult<Value> {
            via_pattern(vm, pattern, flags, $method, &[$($arg),*])
        }
    )*};
}

via_pattern! {
    /// The first match anywhere in the string, or None.
    fn search("search(pattern, string, flags=0)", "search", string);
    /// A match at the start of the string, or None.
    fn match_("match(pattern, string, flags=0)", "match", string);
    /// A match of the whole string, or None.
    fn fullmatch("fullmatch(pattern, string, flags=0)", "fullmatch", string);
    /// All non-overlapping matches: strings, or tuples of groups.
    fn findall("findall(pattern, string, flags=0)", "findall", string);
    /// An iterator over the match objects.
    fn finditer("finditer(pattern, string, flags=0)", "finditer", string);
    /// The string with matches replaced (`\1`, `\g<name>` or a function).
    fn sub("sub(pattern, repl, string, count=0, flags=0)", "sub", repl, string, count);
    /// `(new_string, number_of_subs)`.
    fn subn("subn(pattern, repl, string, count=0, flags=0)", "subn", repl, string, count);
    /// The string split at the matches (groups included).
    fn split("split(pattern, string, maxsplit=0, flags=0)", "split", string, maxsplit);
}

/// The `re` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("re");
    m.add(compile::DEF)
        .add(search::DEF)
        .add(match_::DEF)
        .add(fullmatch::DEF)
        .add(findall::DEF)
        .add(finditer::DEF)
        .add(sub::DEF)
        .add(subn::DEF)
        .add(split::DEF)
        .add(escape::DEF)
        .add(purge::DEF)
        .value("error", Value::Class(error_class()))
        .value("Pattern", Value::Class(pattern::PATTERN.class()))
        .value("Match", Value::Class(matchobj::MATCH.class()));
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
