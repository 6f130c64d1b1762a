//! `re.Pattern`: a translated pattern compiled twice (for `search`/`match`
//! and for `fullmatch`), its attributes and methods, and the match loop that
//! `findall`/`finditer`/`sub`/`split` share (CPython 3.7's rule for empty
//! matches). Replacement templates are in `template`.

use std::rc::Rc;

use super::matchobj::{MatchObj, Text};
use super::syntax::{self, Translated};
use super::template::{expand, parse_template};
use super::{re_error, text_arg};
use crate::distribute::classes::{getters, native_class};
use crate::object::types::int_arg;
use crate::object::{native, ClassSpec, Member, This};
use crate::value::format::str_repr;
use crate::value::{Dict, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// How many backtracking steps one search may take before it fails with
/// an error instead of running for ever (a catastrophic pattern).
const BACKTRACK_LIMIT: usize = 10_000_000;

/// The `re.Pattern` class.
pub static PATTERN: ClassSpec = ClassSpec {
    name: "Pattern",
    module: "re",
    bases: &[],
    members: &[
        Member::Method(p_search::DEF),
        Member::Method(p_match::DEF),
        Member::Method(p_fullmatch::DEF),
        Member::Method(p_findall::DEF),
        Member::Method(p_finditer::DEF),
        Member::Method(p_sub::DEF),
        Member::Method(p_subn::DEF),
        Member::Method(p_split::DEF),
        Member::Getter(p_pattern::DEF),
        Member::Getter(p_flags::DEF),
        Member::Getter(p_groups::DEF),
        Member::Getter(p_groupindex::DEF),
    ],
};

native_class!(Pattern: PATTERN);

/// A compiled pattern.
pub struct Pattern {
    /// The pattern as given (`.pattern`).
    pub source: Value,
    /// The flags (`.flags`), inline ones and `re.UNICODE` included.
    pub flags: i64,
    /// The number of groups.
    pub groups: usize,
    /// Group names and numbers.
    pub names: Vec<(String, usize)>,
    /// Where each group's `)` is in the pattern.
    pub close_at: Vec<usize>,
    search: fancy_regex::Regex,
    full: fancy_regex::Regex,
    /// A non-empty match exactly at the start position, compiled on first
    /// need: the retry after an empty match. `\G(?:(?:SRC)(?!\G)|(?!))`:
    /// the never-matching alternative keeps fancy-regex from handing the
    /// pattern whole to the `regex` crate, which would not backtrack into
    /// it past its first (empty) match.
    nonempty: std::cell::OnceCell<fancy_regex::Regex>,
    /// The translated source the regexes were built from.
    translated: String,
}

/// The spans of groups 0..=groups (None: the group did not take part).
type Spans = Vec<Option<(usize, usize)>>;

/// Which anchoring a search has.
#[derive(Clone, Copy, PartialEq)]
pub enum Mode {
    /// Anywhere.
    Search,
    /// At `pos`.
    Match,
    /// From `pos` to `endpos`.
    Full,
}

fn build(src: &str, pattern: &str) -> PyResult<fancy_regex::Regex> {
    fancy_regex::RegexBuilder::new(src)
        .backtrack_limit(BACKTRACK_LIMIT)
        .build()
        .map_err(|e| {
            let msg = match e {
                fancy_regex::Error::CompileError(c) => match *c {
                    fancy_regex::CompileError::LookBehindNotConst => {
                        "look-behind requires fixed-width pattern".to_string()
                    }
                    other => format!("re: pattern not supported: {other}"),
                },
                other => format!("re: pattern not supported: {other}"),
            };
            re_error(&msg, Some(pattern), None)
        })
}

impl Pattern {
    /// Translates and compiles `src` (the str of `source`).
    pub fn new(source: Value, src: &str, flags: i64) -> PyResult<Pattern> {
        let t: Translated = syntax::translate(src, flags).map_err(|e| {
            if e.pos == syntax::VALUE_ERROR {
                PyErr::new(ExcType::ValueError, e.msg)
            } else if e.pos == syntax::NO_POS {
                re_error(&e.msg, Some(src), None)
            } else {
                re_error(&e.msg, Some(src), Some(e.pos))
            }
        })?;
        let search = build(&t.source, src)?;
        let full = build(&format!("(?:{})\\z", t.source), src)?;
        Ok(Pattern {
            source,
            flags: t.flags,
            groups: t.groups,
            names: t.names,
            close_at: t.close_at,
            search,
            full,
            nonempty: std::cell::OnceCell::new(),
            translated: t.source,
        })
    }

    /// The group number of a name.
    pub fn group_index(&self, name: &str) -> Option<usize> {
        self.names.iter().find(|(n, _)| n == name).map(|(_, g)| *g)
    }

    /// One search from byte `pos` in `hay` (already cut at endpos): the
    /// byte spans of the groups.
    fn exec(&self, hay: &str, pos: usize, mode: Mode) -> PyResult<Option<Spans>> {
        let re = if mode == Mode::Full {
            &self.full
        } else {
            &self.search
        };
        let caps = re
            .captures_from_pos(hay, pos)
            .map_err(|_| backtrack_error())?;
        let Some(caps) = caps else { return Ok(None) };
        let spans: Vec<_> = (0..=self.groups)
            .map(|i| caps.get(i).map(|m| (m.start(), m.end())))
            .collect();
        if mode != Mode::Search && spans[0].is_some_and(|(s, _)| s != pos) {
            return Ok(None);
        }
        Ok(Some(spans))
    }

    /// The first match at `pos` (in the pattern's order of preference)
    /// that is not empty.
    fn nonempty_at(&self, hay: &str, pos: usize) -> PyResult<Option<Spans>> {
        let re = match self.nonempty.get() {
            Some(re) => re,
            None => {
                let re = build(
                    &format!("\\G(?:(?:{})(?!\\G)|(?!))", self.translated),
                    &self.translated,
                )?;
                self.nonempty.get_or_init(|| re)
            }
        };
        let caps = re
            .captures_from_pos(hay, pos)
            .map_err(|_| backtrack_error())?;
        Ok(caps.and_then(|caps| {
            let spans: Spans = (0..=self.groups)
                .map(|i| caps.get(i).map(|m| (m.start(), m.end())))
                .collect();
            // `\G` anchors at `pos`; a match elsewhere is not this one.
            spans[0]
                .is_some_and(|(s, e)| s == pos && e > pos)
                .then_some(spans)
        }))
    }

    /// Every match from `pos` (at most `limit`, 0: all), as byte spans.
    fn all(&self, hay: &str, pos: usize, limit: usize) -> PyResult<Vec<Spans>> {
        let mut out = Vec::new();
        let mut p = pos;
        let mut must_advance = false;
        while p <= hay.len() && (limit == 0 || out.len() < limit) {
            let Some(m) = self.exec(hay, p, Mode::Search)? else {
                break;
            };
            let (s, e) = m[0].unwrap_or((p, p));
            if must_advance && s == e && s == p {
                // CPython 3.7+: no empty match where the previous empty one
                // was; a non-empty one there is taken (`a*|b` on "b"), else
                // the search goes on one character further.
                if let Some(m) = self.nonempty_at(hay, p)? {
                    must_advance = false;
                    p = m[0].map_or(p, |(_, e)| e);
                    out.push(m);
                    continue;
                }
                match hay[p..].chars().next() {
                    Some(c) => p += c.len_utf8(),
                    None => break,
                }
                must_advance = false;
                continue;
            }
            must_advance = s == e;
            p = e;
            out.push(m);
        }
        Ok(out)
    }
}

#[cold]
fn backtrack_error() -> PyErr {
    PyErr::new(
        ExcType::RuntimeError,
        format!("re: the pattern backtracks too much on this string (more than {BACKTRACK_LIMIT} steps); rewrite it without nested repeats"),
    )
}

/// `pos`/`endpos` clamped as CPython does, in characters.
fn bounds(vm: &dyn Vm, text: &Text, pos: &Value, endpos: &Value) -> PyResult<(usize, usize)> {
    let n = text.len() as i64;
    let p = int_arg(pos, vm)?.clamp(0, n) as usize;
    let e = int_arg(endpos, vm)?.clamp(0, n) as usize;
    Ok((p, e))
}

fn to_chars(text: &Text, spans: Vec<Option<(usize, usize)>>) -> Vec<Option<(usize, usize)>> {
    spans
        .into_iter()
        .map(|s| s.map(|(a, b)| (text.char_of(a), text.char_of(b))))
        .collect()
}

fn run_one(
    vm: &dyn Vm,
    this: This<Pattern>,
    string: &Value,
    pos: &Value,
    endpos: &Value,
    mode: Mode,
) -> PyResult<Value> {
    let text = Rc::new(Text::new(text_arg(string)?));
    let (pos, endpos) = bounds(vm, &text, pos, endpos)?;
    if endpos < pos {
        return Ok(Value::None);
    }
    let hay = &text.s[..text.byte_of(endpos)];
    match this.exec(hay, text.byte_of(pos), mode)? {
        None => Ok(Value::None),
        Some(spans) => Ok(Value::native(MatchObj {
            spans: to_chars(&text, spans),
            pattern: this.value.clone(),
            subject: string.clone(),
            text,
            pos,
            endpos,
        })),
    }
}

/// The natives `Pattern.search`, `match` and `fullmatch`: one search in
/// `mode`.
macro_rules! one_match {
    ($($(#[doc = $doc:tt])* fn $name:ident($sig:tt, $mode:expr);)*) => {$(
        $(#[doc = $doc])*
        #[native($sig, c)]
        fn $name(
            vm: &dyn Vm,
            this: This<Pattern>,
            string: &Value,
            pos: &Value,
            endpos: &Value,
        ) -> PyResult<Value> {
            run_one(vm, this, string, pos, endpos, $mode)
        }
    )*};
}

one_match! {
    /// The first match at or after pos, or None.
    fn p_search("Pattern.search(self, string, pos=0, endpos=9223372036854775807)", Mode::Search);
    /// A match starting at pos, or None.
    fn p_match("Pattern.match(self, string, pos=0, endpos=9223372036854775807)", Mode::Match);
    /// A match of the whole of string[pos:endpos], or None.
    fn p_fullmatch(
        "Pattern.fullmatch(self, string, pos=0, endpos=9223372036854775807)",
        Mode::Full
    );
}

/// The matches of the pattern `pat_v` in `subject` between pos and endpos as Match objects.
fn matches(
    vm: &dyn Vm,
    pat_v: &Value,
    subject: &Value,
    pos: &Value,
    endpos: &Value,
    limit: usize,
) -> PyResult<Vec<MatchObj>> {
    let pat = pat_v
        .downcast::<Pattern>()
        .ok_or_else(|| PyErr::new(ExcType::TypeError, "expected a re.Pattern"))?;
    let text = Rc::new(Text::new(text_arg(subject)?));
    let (pos, endpos) = bounds(vm, &text, pos, endpos)?;
    if endpos < pos {
        return Ok(Vec::new());
    }
    let hay = &text.s[..text.byte_of(endpos)];
    let found = pat.all(hay, text.byte_of(pos), limit)?;
    Ok(found
        .into_iter()
        .map(|spans| MatchObj {
            spans: to_chars(&text, spans),
            pattern: pat_v.clone(),
            subject: subject.clone(),
            text: text.clone(),
            pos,
            endpos,
        })
        .collect())
}

/// All matches: strings, or tuples of groups.
#[native("Pattern.findall(self, string, pos=0, endpos=9223372036854775807)", c)]
fn p_findall(
    vm: &dyn Vm,
    this: This<Pattern>,
    string: &Value,
    pos: &Value,
    endpos: &Value,
) -> PyResult<Vec<Value>> {
    let groups = this.groups;
    let ms = matches(vm, this.value, string, pos, endpos, 0)?;
    let empty = Value::str("");
    Ok(ms
        .iter()
        .map(|m| match groups {
            0 => m.group_str(0).unwrap_or(empty.clone()),
            1 => m.group_str(1).unwrap_or(empty.clone()),
            n => Value::tuple(
                (1..=n)
                    .map(|g| m.group_str(g).unwrap_or(empty.clone()))
                    .collect(),
            ),
        })
        .collect())
}

/// An iterator over the matches.
#[native("Pattern.finditer(self, string, pos=0, endpos=9223372036854775807)", c)]
fn p_finditer(
    vm: &dyn Vm,
    this: This<Pattern>,
    string: &Value,
    pos: &Value,
    endpos: &Value,
) -> PyResult<Value> {
    let ms = matches(vm, this.value, string, pos, endpos, 0)?;
    let list = Value::list(ms.into_iter().map(Value::native).collect());
    vm.iter(&list)
}

fn subn_impl(
    vm: &dyn Vm,
    this: This<Pattern>,
    repl: &Value,
    string: &Value,
    count: &Value,
) -> PyResult<(String, usize)> {
    let count = int_arg(count, vm)?;
    let text = text_arg(string)?;
    let pieces = match repl.as_builtin() {
        Value::Str(t) => Some(parse_template(&this, t)?),
        Value::Bytes(_) => {
            return Err(text_arg(repl)
                .err()
                .unwrap_or_else(|| PyErr::new(ExcType::TypeError, "bytes")))
        }
        _ => None,
    };
    if count < 0 {
        return Ok((text.to_string(), 0));
    }
    let ms = matches(
        vm,
        this.value,
        string,
        &Value::Int(0),
        &Value::Int(i64::MAX),
        count as usize,
    )?;
    let mut out = String::new();
    let mut last = 0;
    let n = ms.len();
    // CPython joins a list of the pieces at the end: a non-str replacement
    // is reported then, with its index in that list.
    let mut items = 0usize;
    let mut bad: Option<(usize, String)> = None;
    for m in ms {
        let (s, e) = m.spans[0].unwrap_or((0, 0));
        if s > last {
            items += 1;
        }
        out.push_str(m.text.slice(last, s));
        match &pieces {
            Some(p) => out.push_str(&expand(&m, p)),
            None => match vm
                .call(repl, vec![Value::native(m)], Vec::new())?
                .as_builtin()
            {
                Value::Str(s) => {
                    out.push_str(s);
                    items += 1;
                }
                Value::None => {}
                other => {
                    bad.get_or_insert((items, other.type_name()));
                    items += 1;
                }
            },
        }
        last = e;
    }
    if let Some((i, t)) = bad {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!("sequence item {i}: expected str instance, {t} found"),
        ));
    }
    let t = Text::new(text);
    out.push_str(t.slice(last, t.len()));
    Ok((out, n))
}

/// The string with matches replaced.
#[native("Pattern.sub(self, repl, string, count=0)", c)]
fn p_sub(
    vm: &dyn Vm,
    this: This<Pattern>,
    repl: &Value,
    string: &Value,
    count: &Value,
) -> PyResult<String> {
    Ok(subn_impl(vm, this, repl, string, count)?.0)
}

/// `(new_string, number_of_subs)`.
#[native("Pattern.subn(self, repl, string, count=0)", c)]
fn p_subn(
    vm: &dyn Vm,
    this: This<Pattern>,
    repl: &Value,
    string: &Value,
    count: &Value,
) -> PyResult<Value> {
    let (s, n) = subn_impl(vm, this, repl, string, count)?;
    Ok(Value::tuple(vec![Value::str(s), Value::Int(n as i64)]))
}

/// The string split at the matches.
#[native("Pattern.split(self, string, maxsplit=0)", c)]
fn p_split(
    vm: &dyn Vm,
    this: This<Pattern>,
    string: &Value,
    maxsplit: &Value,
) -> PyResult<Vec<Value>> {
    let groups = this.groups;
    let maxsplit = int_arg(maxsplit, vm)?;
    let text = Text::new(text_arg(string)?);
    if maxsplit < 0 {
        return Ok(vec![string.clone()]);
    }
    let ms = matches(
        vm,
        this.value,
        string,
        &Value::Int(0),
        &Value::Int(i64::MAX),
        maxsplit as usize,
    )?;
    let mut out = Vec::new();
    let mut last = 0;
    for m in ms {
        let (s, e) = m.spans[0].unwrap_or((0, 0));
        out.push(Value::str(text.slice(last, s)));
        for g in 1..=groups {
            out.push(m.group_str(g).unwrap_or(Value::None));
        }
        last = e;
    }
    out.push(Value::str(text.slice(last, text.len())));
    Ok(out)
}

getters! { this: &Pattern;
    /// The pattern as given.
    fn p_pattern("Pattern.pattern(self)") -> Value { this.source.clone() }
    /// The flags, inline ones included.
    fn p_flags("Pattern.flags(self)") -> i64 { this.flags }
    /// The number of groups.
    fn p_groups("Pattern.groups(self)") -> usize { this.groups }
}

/// The group numbers by name.
#[native("Pattern.groupindex(self)")]
fn p_groupindex(this: &Pattern) -> Value {
    let mut d = Dict::new();
    for (n, g) in &this.names {
        d.set_name(n, Value::Int(*g as i64));
    }
    Value::dict(d)
}

/// The flags part of a Pattern's repr, in CPython's order.
fn flags_repr(flags: i64) -> String {
    const ORDER: &[(&str, i64)] = &[
        ("TEMPLATE", 1),
        ("IGNORECASE", syntax::I),
        ("LOCALE", syntax::L),
        ("MULTILINE", syntax::M),
        ("DOTALL", syntax::S),
        ("UNICODE", syntax::U),
        ("VERBOSE", syntax::X),
        ("DEBUG", syntax::DEBUG),
        ("ASCII", syntax::A),
    ];
    let f = flags & !syntax::U;
    ORDER
        .iter()
        .filter(|(_, v)| f & v != 0)
        .map(|(n, _)| format!("re.{n}"))
        .collect::<Vec<_>>()
        .join("|")
}

impl NativeObject for Pattern {
    fn type_name(&self) -> &str {
        "re.Pattern"
    }

    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&PATTERN)
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        let src = match &self.source {
            Value::Str(s) => str_repr(s),
            other => vm.repr(other)?,
        };
        let src: String = if src.chars().count() > 200 {
            src.chars().take(200).collect()
        } else {
            src
        };
        let f = flags_repr(self.flags);
        Ok(if f.is_empty() {
            format!("re.compile({src})")
        } else {
            format!("re.compile({src}, {f})")
        })
    }

    fn equals(&self, this: &Value, other: &Value, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        let same = match other.downcast::<Pattern>() {
            Some(o) => {
                this.is(other)
                    || (o.flags == self.flags && o.source.is(&self.source))
                    || matches!((&o.source, &self.source), (Value::Str(a), Value::Str(b)) if a == b && o.flags == self.flags)
            }
            None => return Ok(None),
        };
        Ok(Some(same))
    }
}
