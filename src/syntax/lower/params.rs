//! Lowering of function parameters and call arguments, with CPython's checks
//! on their order (the grammar accepts any order on purpose).

use std::collections::HashSet;
use std::rc::Rc;

use pest::iterators::Pair;

use super::{kids, shape, Lowerer, R};
use crate::syntax::ast::{Arg, Arguments, Expr, ExprKind, Keyword};
use crate::syntax::error::SyntaxError;
use crate::syntax::parser::Rule;
use crate::syntax::span::Span;

impl Lowerer<'_> {
    /// Parameters of a `def` or a `lambda`.
    pub(super) fn params(&self, p: Pair<Rule>) -> R<Arguments> {
        let mut a = Arguments::default();
        let mut seen_slash = false;
        let mut star: Option<Span> = None; // a bare `*` or `*args`
        let mut bare_star: Option<Span> = None;
        let mut seen_kwargs = false;
        let mut seen_default = false;
        let mut names: HashSet<Rc<str>> = HashSet::new();
        for c in kids(p) {
            let span = self.span(&c);
            let rule = c.as_rule();
            if rule == Rule::trailing_comma {
                continue;
            }
            if seen_kwargs {
                return Err(SyntaxError::new(
                    "arguments cannot follow var-keyword argument",
                    span,
                ));
            }
            match rule {
                Rule::param_slash => {
                    if seen_slash {
                        return Err(SyntaxError::new("/ may appear only once", span));
                    }
                    if star.is_some() {
                        return Err(SyntaxError::new("/ must be ahead of *", span));
                    }
                    if a.args.is_empty() {
                        return Err(SyntaxError::new(
                            "at least one argument must precede /",
                            span,
                        ));
                    }
                    seen_slash = true;
                    a.posonlyargs = std::mem::take(&mut a.args);
                }
                Rule::param_star | Rule::param_varargs | Rule::lambda_varargs => {
                    if star.is_some() {
                        return Err(SyntaxError::new("* argument may appear only once", span));
                    }
                    star = Some(span);
                    if rule == Rule::param_star {
                        bare_star = Some(span);
                    } else {
                        a.vararg = Some(self.arg(c, &mut names)?.0);
                    }
                }
                Rule::param_kwargs | Rule::lambda_kwargs => {
                    if let Some(s) = bare_star {
                        if a.kwonlyargs.is_empty() {
                            return Err(SyntaxError::new("named arguments must follow bare *", s));
                        }
                    }
                    seen_kwargs = true;
                    a.kwarg = Some(self.arg(c, &mut names)?.0);
                }
                _ => {
                    let (arg, default) = self.arg(c, &mut names)?;
                    if star.is_some() {
                        a.kwonlyargs.push(arg);
                        a.kw_defaults.push(default);
                    } else {
                        match default {
                            Some(d) => {
                                seen_default = true;
                                a.defaults.push(d);
                            }
                            None if seen_default => {
                                return Err(SyntaxError::new(
                                    "non-default argument follows default argument",
                                    arg.span,
                                ));
                            }
                            None => {}
                        }
                        a.args.push(arg);
                    }
                }
            }
        }
        if let Some(s) = bare_star {
            if a.kwonlyargs.is_empty() {
                return Err(SyntaxError::new("named arguments must follow bare *", s));
            }
        }
        Ok(a)
    }

    /// One named parameter: the Arg and its default.
    fn arg(&self, p: Pair<Rule>, names: &mut HashSet<Rc<str>>) -> R<(Arg, Option<Expr>)> {
        let pspan = self.span(&p);
        let mut name = None;
        let mut annotation = None;
        let mut default = None;
        let mut end = pspan.end;
        for c in kids(p) {
            match c.as_rule() {
                Rule::NAME => {
                    end = self.span(&c).end;
                    name = Some(c);
                }
                Rule::annotation => {
                    end = self.span(&c).end;
                    let e = kids(c).next().ok_or_else(|| shape(pspan, "annotation"))?;
                    annotation = Some(self.expr(e)?);
                }
                _ => {
                    let e = kids(c).next().ok_or_else(|| shape(pspan, "default"))?;
                    default = Some(self.expr(e)?);
                }
            }
        }
        let name = name.ok_or_else(|| shape(pspan, "parameter"))?;
        let nspan = self.span(&name);
        let id: Rc<str> = self.mangle(name.as_str());
        if !names.insert(id.clone()) {
            return Err(SyntaxError::new(
                format!("duplicate argument '{id}' in function definition"),
                nspan,
            ));
        }
        let arg = Arg {
            name: id,
            annotation,
            span: nspan.with_end(end),
        };
        Ok((arg, default))
    }

    /// Call arguments: positional (and `*x`) and keyword (and `**y`).
    pub(super) fn arguments(&self, p: Pair<Rule>) -> R<(Vec<Expr>, Vec<Keyword>)> {
        let items: Vec<Pair<Rule>> = kids(p).collect();
        let count = items.len();
        let mut args = Vec::new();
        let mut keywords: Vec<Keyword> = Vec::new();
        let mut seen_kw = false;
        let mut seen_dstar = false;
        for c in items {
            let span = self.span(&c);
            match c.as_rule() {
                Rule::trailing_comma => {}
                Rule::kwarg => {
                    let mut it = kids(c);
                    let n = it.next().ok_or_else(|| shape(span, "keyword"))?;
                    let ident = self.ident(&n);
                    if keywords
                        .iter()
                        .any(|k| k.arg.as_ref().is_some_and(|a| a.name == ident.name))
                    {
                        return Err(SyntaxError::new(
                            format!("keyword argument repeated: {}", ident.name),
                            span,
                        ));
                    }
                    let value = self.expr(it.next().ok_or_else(|| shape(span, "keyword"))?)?;
                    seen_kw = true;
                    keywords.push(Keyword {
                        arg: Some(ident),
                        value,
                        span,
                    });
                }
                Rule::double_starred => {
                    let value = self.expr(kids(c).next().ok_or_else(|| shape(span, "**"))?)?;
                    seen_dstar = true;
                    keywords.push(Keyword {
                        arg: None,
                        value,
                        span,
                    });
                }
                Rule::star_arg => {
                    let mut parts = kids(c);
                    let c = parts.next().ok_or_else(|| shape(span, "*"))?;
                    if parts.next().is_some() {
                        return Err(SyntaxError::new(
                            "iterable unpacking cannot be used in comprehension",
                            self.span(&c),
                        ));
                    }
                    if seen_dstar {
                        return Err(SyntaxError::new(
                            "iterable argument unpacking follows keyword argument unpacking",
                            span,
                        ));
                    }
                    args.push(self.expr(c)?);
                }
                _ => {
                    let parts: Vec<Pair<Rule>> = kids(c).collect();
                    let arg = match parts.last().map(|x| x.as_rule()) {
                        Some(Rule::bad_kwarg) => {
                            let e = self.expr(
                                parts
                                    .into_iter()
                                    .next()
                                    .ok_or_else(|| shape(span, "argument"))?,
                            )?;
                            let eq_end = e.span.end as usize
                                + self.src[e.span.end as usize..]
                                    .find('=')
                                    .map_or(0, |i| i + 1);
                            return Err(SyntaxError::new(
                                "expression cannot contain assignment, perhaps you meant \"==\"?",
                                Span::new(e.span.start as usize, eq_end),
                            ));
                        }
                        Some(Rule::comp_clauses) => {
                            if count > 1 {
                                return Err(SyntaxError::new(
                                    "Generator expression must be parenthesized",
                                    span,
                                ));
                            }
                            self.comprehension(
                                parts,
                                crate::syntax::ast::CompKind::Generator,
                                span,
                            )?
                        }
                        _ => self.expr(
                            parts
                                .into_iter()
                                .next()
                                .ok_or_else(|| shape(span, "argument"))?,
                        )?,
                    };
                    if seen_dstar {
                        return Err(SyntaxError::new(
                            "positional argument follows keyword argument unpacking",
                            span,
                        ));
                    }
                    if seen_kw {
                        return Err(SyntaxError::new(
                            "positional argument follows keyword argument",
                            span,
                        ));
                    }
                    if let ExprKind::Starred(_) = arg.kind {
                        return Err(shape(span, "starred"));
                    }
                    args.push(arg);
                }
            }
        }
        Ok((args, keywords))
    }
}
