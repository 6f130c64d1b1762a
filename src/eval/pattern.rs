//! The `match` statement (PEP 634): the subject is evaluated once, then each
//! `case` pattern is tried in order. A pattern collects its captures and
//! binds them only when the whole pattern matched (before the guard runs),
//! as CPython does: a failed case leaves no bindings, a failed guard does.
//! What a pattern may look like is checked at lowering (`syntax/lower/pattern.rs`).

use std::rc::Rc;

use super::frame::Frame;
use super::{Flow, Interp};
use crate::object::types::{type_error, value_error};
use crate::syntax::ast::{Constant, Expr, MatchCase, Name, Pattern, PatternKind};
use crate::value::{ClassKind, Dict, ExcType, PyResult, Value, ValueType};

/// The captures of a pattern being matched, in order.
type Binds<'a> = Vec<(&'a Name, Value)>;

impl Interp {
    /// Executes `match subject: case ...`.
    pub(super) fn exec_match(
        &self,
        f: &mut Frame,
        subject: &Expr,
        cases: &[MatchCase],
    ) -> PyResult<Flow> {
        let subject = self.eval(f, subject)?;
        for c in cases {
            let mut binds = Vec::new();
            if !self.match_pattern(f, &c.pattern, &subject, &mut binds)? {
                continue;
            }
            for (name, v) in binds {
                self.store_name(f, name, v)?;
            }
            if let Some(g) = &c.guard {
                if !self.eval_cond(f, g)? {
                    continue;
                }
            }
            return self.exec_block(f, &c.body);
        }
        Ok(Flow::Normal)
    }

