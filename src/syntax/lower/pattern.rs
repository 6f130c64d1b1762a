//! Lowering of the `match` statement (PEP 634): the subject, the `case`
//! clauses and their patterns, then the checks CPython's compiler makes on
//! patterns (unreachable cases, repeated or differing captures, repeated
//! keys and attributes), with its messages. Evaluation is `eval/pattern.rs`.

use std::rc::Rc;

use pest::iterators::Pair;

use super::{kids, shape, Lowerer, R};
use crate::syntax::ast::{
    Constant, Expr, ExprKind, Ident, MatchCase, Name, Pattern, PatternKind, Stmt, StmtKind,
};
use crate::syntax::error::SyntaxError;
use crate::syntax::parser::Rule;
use crate::syntax::span::Span;

impl Lowerer<'_> {
    /// A whole `match` statement.
    pub(super) fn match_stmt(&self, p: Pair<Rule>) -> R<Stmt> {
        let span = self.span(&p);
        let mut it = kids(p);
        let subject = self.match_subject(it.next().ok_or_else(|| shape(span, "match"))?)?;
        // Each case is checked before its body is lowered, so that errors
        // come in CPython's order (a pattern's before its body's).
        let pairs: Vec<Pair<Rule>> = it.collect();
        let last = pairs.len().saturating_sub(1);
        let mut cases = Vec::with_capacity(pairs.len());
        for (i, c) in pairs.into_iter().enumerate() {
            let cspan = self.span(&c);
            let mut parts = kids(c);
            let pattern = self.case_patterns(parts.next().ok_or_else(|| shape(cspan, "case"))?)?;
            let rest: Vec<Pair<Rule>> = parts.collect();
            let guarded = rest.iter().any(|p| p.as_rule() == Rule::guard);
            let mut at = pattern.span;
            check_pattern(&pattern, guarded || i == last, &mut Vec::new(), &mut at)?;
            let mut guard = None;
            let mut body = Vec::new();
            for part in rest {
                match part.as_rule() {
                    Rule::guard => {
                        let g = kids(part).next().ok_or_else(|| shape(cspan, "guard"))?;
                        guard = Some(self.expr(g)?);
                    }
                    _ => body = self.block(part)?,
                }
            }
            cases.push(MatchCase {
                pattern,
                guard,
                body,
            });
        }
        let end = cases
            .last()
            .and_then(|c| c.body.last())
            .map_or(span.end, |s| s.span.end);
        Ok(Stmt {
            kind: StmtKind::Match { subject, cases },
            span: span.with_end(end),
        })
    }

    /// `match a:` (one expression) or `match a, *b:` (a tuple).
    fn match_subject(&self, p: Pair<Rule>) -> R<Expr> {
        let e = self.tuple_or_one(self.span(&p), kids(p), |c| self.expr(c))?;
        if matches!(e.kind, ExprKind::Starred(_)) {
            // `match *a:` (CPython points past the starred expression).
            let at = self.token_span_at(e.span.end as usize);
            return Err(SyntaxError::new("invalid syntax", at));
        }
        Ok(e)
    }

    /// The patterns after `case`: one pattern, or an open sequence `a, *b`.
    fn case_patterns(&self, p: Pair<Rule>) -> R<Pattern> {
        let span = self.span(&p);
        let (items, open) = self.pattern_items(p)?;
        if !open && items.len() == 1 && !matches!(items[0].kind, PatternKind::MatchStar(_)) {
            return items
                .into_iter()
                .next()
                .ok_or_else(|| shape(span, "pattern"));
        }
        if let [only] = &items[..] {
            if !open {
                // `case *a:` (CPython points past the starred name).
                let at = self.token_span_at(only.span.end as usize);
                return Err(SyntaxError::new("invalid syntax", at));
            }
        }
        Ok(Pattern {
            kind: PatternKind::MatchSequence(items),
            span,
        })
    }

    /// The comma-separated patterns of a sequence; also whether a trailing
    /// comma was written (which makes `(p,)` a sequence).
    fn pattern_items(&self, p: Pair<Rule>) -> R<(Vec<Pattern>, bool)> {
        let mut items = Vec::new();
        let mut comma = false;
        for c in kids(p) {
            match c.as_rule() {
                Rule::trailing_comma => comma = true,
                _ => items.push(self.pattern(c)?),
            }
        }
        Ok((items, comma))
    }

    /// One pattern pair (any of the pattern rules).
    fn pattern(&self, p: Pair<Rule>) -> R<Pattern> {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::pattern => {
                let mut it = kids(p);
                let inner = self.pattern(it.next().ok_or_else(|| shape(span, "pattern"))?)?;
                let Some(target) = it.next() else {
                    return Ok(inner);
                };
                let name = self.capture_name(&target)?;
                PatternKind::MatchAs {
                    pattern: Some(Box::new(inner)),
                    name: Some(name),
                }
            }
            Rule::or_pattern => {
                let mut alts = kids(p).map(|c| self.pattern(c)).collect::<R<Vec<_>>>()?;
                if alts.len() == 1 {
                    return alts.pop().ok_or_else(|| shape(span, "pattern"));
                }
                PatternKind::MatchOr(alts)
            }
            Rule::star_pattern => {
                let n = kids(p).next().ok_or_else(|| shape(span, "star pattern"))?;
                match n.as_str() {
                    "_" => PatternKind::MatchStar(None),
                    id => PatternKind::MatchStar(Some(Self::name(id))),
                }
            }
            Rule::literal_pattern => return self.literal_pattern(p),
            Rule::paren_pattern => {
                let (mut items, comma) = self.pattern_items(p)?;
                if items.len() == 1 && !comma && !matches!(items[0].kind, PatternKind::MatchStar(_))
                {
                    // A group pattern: the pattern itself.
                    return items.pop().ok_or_else(|| shape(span, "pattern"));
                }
                PatternKind::MatchSequence(items)
            }
            Rule::list_pattern => PatternKind::MatchSequence(self.pattern_items(p)?.0),
            Rule::mapping_pattern => self.mapping_pattern(p)?,
            Rule::name_pattern => return self.name_pattern(p),
            _ => return Err(shape(span, "pattern")),
        };
        Ok(Pattern { kind, span })
    }

    /// The name after `as` or `**` (never `_`).
    fn capture_name(&self, p: &Pair<Rule>) -> R<Name> {
        let span = self.span(p);
        let text = p.as_str().trim();
        if text == "_" {
            return Err(SyntaxError::new("cannot use '_' as a target", span));
        }
        Ok(Self::name(text))
    }

    /// `None`/`True`/`False`, a string or bytes literal, or a signed number.
    fn literal_pattern(&self, p: Pair<Rule>) -> R<Pattern> {
        let span = self.span(&p);
        let c = kids(p).next().ok_or_else(|| shape(span, "literal"))?;
        let kind = match c.as_rule() {
            Rule::none_kw => PatternKind::MatchSingleton(Constant::None),
            Rule::true_kw => PatternKind::MatchSingleton(Constant::Bool(true)),
            Rule::false_kw => PatternKind::MatchSingleton(Constant::Bool(false)),
            Rule::strings => {
                let e = self.strings(c)?;
                if !matches!(e.kind, ExprKind::Constant(_)) {
                    return Err(SyntaxError::new(
                        "patterns may only match literals and attribute lookups",
                        e.span,
                    ));
                }
                PatternKind::MatchValue(e)
            }
            _ => PatternKind::MatchValue(self.signed_number(c)?),
        };
        Ok(Pattern { kind, span })
    }

    /// `-1.5`: the constant, negated when signed.
    fn signed_number(&self, p: Pair<Rule>) -> R<Expr> {
        let span = self.span(&p);
        let mut negative = false;
        let mut value = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::neg => negative = true,
                Rule::number => value = Some(self.number(&c)?),
                Rule::complex_tail => {
                    let n = kids(c).next().ok_or_else(|| shape(span, "number"))?;
                    let nspan = self.span(&n);
                    if let Constant::Imaginary(_) = self.number(&n)? {
                        return Err(SyntaxError::new(
                            "complex literal patterns (`1 + 2j`) are not supported",
                            nspan,
                        ));
                    }
                    // A real tail (`1 + 2`): CPython requires an imaginary one.
                    return Err(SyntaxError::new(
                        "imaginary number required in complex literal",
                        nspan,
                    ));
                }
                _ => {}
            }
        }
        let value = value.ok_or_else(|| shape(span, "number"))?;
        let value = match (negative, value) {
            (false, v) => v,
            (true, Constant::Int(i)) => match i.checked_neg() {
                Some(n) => Constant::Int(n),
                None => Constant::Long(Rc::new(-num_bigint::BigInt::from(i))),
            },
            (true, Constant::Long(n)) => {
                let n = -&*n;
                match i64::try_from(&n) {
                    Ok(i) => Constant::Int(i),
                    Err(_) => Constant::Long(Rc::new(n)),
                }
            }
            (true, Constant::Float(x)) => Constant::Float(-x),
            (true, Constant::Imaginary(x)) => Constant::Imaginary(-x),
            (true, _) => return Err(shape(span, "number")),
        };
        Ok(Expr {
            kind: ExprKind::Constant(value),
            span,
        })
    }

    /// `{key: p, **rest}`.
    fn mapping_pattern(&self, p: Pair<Rule>) -> R<PatternKind> {
        let mut keys = Vec::new();
        let mut patterns = Vec::new();
        let mut rest = None;
        for c in kids(p) {
            let cspan = self.span(&c);
            if rest.is_some() {
                // `**rest` must come last.
                return Err(SyntaxError::new("invalid syntax", cspan));
            }
            match c.as_rule() {
                Rule::double_star_pattern => {
                    let n = kids(c).next().ok_or_else(|| shape(cspan, "mapping"))?;
                    if n.as_str() == "_" {
                        return Err(SyntaxError::new("invalid syntax", self.span(&n)));
                    }
                    rest = Some(self.capture_name(&n)?);
                }
                _ => {
                    let mut it = kids(c);
                    let key = it.next().ok_or_else(|| shape(cspan, "mapping key"))?;
                    let key = match key.as_rule() {
                        Rule::dotted_value => self.dotted(&key)?,
                        _ => match self.literal_pattern(key)? {
                            Pattern {
                                kind: PatternKind::MatchSingleton(c),
                                span,
                            } => Expr {
                                kind: ExprKind::Constant(c),
                                span,
                            },
                            Pattern {
                                kind: PatternKind::MatchValue(e),
                                ..
                            } => e,
                            other => return Err(shape(other.span, "mapping key")),
                        },
                    };
                    let value = it.next().ok_or_else(|| shape(cspan, "mapping value"))?;
                    keys.push(key);
                    patterns.push(self.pattern(value)?);
                }
            }
        }
        Ok(PatternKind::MatchMapping {
            keys,
            patterns,
            rest,
        })
    }

    /// A (dotted) name as an expression: `Color.RED`.
    fn dotted(&self, p: &Pair<Rule>) -> R<Expr> {
        let span = self.span(p);
        let mut names = p.clone().into_inner().filter(|c| c.as_rule() == Rule::NAME);
        let first = names.next().ok_or_else(|| shape(span, "name"))?;
        let mut e = Expr {
            kind: ExprKind::Name(Self::name(first.as_str())),
            span: self.span(&first),
        };
        for n in names {
            let attr = self.ident(&n);
            let s = e.span.with_end(attr.span.end);
            e = Expr {
                kind: ExprKind::Attribute {
                    value: Box::new(e),
                    attr,
                },
                span: s,
            };
        }
        Ok(e)
    }

    /// A capture (`x`), the wildcard (`_`), a value (`a.b`) or a class
    /// pattern (`C(...)`).
    fn name_pattern(&self, p: Pair<Rule>) -> R<Pattern> {
        let span = self.span(&p);
        let args = p
            .clone()
            .into_inner()
            .find(|c| c.as_rule() == Rule::class_args);
        let dotted = p
            .clone()
            .into_inner()
            .filter(|c| c.as_rule() == Rule::NAME)
            .count()
            > 1;
        if (dotted || args.is_some()) && p.as_str().starts_with('_') {
            // CPython's grammar takes `_` as the wildcard, then fails on `.`/`(`.
            let first = p
                .clone()
                .into_inner()
                .next()
                .map_or(span, |n| self.span(&n));
            if self.src[first.start as usize..first.end as usize] == *"_" {
                let after = self.token_span_at(first.end as usize);
                return Err(SyntaxError::new("invalid syntax", after));
            }
        }
        let kind = match args {
            Some(args) => {
                let cls = self.dotted(&p)?;
                self.class_pattern(cls, args)?
            }
            None if dotted => PatternKind::MatchValue(self.dotted(&p)?),
            None => match p.as_str().trim() {
                "_" => PatternKind::MatchAs {
                    pattern: None,
                    name: None,
                },
                id => PatternKind::MatchAs {
                    pattern: None,
                    name: Some(Self::name(id)),
                },
            },
        };
        Ok(Pattern { kind, span })
    }

    /// The arguments of a class pattern.
    fn class_pattern(&self, cls: Expr, args: Pair<Rule>) -> R<PatternKind> {
        let mut patterns = Vec::new();
        let mut kwd_attrs: Vec<Ident> = Vec::new();
        let mut kwd_patterns = Vec::new();
        for a in kids(args) {
            let aspan = self.span(&a);
            match a.as_rule() {
                Rule::keyword_pattern => {
                    let mut it = kids(a);
                    let n = it.next().ok_or_else(|| shape(aspan, "keyword pattern"))?;
                    let v = it.next().ok_or_else(|| shape(aspan, "keyword pattern"))?;
                    kwd_attrs.push(self.ident(&n));
                    kwd_patterns.push(self.pattern(v)?);
                }
                _ => {
                    let pat = self.pattern(a)?;
                    if !kwd_attrs.is_empty() {
                        return Err(SyntaxError::new(
                            "positional patterns follow keyword patterns",
                            pat.span,
                        ));
                    }
                    patterns.push(pat);
                }
            }
        }
        Ok(PatternKind::MatchClass {
            cls,
            patterns,
            kwd_attrs,
            kwd_patterns,
        })
    }
}

