//! `re.Match` (groups, spans, `groupdict`, `expand`, `m[1]`, its repr) and
//! `Text`, a subject string with its character ↔ byte offsets (the engine
//! works in bytes, Python in characters).

use std::any::Any;
use std::rc::Rc;

use super::pattern::{expand, parse_template, Pattern};
use super::text_arg;
use crate::object::types::{add_method, as_index};
use crate::value::format::str_repr;
use crate::value::{
    Args, Class, ClassKind, Dict, ExcType, NativeObject, PyErr, PyResult, Value, Vm,
};

thread_local! {
    static MATCH_CLASS: Rc<Class> = make_class();
}

/// The `re.Match` class.
pub fn match_class() -> Rc<Class> {
    MATCH_CLASS.with(Rc::clone)
}

/// A subject string and, when it is not ASCII, the byte offset of each character.
pub struct Text {
    /// The string.
    pub s: Rc<String>,
    /// Byte offsets of the characters (None: ASCII, offsets are indices).
    offs: Option<Vec<usize>>,
}

impl Text {
    /// Indexes a string.
    pub fn new(s: Rc<String>) -> Text {
        let offs = (!s.is_ascii()).then(|| s.char_indices().map(|(i, _)| i).collect());
        Text { s, offs }
    }

    /// The length in characters.
    pub fn len(&self) -> usize {
        self.offs.as_ref().map_or(self.s.len(), Vec::len)
    }

    /// The byte offset of character `c` (the end for `c == len`).
    pub fn byte_of(&self, c: usize) -> usize {
        match &self.offs {
            None => c,
            Some(o) => o.get(c).copied().unwrap_or(self.s.len()),
        }
    }

    /// The character index of byte offset `b` (a character boundary).
    pub fn char_of(&self, b: usize) -> usize {
        match &self.offs {
            None => b,
            Some(o) => o.partition_point(|x| *x < b),
        }
    }

    /// The characters `a..b`.
    pub fn slice(&self, a: usize, b: usize) -> &str {
        &self.s[self.byte_of(a)..self.byte_of(b)]
    }
}

/// A match.
pub struct MatchObj {
    /// Character spans of group 0..=groups (None: did not take part).
    pub spans: Vec<Option<(usize, usize)>>,
    /// The Pattern (`.re`).
    pub pattern: Value,
    /// The subject (`.string`).
    pub subject: Value,
    /// The subject, indexed.
    pub text: Rc<Text>,
    /// `.pos`.
    pub pos: usize,
    /// `.endpos`.
    pub endpos: usize,
}

impl MatchObj {
    fn pat(&self) -> Option<&Pattern> {
        self.pattern.downcast::<Pattern>()
    }

    /// The text of group `g`, None when it did not take part.
    pub fn group_str(&self, g: usize) -> Option<Value> {
        self.spans
            .get(g)
            .copied()
            .flatten()
            .map(|(a, b)| Value::str(self.text.slice(a, b)))
    }

    /// A group argument (number or name) as a group number.
    fn index(&self, g: &Value, vm: &dyn Vm) -> PyResult<usize> {
        let no = || PyErr::new(ExcType::IndexError, "no such group");
        match g.as_builtin() {
            Value::Str(name) => self.pat().and_then(|p| p.group_index(name)).ok_or_else(no),
            v => match as_index(v, vm)? {
                Some(i) if i >= 0 && (i as usize) < self.spans.len() => Ok(i as usize),
                _ => Err(no()),
            },
        }
    }

    fn group_value(&self, g: &Value, default: &Value, vm: &dyn Vm) -> PyResult<Value> {
        let i = self.index(g, vm)?;
        Ok(self.group_str(i).unwrap_or_else(|| default.clone()))
    }

    fn span_of(&self, a: &Args, vm: &dyn Vm) -> PyResult<(i64, i64)> {
        let i = self.index(a.get(1), vm)?;
        Ok(self.spans[i].map_or((-1, -1), |(s, e)| (s as i64, e as i64)))
    }

    /// `lastindex`: the matched group that closed last.
    fn lastindex(&self) -> Option<usize> {
        let pat = self.pat()?;
        (1..self.spans.len())
            .filter_map(|g| {
                self.spans[g].map(|(_, e)| (e, pat.close_at.get(g - 1).copied().unwrap_or(0), g))
            })
            .max()
            .map(|(_, _, g)| g)
    }
}

fn this(a: &Args) -> PyResult<&MatchObj> {
    a.get(0).downcast::<MatchObj>().ok_or_else(|| {
        PyErr::new(
            ExcType::TypeError,
            format!(
                "descriptor for 're.Match' objects doesn't apply to a '{}' object",
                a.get(0).type_name()
            ),
        )
    })
}