    /// Whether `v` matches `p`; captures are pushed onto `binds` (and left
    /// there only when it matched).
    fn match_pattern<'a>(
        &self,
        f: &mut Frame,
        p: &'a Pattern,
        v: &Value,
        binds: &mut Binds<'a>,
    ) -> PyResult<bool> {
        let mark = binds.len();
        let matched = self
            .match_inner(f, p, v, binds)
            .map_err(|e| self.locate(f, p.span, e))?;
        if !matched {
            binds.truncate(mark);
        }
        Ok(matched)
    }

    fn match_inner<'a>(
        &self,
        f: &mut Frame,
        p: &'a Pattern,
        v: &Value,
        binds: &mut Binds<'a>,
    ) -> PyResult<bool> {
        match &p.kind {
            PatternKind::MatchValue(e) => {
                let value = self.eval(f, e)?;
                self.values_eq(v, &value)
            }
            PatternKind::MatchSingleton(c) => Ok(match (c, v) {
                (Constant::None, Value::None) => true,
                (Constant::Bool(a), Value::Bool(b)) => a == b,
                _ => false,
            }),
            PatternKind::MatchAs { pattern, name } => {
                if let Some(sub) = pattern {
                    if !self.match_pattern(f, sub, v, binds)? {
                        return Ok(false);
                    }
                }
                if let Some(n) = name {
                    binds.push((n, v.clone()));
                }
                Ok(true)
            }
            PatternKind::MatchOr(alts) => {
                for alt in alts {
                    if self.match_pattern(f, alt, v, binds)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            PatternKind::MatchSequence(items) => self.match_sequence(f, items, v, binds),
            // Only inside a sequence pattern, which handles it.
            PatternKind::MatchStar(_) => Ok(false),
            PatternKind::MatchMapping {
                keys,
                patterns,
                rest,
            } => self.match_mapping(f, keys, patterns, rest.as_ref(), v, binds),
            PatternKind::MatchClass {
                cls,
                patterns,
                kwd_attrs,
                kwd_patterns,
            } => {
                let cls = self.eval(f, cls)?;
                let names: Vec<&str> = kwd_attrs.iter().map(|a| &*a.name).collect();
                let Some(attrs) = self.match_class(v, &cls, patterns.len(), &names)? else {
                    return Ok(false);
                };
                for (sub, attr) in patterns.iter().chain(kwd_patterns).zip(&attrs) {
                    if !self.match_pattern(f, sub, attr, binds)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
        }
    }

    /// The items of a subject a sequence pattern can match: lists, tuples
    /// (named tuples too), ranges and deques (flagged in `collections`), but
    /// not str, bytes or dicts.
    fn sequence_items(&self, v: &Value) -> PyResult<Option<Vec<Value>>> {
        match v {
            Value::List(l) => Ok(Some(l.borrow().clone())),
            Value::Tuple(t) => Ok(Some(t.to_vec())),
            Value::Native(_) | Value::Instance(_) => {
                let class = self.class_of(v);
                let is_seq = class.mro().iter().any(|c| match c.kind {
                    ClassKind::Builtin(ValueType::List | ValueType::Tuple) => true,
                    ClassKind::Native => &*c.name == "range",
                    _ => false,
                }) || flagged(&class, "__dist_sequence__");
                if is_seq {
                    self.collect_iterable(v).map(Some)
                } else {
                    Ok(None)
                }
            }
            _ => Ok(None),
        }
    }

    fn match_sequence<'a>(
        &self,
        f: &mut Frame,
        items: &'a [Pattern],
        v: &Value,
        binds: &mut Binds<'a>,
    ) -> PyResult<bool> {
        let Some(values) = self.sequence_items(v)? else {
            return Ok(false);
        };
        let star = items
            .iter()
            .position(|p| matches!(p.kind, PatternKind::MatchStar(_)));
        match star {
            None => {
                if values.len() != items.len() {
                    return Ok(false);
                }
                for (p, x) in items.iter().zip(&values) {
                    if !self.match_pattern(f, p, x, binds)? {
                        return Ok(false);
                    }
                }
            }
            Some(si) => {
                if values.len() < items.len() - 1 {
                    return Ok(false);
                }
                let after = items.len() - si - 1;
                let tail_start = values.len() - after;
                for (p, x) in items[..si].iter().zip(&values[..si]) {
                    if !self.match_pattern(f, p, x, binds)? {
                        return Ok(false);
                    }
                }
                if let PatternKind::MatchStar(Some(n)) = &items[si].kind {
                    binds.push((n, Value::list(values[si..tail_start].to_vec())));
                }
                for (p, x) in items[si + 1..].iter().zip(&values[tail_start..]) {
                    if !self.match_pattern(f, p, x, binds)? {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }

    /// Whether a subject is a mapping a mapping pattern can match: a dict,
    /// or one of `collections`' mappings (defaultdict, OrderedDict, Counter),
    /// whose base class carries the flag.
    fn is_mapping(&self, v: &Value) -> bool {
        match v {
            Value::Dict(_) => true,
            Value::Instance(i) => flagged(&i.class, "__dist_mapping__"),
            _ => false,
        }
    }

    fn match_mapping<'a>(
        &self,
        f: &mut Frame,
        keys: &[Expr],
        patterns: &'a [Pattern],
        rest: Option<&'a Name>,
        v: &Value,
        binds: &mut Binds<'a>,
    ) -> PyResult<bool> {
        if !self.is_mapping(v) {
            return Ok(false);
        }
        if (!keys.is_empty() || rest.is_some()) && self.length(v)? < keys.len() {
            return Ok(false);
        }
        let mut key_values = Vec::with_capacity(keys.len());
        for k in keys {
            let k = self.eval(f, k)?;
            for seen in &key_values {
                if self.values_eq(seen, &k)? {
                    return Err(value_error(format!(
                        "mapping pattern checks duplicate key ({})",
                        self.repr_value(&k)?
                    )));
                }
            }
            key_values.push(k);
        }
        // Looked up as `subject.get(key)` would: a defaultdict's factory is not called.
        let mut values = Vec::with_capacity(keys.len());
        for k in &key_values {
            let found = match v {
                Value::Dict(d) => d.borrow().get(k)?,
                _ if self.contains_value(v, k)? => Some(self.get_item(v, k)?),
                _ => None,
            };
            match found {
                Some(x) => values.push(x),
                None => return Ok(false),
            }
        }
        for (p, x) in patterns.iter().zip(&values) {
            if !self.match_pattern(f, p, x, binds)? {
                return Ok(false);
            }
        }
        if let Some(n) = rest {
            let mut d = Dict::new();
            for (k, x) in self.mapping_items(v)? {
                d.insert(k, x)?;
            }
            for k in &key_values {
                d.remove(k)?;
            }
            binds.push((n, Value::dict(d)));
        }
        Ok(true)
    }

    /// CPython's `match_class`: None when `v` is not an instance of `cls` or
    /// lacks an attribute; else the values the sub-patterns match, the
    /// positional ones (named by `__match_args__`) first.
    fn match_class(
        &self,
        v: &Value,
        cls: &Value,
        nargs: usize,
        kwd_attrs: &[&str],
    ) -> PyResult<Option<Vec<Value>>> {
        let Value::Class(class) = cls else {
            return Err(type_error("called match pattern must be a type"));
        };
        if !self.is_instance(v, cls)? {
            return Ok(None);
        }
        let mut seen: Vec<Rc<str>> = Vec::new();
        let mut attrs = Vec::with_capacity(nargs + kwd_attrs.len());
        if nargs > 0 {
            let (match_args, match_self) = match self.lookup_attribute(cls, "__match_args__")? {
                Some(Value::Tuple(t)) => (t.to_vec(), false),
                Some(other) => {
                    return Err(type_error(format!(
                        "{}.__match_args__ must be a tuple (got {})",
                        class.name,
                        other.type_name()
                    )))
                }
                None => (Vec::new(), matches_self(class)),
            };
            let allowed = if match_self { 1 } else { match_args.len() };
            if nargs > allowed {
                return Err(type_error(format!(
                    "{}() accepts {allowed} positional sub-pattern{} ({nargs} given)",
                    class.name,
                    if allowed == 1 { "" } else { "s" }
                )));
            }
            if match_self {
                attrs.push(v.clone());
            } else {
                for name in &match_args[..nargs] {
                    let Value::Str(name) = name else {
                        return Err(type_error(format!(
                            "__match_args__ elements must be strings (got {})",
                            name.type_name()
                        )));
                    };
                    match self.match_class_attr(v, &class.name, name, &mut seen)? {
                        Some(x) => attrs.push(x),
                        None => return Ok(None),
                    }
                }
            }
        }
        for name in kwd_attrs {
            match self.match_class_attr(v, &class.name, name, &mut seen)? {
                Some(x) => attrs.push(x),
                None => return Ok(None),
            }
        }
        Ok(Some(attrs))
    }

    /// One attribute of a class pattern's subject (None: it has none).
    fn match_class_attr(
        &self,
        v: &Value,
        class: &str,
        name: &str,
        seen: &mut Vec<Rc<str>>,
    ) -> PyResult<Option<Value>> {
        if seen.iter().any(|s| &**s == name) {
            return Err(type_error(format!(
                "{class}() got multiple sub-patterns for attribute '{name}'"
            )));
        }
        seen.push(Rc::from(name));
        match self.get_attribute(v, name) {
            Ok(x) => Ok(Some(x)),
            Err(e) if e.is(ExcType::AttributeError) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Whether a class (or a base) sets the flag `name` to True: how the stdlib
/// classes written in the language say what CPython's type flags
/// (`Py_TPFLAGS_MAPPING`, `Py_TPFLAGS_SEQUENCE`) say.
fn flagged(class: &Rc<crate::value::Class>, name: &str) -> bool {
    matches!(class.lookup(name), Some(Value::Bool(true)))
}

/// Whether a class pattern `C(x)` of this class matches the subject itself:
/// the builtins bool, bytes, dict, float, frozenset, int, list, set, str,
/// tuple and their subclasses (without `__match_args__`).
fn matches_self(class: &Rc<crate::value::Class>) -> bool {
    class.mro().iter().any(|c| {
        matches!(
            c.kind,
            ClassKind::Builtin(
                ValueType::Bool
                    | ValueType::Bytes
                    | ValueType::Dict
                    | ValueType::Float
                    | ValueType::FrozenSet
                    | ValueType::Int
                    | ValueType::List
                    | ValueType::Set
                    | ValueType::Str
                    | ValueType::Tuple
            )
        )
    })
}