/// CPython's compile-time checks on a pattern, in its compile order.
/// `allow` says whether an irrefutable pattern is allowed here; `names`
/// collects the names captured so far. `at` is the span of the pattern
/// checked last, where CPython reports a capture that comes after its
/// sub-patterns (its compiler's current location).
fn check_pattern(p: &Pattern, allow: bool, names: &mut Vec<Rc<str>>, at: &mut Span) -> R<()> {
    *at = p.span;
    match &p.kind {
        PatternKind::MatchValue(_) | PatternKind::MatchSingleton(_) => Ok(()),
        PatternKind::MatchAs { pattern, name } => {
            match pattern {
                None if !allow => {
                    let msg = match name {
                        Some(n) => format!(
                            "name capture '{}' makes remaining patterns unreachable",
                            n.id
                        ),
                        None => "wildcard makes remaining patterns unreachable".to_string(),
                    };
                    return Err(SyntaxError::new(msg, p.span));
                }
                None => {}
                Some(sub) => check_pattern(sub, allow, names, at)?,
            }
            match name {
                Some(n) => capture(&n.id, *at, names),
                None => Ok(()),
            }
        }
        PatternKind::MatchStar(name) => match name {
            Some(n) => capture(&n.id, p.span, names),
            None => Ok(()),
        },
        PatternKind::MatchSequence(items) => {
            let stars = items
                .iter()
                .filter(|i| matches!(i.kind, PatternKind::MatchStar(_)))
                .count();
            if stars > 1 {
                return Err(SyntaxError::new(
                    "multiple starred names in sequence pattern",
                    p.span,
                ));
            }
            items
                .iter()
                .try_for_each(|i| check_pattern(i, true, names, at))
        }
        PatternKind::MatchMapping {
            keys,
            patterns,
            rest,
        } => {
            let mut seen: Vec<&Constant> = Vec::new();
            for k in keys {
                if let ExprKind::Constant(c) = &k.kind {
                    if seen.iter().any(|s| same_key(s, c)) {
                        return Err(SyntaxError::new(
                            format!("mapping pattern checks duplicate key ({})", key_repr(c)),
                            p.span,
                        ));
                    }
                    seen.push(c);
                }
            }
            patterns
                .iter()
                .try_for_each(|v| check_pattern(v, true, names, at))?;
            match rest {
                Some(n) => capture(&n.id, *at, names),
                None => Ok(()),
            }
        }
        PatternKind::MatchClass {
            patterns,
            kwd_attrs,
            kwd_patterns,
            ..
        } => {
            for (i, (a, q)) in kwd_attrs.iter().zip(kwd_patterns).enumerate() {
                if kwd_attrs[..i].iter().any(|b| b.name == a.name) {
                    // CPython points at the repeated attribute's pattern.
                    return Err(SyntaxError::new(
                        format!("attribute name repeated in class pattern: {}", a.name),
                        q.span,
                    ));
                }
            }
            patterns
                .iter()
                .chain(kwd_patterns)
                .try_for_each(|v| check_pattern(v, true, names, at))
        }
        PatternKind::MatchOr(alts) => {
            let mut control: Option<Vec<Rc<str>>> = None;
            for (i, alt) in alts.iter().enumerate() {
                let mut bound = Vec::new();
                check_pattern(alt, allow && i + 1 == alts.len(), &mut bound, at)?;
                match &control {
                    None => control = Some(bound),
                    Some(c) => {
                        let same = c.len() == bound.len() && bound.iter().all(|n| c.contains(n));
                        if !same {
                            return Err(SyntaxError::new(
                                "alternative patterns bind different names",
                                *at,
                            ));
                        }
                    }
                }
            }
            for n in control.unwrap_or_default() {
                capture(&n, *at, names)?;
            }
            Ok(())
        }
    }
}

