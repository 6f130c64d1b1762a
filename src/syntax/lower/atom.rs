//! Lowering of atoms and what is built like them: names and constants,
//! parenthesised forms and tuples, list, set and dict displays,
//! comprehensions (each its own scope), subscript slices, and lambdas.
//! Operators and trailers are in `expr.rs`.

use std::cell::RefCell;
use std::rc::Rc;

use pest::iterators::Pair;

use super::target::TargetCtx;
use super::{kids, shape, Lowerer, ScopeKind, R};
use crate::syntax::ast::{
    CompFor, CompKind, Comprehension, Constant, Expr, ExprKind, FunctionDef, Stmt, StmtKind,
};
use crate::syntax::error::SyntaxError;
use crate::syntax::parser::Rule;
use crate::syntax::span::Span;

impl Lowerer<'_> {
    pub(super) fn atom(&self, p: Pair<Rule>) -> R<Expr> {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::NAME => ExprKind::Name(self.mangled_name(p.as_str())),
            Rule::number => ExprKind::Constant(self.number(&p)?),
            Rule::strings => return self.strings(p),
            Rule::none_kw => ExprKind::Constant(Constant::None),
            Rule::true_kw => ExprKind::Constant(Constant::Bool(true)),
            Rule::false_kw => ExprKind::Constant(Constant::Bool(false)),
            Rule::ellipsis => ExprKind::Constant(Constant::Ellipsis),
            Rule::paren => return self.paren(p),
            Rule::list => return self.display(p, CompKind::List),
            Rule::brace => return self.brace(p),
            Rule::await_expr => return self.await_expr(p, span),
            Rule::disjunction | Rule::bitor_expr | Rule::if_exp => return self.expr(p),
            _ => return Err(shape(span, "atom")),
        };
        Ok(Expr { kind, span })
    }

    fn paren(&self, p: Pair<Rule>) -> R<Expr> {
        let span = self.span(&p);
        let items: Vec<Pair<Rule>> = kids(p).collect();
        match items.first().map(|c| c.as_rule()) {
            None => {
                return Ok(Expr {
                    kind: ExprKind::Tuple(Vec::new()),
                    span,
                })
            }
            Some(Rule::yield_expr) => {
                let y = items[0].clone();
                return self.yield_expr(y, span);
            }
            _ => {}
        }
        if items.len() == 2 && items[1].as_rule() == Rule::comp_clauses {
            return self.comprehension(items, CompKind::Generator, span);
        }
        let e = self.tuple_or_one(span, items, |c| self.expr(c))?;
        if matches!(e.kind, ExprKind::Starred(_)) {
            // one starred item, not made a tuple by a comma
            return Err(SyntaxError::new(
                "cannot use starred expression here",
                e.span,
            ));
        }
        Ok(e)
    }

    /// A list display or list comprehension (`kind` is List), or a set.
    fn display(&self, p: Pair<Rule>, kind: CompKind) -> R<Expr> {
        let span = self.span(&p);
        let items: Vec<Pair<Rule>> = kids(p).collect();
        self.display_items(items, kind, span)
    }

    fn display_items(&self, items: Vec<Pair<Rule>>, kind: CompKind, span: Span) -> R<Expr> {
        if items.len() == 2 && items[1].as_rule() == Rule::comp_clauses {
            return self.comprehension(items, kind, span);
        }
        let mut elts = Vec::new();
        for c in items {
            if c.as_rule() != Rule::trailing_comma {
                elts.push(self.expr(c)?);
            }
        }
        let kind = if kind == CompKind::Set {
            ExprKind::Set(elts)
        } else {
            ExprKind::List(elts)
        };
        Ok(Expr { kind, span })
    }

    fn brace(&self, p: Pair<Rule>) -> R<Expr> {
        let span = self.span(&p);
        let items: Vec<Pair<Rule>> = kids(p).collect();
        let is_dict = match items.first().map(|c| c.as_rule()) {
            None => true,
            Some(Rule::double_starred) => true,
            _ => items.get(1).map(|c| c.as_rule()) == Some(Rule::dict_value),
        };
        if !is_dict {
            return self.display_items(items, CompKind::Set, span);
        }
        match items.first().map(|c| c.as_rule()) {
            Some(Rule::starred) => {
                return Err(SyntaxError::new(
                    "cannot use a starred expression in a dictionary key",
                    self.span(&items[0]),
                ))
            }
            Some(Rule::named_expr) => {
                return Err(SyntaxError::new("invalid syntax", self.span(&items[0])))
            }
            _ => {}
        }
        if items.len() == 3 && items[2].as_rule() == Rule::comp_clauses {
            return self.comprehension(items, CompKind::Dict, span);
        }
        if items.len() == 2 && items[1].as_rule() == Rule::comp_clauses {
            return Err(SyntaxError::new(
                "dict unpacking cannot be used in dict comprehension",
                self.span(&items[0]),
            ));
        }
        let mut keys = Vec::new();
        let mut values = Vec::new();
        for c in items {
            let cspan = self.span(&c);
            match c.as_rule() {
                Rule::trailing_comma => {}
                Rule::double_starred => {
                    keys.push(None);
                    values.push(self.expr(kids(c).next().ok_or_else(|| shape(cspan, "**"))?)?);
                }
                Rule::missing_colon => {
                    return Err(SyntaxError::new(
                        "':' expected after dictionary key",
                        keys.last()
                            .and_then(|k: &Option<Expr>| k.as_ref())
                            .map_or(cspan, |k| k.span),
                    ));
                }
                Rule::dict_value => {
                    values.push(self.expr(kids(c).next().ok_or_else(|| shape(cspan, "value"))?)?);
                }
                _ => keys.push(Some(self.expr(c)?)),
            }
        }
        if keys.len() != values.len() {
            return Err(shape(span, "dict"));
        }
        Ok(Expr {
            kind: ExprKind::Dict { keys, values },
            span,
        })
    }

    /// A comprehension: `items` is the element (and for dicts its value)
    /// followed by the `comp_clauses` pair.
    pub(super) fn comprehension(
        &self,
        mut items: Vec<Pair<Rule>>,
        kind: CompKind,
        span: Span,
    ) -> R<Expr> {
        let clauses = items.pop().ok_or_else(|| shape(span, "comprehension"))?;
        let mut fors: Vec<Pair<Rule>> = kids(clauses).collect();
        fors.reverse();
        let first = fors.pop().ok_or_else(|| shape(span, "comprehension"))?;
        let fspan = self.span(&first);
        let mut fparts: Vec<Pair<Rule>> = kids(first).collect();
        if fparts.first().map(|c| c.as_rule()) == Some(Rule::ASYNC) {
            return Err(SyntaxError::new(
                "asynchronous comprehensions are not supported",
                self.span(&fparts[0]),
            ));
        }
        if fparts.len() < 2 {
            return Err(shape(fspan, "comprehension"));
        }
        // The first iterable is evaluated in the enclosing scope.
        let iter0 = self.expr(fparts.remove(1))?;
        let name = match kind {
            CompKind::List => "<listcomp>",
            CompKind::Set => "<setcomp>",
            CompKind::Dict => "<dictcomp>",
            CompKind::Generator => "<genexpr>",
        };
        let qualname = self.qualname_for(name);
        self.in_scope(ScopeKind::Comprehension, qualname, || {
            let mut generators = Vec::new();
            let mut iter0 = Some(iter0);
            let mut clause = Some(fparts);
            loop {
                let parts = match clause.take() {
                    Some(parts) => parts,
                    None => {
                        let Some(next) = fors.pop() else { break };
                        let parts: Vec<Pair<Rule>> = kids(next).collect();
                        if parts.first().map(|c| c.as_rule()) == Some(Rule::ASYNC) {
                            return Err(SyntaxError::new(
                                "asynchronous comprehensions are not supported",
                                self.span(&parts[0]),
                            ));
                        }
                        parts
                    }
                };
                let mut it = parts.into_iter();
                let target = self.targets(it.next().ok_or_else(|| shape(span, "for"))?)?;
                self.check_target(&target, TargetCtx::For)?;
                let iter = match iter0.take() {
                    Some(e) => e,
                    None => self.expr(it.next().ok_or_else(|| shape(span, "in"))?)?,
                };
                let mut ifs = Vec::new();
                for c in it {
                    let cspan = self.span(&c);
                    ifs.push(self.expr(kids(c).next().ok_or_else(|| shape(cspan, "if"))?)?);
                }
                generators.push(CompFor { target, iter, ifs });
            }
            let mut it = items.into_iter();
            let elt = self.expr(it.next().ok_or_else(|| shape(span, "element"))?)?;
            if matches!(elt.kind, ExprKind::Starred(_)) {
                return Err(SyntaxError::new(
                    "iterable unpacking cannot be used in comprehension",
                    elt.span,
                ));
            }
            let value = match it.next() {
                Some(v) => {
                    let vspan = self.span(&v);
                    Some(self.expr(kids(v).next().ok_or_else(|| shape(vspan, "value"))?)?)
                }
                None => None,
            };
            Ok(Expr {
                kind: ExprKind::Comp(Rc::new(Comprehension {
                    kind,
                    elt,
                    value,
                    generators,
                    scope: RefCell::new(Default::default()),
                })),
                span,
            })
        })
    }

    pub(super) fn slices(&self, p: Pair<Rule>) -> R<Expr> {
        self.tuple_or_one(self.span(&p), kids(p), |c| self.slice_item(c))
    }

    fn slice_item(&self, p: Pair<Rule>) -> R<Expr> {
        let span = self.span(&p);
        let mut lower = None;
        let mut tail = None;
        for c in kids(p) {
            if c.as_rule() == Rule::slice_tail {
                tail = Some(c);
            } else {
                lower = Some(self.expr(c)?);
            }
        }
        let Some(tail) = tail else {
            return lower.ok_or_else(|| shape(span, "subscript"));
        };
        let mut upper = None;
        let mut step = None;
        for c in kids(tail) {
            if c.as_rule() == Rule::slice_upper {
                upper = Some(Box::new(self.expr(c)?));
            } else if let Some(e) = kids(c).next() {
                step = Some(Box::new(self.expr(e)?));
            }
        }
        Ok(Expr {
            kind: ExprKind::Slice {
                lower: lower.map(Box::new),
                upper,
                step,
            },
            span,
        })
    }

    pub(super) fn lambda(&self, p: Pair<Rule>) -> R<Expr> {
        let span = self.span(&p);
        let qualname = self.qualname_for("<lambda>");
        let mut args = Default::default();
        let mut body = None;
        for c in kids(p) {
            if c.as_rule() == Rule::lambda_params {
                args = self.params(c)?;
            } else {
                body = Some(c);
            }
        }
        let body = body.ok_or_else(|| shape(span, "lambda"))?;
        let (body, is_generator) =
            self.in_scope_async(ScopeKind::Lambda, qualname.clone(), false, || {
                self.expr(body)
            })?;
        let ret = Stmt {
            span: body.span,
            kind: StmtKind::Return(Some(body)),
        };
        let def = FunctionDef {
            name: Rc::from("<lambda>"),
            qualname,
            args,
            returns: None,
            body: crate::syntax::ast::Body::new(vec![ret]),
            decorators: Vec::new(),
            target: Self::name("<lambda>"),
            scope: RefCell::new(Default::default()),
            is_generator,
            is_async: false,
            span,
        };
        Ok(Expr {
            kind: ExprKind::Lambda(Rc::new(def)),
            span,
        })
    }
}