fn m_group(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let m = this(a)?;
    let gs = a.varargs(1);
    match gs.len() {
        0 => m.group_value(&Value::Int(0), &Value::None, vm),
        1 => m.group_value(&gs[0], &Value::None, vm),
        _ => Ok(Value::tuple(
            gs.iter()
                .map(|g| m.group_value(g, &Value::None, vm))
                .collect::<PyResult<_>>()?,
        )),
    }
}

fn m_groups(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let m = this(a)?;
    Ok(Value::tuple(
        (1..m.spans.len())
            .map(|g| m.group_str(g).unwrap_or_else(|| a.get(1).clone()))
            .collect(),
    ))
}

fn m_groupdict(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let m = this(a)?;
    let mut d = Dict::new();
    if let Some(p) = m.pat() {
        for (n, g) in &p.names {
            d.insert_str(n, m.group_str(*g).unwrap_or_else(|| a.get(1).clone()));
        }
    }
    Ok(Value::dict(d))
}

fn m_start(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Int(this(a)?.span_of(a, vm)?.0))
}

fn m_end(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Int(this(a)?.span_of(a, vm)?.1))
}

fn m_span(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (s, e) = this(a)?.span_of(a, vm)?;
    Ok(Value::tuple(vec![Value::Int(s), Value::Int(e)]))
}

fn m_expand(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let m = this(a)?;
    let tpl = text_arg(a.get(1))?;
    let pat = m
        .pat()
        .ok_or_else(|| PyErr::new(ExcType::TypeError, "match without a pattern"))?;
    let pieces = parse_template(pat, &tpl)?;
    Ok(Value::str(expand(m, &pieces)))
}

impl NativeObject for MatchObj {
    fn type_name(&self) -> &str {
        "re.Match"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn class(&self) -> Option<Rc<Class>> {
        Some(match_class())
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let (s, e) = self.spans[0].unwrap_or((0, 0));
        // CPython formats the text with `%.50R`: its repr cut at 50 characters.
        let text: String = str_repr(self.text.slice(s, e)).chars().take(50).collect();
        Ok(format!("<re.Match object; span=({s}, {e}), match={text}>"))
    }

    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "string" => Some(self.subject.clone()),
            "re" => Some(self.pattern.clone()),
            "pos" => Some(Value::Int(self.pos as i64)),
            "endpos" => Some(Value::Int(self.endpos as i64)),
            "lastindex" => Some(
                self.lastindex()
                    .map_or(Value::None, |g| Value::Int(g as i64)),
            ),
            "lastgroup" => Some(
                self.lastindex()
                    .and_then(|g| {
                        self.pat()?
                            .names
                            .iter()
                            .find(|(_, i)| *i == g)
                            .map(|(n, _)| Value::str(n))
                    })
                    .unwrap_or(Value::None),
            ),
            "regs" => Some(Value::tuple(
                self.spans
                    .iter()
                    .map(|s| {
                        let (a, b) = s.map_or((-1, -1), |(a, b)| (a as i64, b as i64));
                        Value::tuple(vec![Value::Int(a), Value::Int(b)])
                    })
                    .collect(),
            )),
            _ => match match_class().lookup(name) {
                Some(Value::NativeFunction(f)) => Some(f.bind(this.clone())),
                other => other,
            },
        })
    }

    fn dir(&self) -> Vec<String> {
        let mut v: Vec<String> = [
            "string",
            "re",
            "pos",
            "endpos",
            "lastindex",
            "lastgroup",
            "regs",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(match_class().dict.borrow().keys().map(|k| k.to_string()));
        v
    }

    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        self.group_value(key, &Value::None, vm).map(Some)
    }
}

fn make_class() -> Rc<Class> {
    let c = Class::new_builtin("Match", "re", None, ClassKind::Native);
    add_method(
        &c,
        "Match.group(self, *args)",
        m_group,
        "One group's text, or a tuple of several.",
    );
    add_method(
        &c,
        "Match.groups(self, default=None)",
        m_groups,
        "The texts of all groups.",
    );
    add_method(
        &c,
        "Match.groupdict(self, default=None)",
        m_groupdict,
        "The named groups' texts by name.",
    );
    add_method(
        &c,
        "Match.start(self, group=0, /)",
        m_start,
        "Where a group starts (-1: unmatched).",
    );
    add_method(
        &c,
        "Match.end(self, group=0, /)",
        m_end,
        "Where a group ends (-1: unmatched).",
    );
    add_method(
        &c,
        "Match.span(self, group=0, /)",
        m_span,
        "`(start, end)` of a group.",
    );
    add_method(
        &c,
        "Match.expand(self, template)",
        m_expand,
        "The template with `\\1`, `\\g<name>` filled in.",
    );
    c
}
