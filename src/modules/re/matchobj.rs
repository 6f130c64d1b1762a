//! `re.Match` (groups, spans, `groupdict`, `expand`, `m[1]`, its repr) and
//! `Text`, a subject string with its character ↔ byte offsets (the engine
//! works in bytes, Python in characters).

use std::rc::Rc;

use super::pattern::Pattern;
use super::template::{expand, parse_template};
use super::text_arg;
use crate::distribute::classes::{getters, native_class};
use crate::object::types::as_index;
use crate::object::{native, ClassSpec, Member};
use crate::value::format::str_repr;
use crate::value::{Dict, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// The `re.Match` class.
pub static MATCH: ClassSpec = ClassSpec {
    name: "Match",
    module: "re",
    bases: &[],
    members: &[
        Member::Method(m_group::DEF),
        Member::Method(m_groups::DEF),
        Member::Method(m_groupdict::DEF),
        Member::Method(m_start::DEF),
        Member::Method(m_end::DEF),
        Member::Method(m_span::DEF),
        Member::Method(m_expand::DEF),
        Member::Getter(m_string::DEF),
        Member::Getter(m_re::DEF),
        Member::Getter(m_pos::DEF),
        Member::Getter(m_endpos::DEF),
        Member::Getter(m_lastindex::DEF),
        Member::Getter(m_lastgroup::DEF),
        Member::Getter(m_regs::DEF),
    ],
};

native_class!(MatchObj: MATCH);

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

    fn span_of(&self, group: &Value, vm: &dyn Vm) -> PyResult<(i64, i64)> {
        let i = self.index(group, vm)?;
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

/// One group's text, or a tuple of several.
#[native("Match.group(self, *args)", c)]
fn m_group(vm: &dyn Vm, this: &MatchObj, args: &[Value]) -> PyResult<Value> {
    match args.len() {
        0 => this.group_value(&Value::Int(0), &Value::None, vm),
        1 => this.group_value(&args[0], &Value::None, vm),
        _ => Ok(Value::tuple(
            args.iter()
                .map(|g| this.group_value(g, &Value::None, vm))
                .collect::<PyResult<_>>()?,
        )),
    }
}

/// The texts of all groups.
#[native("Match.groups(self, default=None)", c)]
fn m_groups(this: &MatchObj, default: &Value) -> Value {
    Value::tuple(
        (1..this.spans.len())
            .map(|g| this.group_str(g).unwrap_or_else(|| default.clone()))
            .collect(),
    )
}

/// The named groups' texts by name.
#[native("Match.groupdict(self, default=None)", c)]
fn m_groupdict(this: &MatchObj, default: &Value) -> Value {
    let mut d = Dict::new();
    if let Some(p) = this.pat() {
        for (n, g) in &p.names {
            d.set_name(n, this.group_str(*g).unwrap_or_else(|| default.clone()));
        }
    }
    Value::dict(d)
}

/// Where a group starts (-1: unmatched).
#[native("Match.start(self, group=0, /)", c)]
fn m_start(vm: &dyn Vm, this: &MatchObj, group: &Value) -> PyResult<i64> {
    Ok(this.span_of(group, vm)?.0)
}

/// Where a group ends (-1: unmatched).
#[native("Match.end(self, group=0, /)", c)]
fn m_end(vm: &dyn Vm, this: &MatchObj, group: &Value) -> PyResult<i64> {
    Ok(this.span_of(group, vm)?.1)
}

/// `(start, end)` of a group.
#[native("Match.span(self, group=0, /)", c)]
fn m_span(vm: &dyn Vm, this: &MatchObj, group: &Value) -> PyResult<Value> {
    let (s, e) = this.span_of(group, vm)?;
    Ok(Value::tuple(vec![Value::Int(s), Value::Int(e)]))
}

/// The template with `\1`, `\g<name>` filled in.
#[native("Match.expand(self, template)", c)]
fn m_expand(this: &MatchObj, template: &Value) -> PyResult<String> {
    let tpl = text_arg(template)?;
    let pat = this
        .pat()
        .ok_or_else(|| PyErr::new(ExcType::TypeError, "match without a pattern"))?;
    let pieces = parse_template(pat, &tpl)?;
    Ok(expand(this, &pieces))
}

getters! { this: &MatchObj;
    /// The subject string.
    fn m_string("Match.string(self)") -> Value { this.subject.clone() }
    /// The pattern that matched.
    fn m_re("Match.re(self)") -> Value { this.pattern.clone() }
    /// Where the search started.
    fn m_pos("Match.pos(self)") -> usize { this.pos }
    /// Where the search ended.
    fn m_endpos("Match.endpos(self)") -> usize { this.endpos }
    /// The number of the last matched group (None: no group matched).
    fn m_lastindex("Match.lastindex(self)") -> Option<usize> { this.lastindex() }
}

/// The name of the last matched group (None: unnamed or no group).
#[native("Match.lastgroup(self)")]
fn m_lastgroup(this: &MatchObj) -> Value {
    this.lastindex()
        .and_then(|g| {
            this.pat()?
                .names
                .iter()
                .find(|(_, i)| *i == g)
                .map(|(n, _)| Value::str(n))
        })
        .unwrap_or(Value::None)
}

/// The `(start, end)` of every group.
#[native("Match.regs(self)")]
fn m_regs(this: &MatchObj) -> Value {
    Value::tuple(
        this.spans
            .iter()
            .map(|s| {
                let (a, b) = s.map_or((-1, -1), |(a, b)| (a as i64, b as i64));
                Value::tuple(vec![Value::Int(a), Value::Int(b)])
            })
            .collect(),
    )
}

impl NativeObject for MatchObj {
    fn type_name(&self) -> &str {
        "re.Match"
    }

    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&MATCH)
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let (s, e) = self.spans[0].unwrap_or((0, 0));
        // CPython formats the text with `%.50R`: its repr cut at 50 characters.
        let text: String = str_repr(self.text.slice(s, e)).chars().take(50).collect();
        Ok(format!("<re.Match object; span=({s}, {e}), match={text}>"))
    }

    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        self.group_value(key, &Value::None, vm).map(Some)
    }
}