/// Records a captured name; a second capture of it is an error.
fn capture(name: &Rc<str>, span: Span, names: &mut Vec<Rc<str>>) -> R<()> {
    if names.contains(name) {
        return Err(SyntaxError::new(
            format!("multiple assignments to name '{name}' in pattern"),
            span,
        ));
    }
    names.push(name.clone());
    Ok(())
}

/// Whether two literal keys are equal as Python compares them (`1 == 1.0 == True`).
fn same_key(a: &Constant, b: &Constant) -> bool {
    fn num(c: &Constant) -> Option<f64> {
        match c {
            Constant::Bool(b) => Some(f64::from(u8::from(*b))),
            Constant::Int(i) => Some(*i as f64),
            Constant::Float(x) => Some(*x),
            _ => None,
        }
    }
    match (a, b) {
        (Constant::Int(x), Constant::Int(y)) => x == y,
        (Constant::Long(x), Constant::Long(y)) => x == y,
        (Constant::Long(_), _) | (_, Constant::Long(_)) => false,
        (Constant::Str(x), Constant::Str(y)) => x == y,
        (Constant::Bytes(x), Constant::Bytes(y)) => x == y,
        (Constant::None, Constant::None) => true,
        _ => matches!((num(a), num(b)), (Some(x), Some(y)) if x == y),
    }
}

/// The repr of a literal key, for "duplicate key" messages.
fn key_repr(c: &Constant) -> String {
    match c {
        Constant::None => "None".into(),
        Constant::Bool(b) => if *b { "True" } else { "False" }.into(),
        Constant::Int(i) => i.to_string(),
        Constant::Long(i) => i.to_string(),
        Constant::Float(x) => float_repr(*x),
        Constant::Imaginary(x) => format!("{}j", float_repr(*x).trim_end_matches(".0")),
        Constant::Str(s) => quote(s.chars(), ""),
        Constant::Bytes(b) => quote(b.iter().map(|&c| char::from(c)), "b"),
        Constant::Ellipsis => "Ellipsis".into(),
    }
}

/// Python's `repr` of a float (shortest round-trip digits).
fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let exp = if x == 0.0 {
        0
    } else {
        x.abs().log10().floor() as i32
    };
    if !(-4..16).contains(&exp) {
        // `1e+16`, `1.5e-05`: Rust's `{:e}` with Python's exponent form.
        let s = format!("{x:e}");
        let (mant, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        let sign = if e < 0 { '-' } else { '+' };
        return format!("{mant}e{sign}{:02}", e.abs());
    }
    let s = format!("{x}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// Python's `repr` quoting of a str (or of bytes, with prefix `b`).
fn quote(chars: impl Iterator<Item = char> + Clone, prefix: &str) -> String {
    let has_single = chars.clone().any(|c| c == '\'');
    let has_double = chars.clone().any(|c| c == '"');
    let q = if has_single && !has_double { '"' } else { '\'' };
    let bytes = !prefix.is_empty();
    let mut out = format!("{prefix}{q}");
    for c in chars {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f || (bytes && c as u32 >= 0x80) => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}
