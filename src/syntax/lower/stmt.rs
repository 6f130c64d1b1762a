//! Lowering of statements.

use std::cell::RefCell;
use std::rc::Rc;

use pest::iterators::{Pair, Pairs};

use super::target::TargetCtx;
use super::{kids, shape, Lowerer, ScopeKind, R};
use crate::syntax::ast::{
    Alias, BinOp, ClassDef, ExceptHandler, Expr, ExprKind, FunctionDef, Ident, Keyword, Stmt,
    StmtKind, WithItem,
};
use crate::syntax::error::{SyntaxError, SyntaxErrorKind};
use crate::syntax::parser::Rule;
use crate::syntax::span::Span;

/// CPython's error for a jump out of an `except*` block.
const EXCEPT_STAR_JUMP: &str = "'break', 'continue' and 'return' cannot appear in an except* block";

/// The end of the last statement of a body (bodies are never empty).
fn body_end(body: &[Stmt], fallback: Span) -> u32 {
    body.last().map_or(fallback.end, |s| s.span.end)
}

impl Lowerer<'_> {
    /// Lowers a sequence of statement pairs (tokens are skipped).
    pub(super) fn statements(&self, pairs: Pairs<Rule>, out: &mut Vec<Stmt>) -> R<()> {
        for p in pairs {
            if super::is_token(p.as_rule()) {
                continue;
            }
            out.push(self.stmt(p, Vec::new())?);
        }
        Ok(())
    }

    /// Lowers a `block`.
    pub(super) fn block(&self, p: Pair<Rule>) -> R<Vec<Stmt>> {
        let mut body = Vec::new();
        self.statements(p.into_inner(), &mut body)?;
        Ok(body)
    }

    /// Lowers one statement; `decorators` are those of a decorated def/class.
    fn stmt(&self, p: Pair<Rule>, decorators: Vec<Expr>) -> R<Stmt> {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::pass_stmt => StmtKind::Pass,
            Rule::break_stmt => {
                if self.leaves_except_star(true) {
                    return Err(SyntaxError::new(EXCEPT_STAR_JUMP, span));
                }
                if self.loops() == 0 {
                    return Err(SyntaxError::new("'break' outside loop", span));
                }
                StmtKind::Break
            }
            Rule::continue_stmt => {
                if self.leaves_except_star(true) {
                    return Err(SyntaxError::new(EXCEPT_STAR_JUMP, span));
                }
                if self.loops() == 0 {
                    return Err(SyntaxError::new("'continue' not properly in loop", span));
                }
                StmtKind::Continue
            }
            Rule::return_stmt => {
                if self.scope_kind() != ScopeKind::Function {
                    return Err(SyntaxError::new("'return' outside function", span));
                }
                if self.leaves_except_star(false) {
                    return Err(SyntaxError::new(EXCEPT_STAR_JUMP, span));
                }
                match kids(p).next() {
                    Some(v) => StmtKind::Return(Some(self.value(v)?)),
                    None => StmtKind::Return(None),
                }
            }
            Rule::raise_stmt => {
                let mut it = kids(p);
                let exc = it.next().map(|e| self.expr(e)).transpose()?;
                let cause = it.next().map(|e| self.expr(e)).transpose()?;
                StmtKind::Raise { exc, cause }
            }
            Rule::global_stmt => StmtKind::Global(kids(p).map(|n| self.ident(&n)).collect()),
            // The resolver reports a module-level `nonlocal` (after the
            // checks CPython makes first, such as "assigned to before").
            Rule::nonlocal_stmt => StmtKind::Nonlocal(kids(p).map(|n| self.ident(&n)).collect()),
            Rule::del_stmt => {
                let list = kids(p).next().ok_or_else(|| shape(span, "del"))?;
                let mut targets = Vec::new();
                for t in kids(list).filter(|c| c.as_rule() != Rule::trailing_comma) {
                    let t = self.expr(t)?;
                    self.check_target(&t, TargetCtx::Del)?;
                    targets.push(t);
                }
                StmtKind::Delete(targets)
            }
            Rule::assert_stmt => {
                let mut it = kids(p);
                let test = self.expr(it.next().ok_or_else(|| shape(span, "assert"))?)?;
                let msg = it.next().map(|e| self.expr(e)).transpose()?;
                StmtKind::Assert { test, msg }
            }
            Rule::import_stmt => StmtKind::Import(
                kids(p)
                    .map(|a| self.import_alias(a))
                    .collect::<R<Vec<_>>>()?,
            ),
            Rule::import_from => self.import_from(p)?,
            Rule::expr_stmt => self.expr_stmt(p)?,
            Rule::if_stmt => return self.if_stmt(p),
            Rule::while_stmt => {
                let mut it = kids(p);
                let test = self.expr(it.next().ok_or_else(|| shape(span, "while"))?)?;
                let body =
                    self.in_loop(|| self.block(it.next().ok_or_else(|| shape(span, "while"))?))?;
                let orelse = self.else_clause(it.next())?;
                let end = body_end(&orelse, span).max(body_end(&body, span));
                return Ok(Stmt {
                    kind: StmtKind::While { test, body, orelse },
                    span: span.with_end(end),
                });
            }
            Rule::for_stmt => {
                let mut it = kids(p);
                let target = self.targets(it.next().ok_or_else(|| shape(span, "for"))?)?;
                self.check_target(&target, TargetCtx::For)?;
                let iter = self.value(it.next().ok_or_else(|| shape(span, "for"))?)?;
                let body =
                    self.in_loop(|| self.block(it.next().ok_or_else(|| shape(span, "for"))?))?;
                let orelse = self.else_clause(it.next())?;
                let end = body_end(&orelse, span).max(body_end(&body, span));
                return Ok(Stmt {
                    kind: StmtKind::For {
                        target,
                        iter,
                        body,
                        orelse,
                    },
                    span: span.with_end(end),
                });
            }
            Rule::try_stmt => return self.try_stmt(p),
            Rule::with_stmt => {
                let mut items = Vec::new();
                let mut body = Vec::new();
                for c in kids(p) {
                    match c.as_rule() {
                        Rule::with_item => items.push(self.with_item(c)?),
                        _ => body = self.block(c)?,
                    }
                }
                let end = body_end(&body, span);
                return Ok(Stmt {
                    kind: StmtKind::With {
                        items,
                        body,
                        is_async: false,
                    },
                    span: span.with_end(end),
                });
            }
            Rule::function_def => return self.function_def(p, decorators, span),
            Rule::class_def => return self.class_def(p, decorators, span),
            Rule::decorated => {
                let mut decorators = Vec::new();
                for c in kids(p) {
                    match c.as_rule() {
                        Rule::decorator => {
                            let e = kids(c).next().ok_or_else(|| shape(span, "decorator"))?;
                            decorators.push(self.expr(e)?);
                        }
                        _ => {
                            let mut s = self.stmt(c, std::mem::take(&mut decorators))?;
                            s.span.start = span.start;
                            return Ok(s);
                        }
                    }
                }
                return Err(shape(span, "decorated"));
            }
            Rule::async_stmt => {
                let inner = kids(p.clone()).find(|c| c.as_rule() != Rule::ASYNC);
                match inner.as_ref().map(|c| c.as_rule()) {
                    Some(rule @ (Rule::for_stmt | Rule::with_stmt)) => {
                        let what = if rule == Rule::for_stmt {
                            "async for"
                        } else {
                            "async with"
                        };
                        let kw = Span::new(span.start as usize, span.start as usize + 5);
                        if !self.in_async() {
                            let msg = format!("'{what}' outside async function");
                            return Err(SyntaxError::new(msg, kw));
                        }
                        let inner = inner.ok_or_else(|| shape(span, what))?;
                        let mut s = self.stmt(inner, Vec::new())?;
                        s.kind = match s.kind {
                            StmtKind::For {
                                target,
                                iter,
                                body,
                                orelse,
                            } => StmtKind::AsyncFor {
                                target,
                                iter,
                                body,
                                orelse,
                            },
                            StmtKind::With { items, body, .. } => StmtKind::With {
                                items,
                                body,
                                is_async: true,
                            },
                            other => other,
                        };
                        s.span.start = span.start;
                        return Ok(s);
                    }
                    _ => {
                        let def = inner.ok_or_else(|| shape(span, "async def"))?;
                        self.async_def.set(true);
                        let r = self.function_def(def, decorators, span);
                        self.async_def.set(false);
                        return r;
                    }
                }
            }
            Rule::match_stmt => return self.match_stmt(p),
            _ => return Err(shape(span, "statement")),
        };
        Ok(Stmt { kind, span })
    }

    /// The `else:` clause of a loop (not inside the loop for `break`).
    fn else_clause(&self, p: Option<Pair<Rule>>) -> R<Vec<Stmt>> {
        match p {
            Some(p) => {
                let span = self.span(&p);
                self.block(kids(p).next().ok_or_else(|| shape(span, "else"))?)
            }
            None => Ok(Vec::new()),
        }
    }

    /// An identifier from a NAME pair.
    pub(super) fn ident(&self, p: &Pair<Rule>) -> Ident {
        Ident {
            name: Rc::from(p.as_str()),
            span: self.span(p),
        }
    }

    fn if_stmt(&self, p: Pair<Rule>) -> R<Stmt> {
        let span = self.span(&p);
        let mut it = kids(p);
        let test = self.expr(it.next().ok_or_else(|| shape(span, "if"))?)?;
        let body = self.block(it.next().ok_or_else(|| shape(span, "if"))?)?;
        let rest: Vec<Pair<Rule>> = it.collect();
        let orelse = self.elif_chain(rest)?;
        let end = body_end(&orelse, span).max(body_end(&body, span));
        Ok(Stmt {
            kind: StmtKind::If { test, body, orelse },
            span: span.with_end(end),
        })
    }

    /// `elif`/`else` clauses, folded into nested `If`s the way Python's AST does.
    fn elif_chain(&self, mut rest: Vec<Pair<Rule>>) -> R<Vec<Stmt>> {
        let mut orelse = Vec::new();
        while let Some(c) = rest.pop() {
            let span = self.span(&c);
            match c.as_rule() {
                Rule::else_clause => orelse = self.else_clause(Some(c))?,
                _ => {
                    let mut it = kids(c);
                    let test = self.expr(it.next().ok_or_else(|| shape(span, "elif"))?)?;
                    let body = self.block(it.next().ok_or_else(|| shape(span, "elif"))?)?;
                    let end = body_end(&orelse, span).max(body_end(&body, span));
                    let stmt = Stmt {
                        kind: StmtKind::If {
                            test,
                            body,
                            orelse: std::mem::take(&mut orelse),
                        },
                        span: span.with_end(end),
                    };
                    orelse = vec![stmt];
                }
            }
        }
        Ok(orelse)
    }

    fn try_stmt(&self, p: Pair<Rule>) -> R<Stmt> {
        let span = self.span(&p);
        let mut it = kids(p);
        let body = self.block(it.next().ok_or_else(|| shape(span, "try"))?)?;
        let mut handlers = Vec::new();
        let mut orelse = Vec::new();
        let mut finalbody = Vec::new();
        let mut star = None;
        for c in it {
            match c.as_rule() {
                Rule::except_clause => {
                    let (h, is_star) = self.except_clause(c)?;
                    if star.is_some_and(|s| s != is_star) {
                        return Err(SyntaxError::new(
                            "cannot have both 'except' and 'except*' on the same 'try'",
                            h.span,
                        ));
                    }
                    star = Some(is_star);
                    handlers.push(h);
                }
                Rule::else_clause => orelse = self.else_clause(Some(c))?,
                Rule::finally_clause => {
                    let s = self.span(&c);
                    finalbody = self.block(kids(c).next().ok_or_else(|| shape(s, "finally"))?)?;
                }
                _ => {
                    // missing_handler: the grammar's error production.
                    let at = self.span(&c);
                    let at_eof = self.src[at.start as usize..].trim().is_empty();
                    let at = self.token_span_at(at.start as usize);
                    let err = SyntaxError::new("expected 'except' or 'finally' block", at);
                    return Err(if at_eof { err.incomplete() } else { err });
                }
            }
        }
        let mut end = body_end(&body, span);
        if let Some(h) = handlers.last() {
            end = end.max(body_end(&h.body, span));
        }
        end = end
            .max(body_end(&orelse, span))
            .max(body_end(&finalbody, span));
        Ok(Stmt {
            kind: StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                star: star.unwrap_or(false),
            },
            span: span.with_end(end),
        })
    }

    /// The span of the source token starting at `at` (for error productions).
    pub(super) fn token_span_at(&self, at: usize) -> Span {
        let rest = &self.src[at.min(self.src.len())..];
        let len = rest
            .find(|c: char| c.is_whitespace())
            .unwrap_or(rest.len())
            .max(1)
            .min(rest.len());
        Span::new(at, at + len)
    }

    /// An `except` clause, and whether it is `except*`.
    fn except_clause(&self, p: Pair<Rule>) -> R<(ExceptHandler, bool)> {
        let span = self.span(&p);
        let clause = p.as_span();
        let mut type_ = None;
        let mut name = None;
        let mut body = Vec::new();
        let mut header_end = span.end;
        let mut unparenthesized: Option<Span> = None;
        let mut star: Option<Span> = None;
        for c in kids(p) {
            match c.as_rule() {
                Rule::except_star => star = Some(self.span(&c)),
                Rule::except_comma => {
                    let start = type_.as_ref().map_or(span.start, |t: &Expr| t.span.start);
                    unparenthesized = Some(Span::new(start as usize, start as usize));
                }
                Rule::NAME => {
                    let id = self.ident(&c);
                    name = Some(Expr {
                        kind: ExprKind::Name(self.mangled_name(&id.name)),
                        span: id.span,
                    });
                }
                Rule::block => {
                    // The header ends at its ':' just before the block (in the
                    // parsed text, where comments are blanked out).
                    let head = &clause.as_str()[..c.as_span().start() - clause.start()];
                    let colon = head.rfind(':').map_or(head.len(), |i| i + 1);
                    header_end = self.pos(clause.start() + colon) as u32;
                    if let (Some(at), None) = (star, &type_) {
                        return Err(SyntaxError::new("expected one or more exception types", at));
                    }
                    body = if star.is_some() {
                        self.in_except_star(|| self.block(c))?
                    } else {
                        self.block(c)?
                    };
                }
                _ => {
                    let e = self.expr(c)?;
                    if let Some(s) = &mut unparenthesized {
                        s.end = e.span.end;
                    } else {
                        type_ = Some(e);
                    }
                }
            }
        }
        if let Some(s) = unparenthesized {
            return Err(SyntaxError::new(
                "multiple exception types must be parenthesized",
                s,
            ));
        }
        let handler = ExceptHandler {
            type_,
            name,
            body,
            span: span.with_end(header_end),
        };
        Ok((handler, star.is_some()))
    }

    fn with_item(&self, p: Pair<Rule>) -> R<WithItem> {
        let span = self.span(&p);
        let mut it = kids(p);
        let context_expr = self.expr(it.next().ok_or_else(|| shape(span, "with"))?)?;
        let optional_vars = match it.next() {
            Some(t) => {
                let t = self.expr(t)?;
                self.check_target(&t, TargetCtx::With)?;
                Some(t)
            }
            None => None,
        };
        Ok(WithItem {
            context_expr,
            optional_vars,
        })
    }

    fn import_alias(&self, p: Pair<Rule>) -> R<Alias> {
        let span = self.span(&p);
        let mut it = kids(p);
        let dotted = it.next().ok_or_else(|| shape(span, "import"))?;
        let name: String = kids(dotted)
            .map(|n| n.as_str().to_string())
            .collect::<Vec<_>>()
            .join(".");
        let asname: Option<Rc<str>> = it.next().map(|n| Rc::from(n.as_str()));
        let first = name.split('.').next().unwrap_or("").to_string();
        let target = Self::name(asname.as_deref().unwrap_or(&first));
        Ok(Alias {
            name: Rc::from(name),
            asname,
            target,
            span,
        })
    }

    fn import_from(&self, p: Pair<Rule>) -> R<StmtKind> {
        let span = self.span(&p);
        let mut module = String::new();
        let mut names = Vec::new();
        let mut star = None;
        for c in kids(p) {
            match c.as_rule() {
                Rule::relative_dots => {
                    return Err(SyntaxError::new(
                        "relative imports are not supported",
                        self.span(&c),
                    ));
                }
                Rule::dotted_name => {
                    module = kids(c)
                        .map(|n| n.as_str().to_string())
                        .collect::<Vec<_>>()
                        .join(".");
                }
                Rule::import_star => star = Some(self.span(&c)),
                Rule::import_as_name => {
                    let aspan = self.span(&c);
                    let mut it = kids(c);
                    let n = it.next().ok_or_else(|| shape(aspan, "import"))?;
                    let name: Rc<str> = Rc::from(n.as_str());
                    let asname: Option<Rc<str>> = it.next().map(|n| Rc::from(n.as_str()));
                    let target = Self::name(asname.as_deref().unwrap_or(&name));
                    names.push(Alias {
                        name,
                        asname,
                        target,
                        span: aspan,
                    });
                }
                _ => return Err(shape(span, "import")),
            }
        }
        Ok(StmtKind::ImportFrom {
            module: Rc::from(module),
            names,
            star,
        })
    }

    fn expr_stmt(&self, p: Pair<Rule>) -> R<StmtKind> {
        let span = self.span(&p);
        let mut it = kids(p);
        let first = it.next().ok_or_else(|| shape(span, "statement"))?;
        let tails: Vec<Pair<Rule>> = it.collect();
        let Some(tail0) = tails.first() else {
            return Ok(StmtKind::Expr(self.value(first)?));
        };
        match tail0.as_rule() {
            Rule::assign_tail => {
                let single = tails.len() == 1;
                let mut targets = vec![self.expr(first)?];
                let mut values = Vec::new();
                for t in tails {
                    let tspan = self.span(&t);
                    values.push(kids(t).next().ok_or_else(|| shape(tspan, "assignment"))?);
                }
                let value = values.pop();
                for v in values {
                    targets.push(self.expr(v)?);
                }
                let value = value.ok_or_else(|| shape(span, "assignment"))?;
                for (i, t) in targets.iter().enumerate() {
                    let ctx = if single && i == 0 {
                        TargetCtx::AssignSingle
                    } else {
                        TargetCtx::Assign
                    };
                    self.check_target(t, ctx)?;
                }
                let value = self.value(value)?;
                Ok(StmtKind::Assign { targets, value })
            }
            Rule::aug_tail => {
                let target = self.expr(first)?;
                self.check_target(&target, TargetCtx::Aug)?;
                let t = tails
                    .into_iter()
                    .next()
                    .ok_or_else(|| shape(span, "augmented"))?;
                let mut it = kids(t);
                let op = it.next().ok_or_else(|| shape(span, "augmented"))?;
                let op = aug_op(op.as_str()).ok_or_else(|| shape(span, "operator"))?;
                let value = self.value(it.next().ok_or_else(|| shape(span, "augmented"))?)?;
                Ok(StmtKind::AugAssign { target, op, value })
            }
            _ => {
                let target = self.expr(first)?;
                self.check_target(&target, TargetCtx::Ann)?;
                let t = tails
                    .into_iter()
                    .next()
                    .ok_or_else(|| shape(span, "annotation"))?;
                let mut it = kids(t);
                let annotation = self.expr(it.next().ok_or_else(|| shape(span, "annotation"))?)?;
                let value = it.next().map(|v| self.value(v)).transpose()?;
                Ok(StmtKind::AnnAssign {
                    target,
                    annotation,
                    value,
                })
            }
        }
    }

    /// A `def`. `span` is the whole statement's pair span.
    fn function_def(&self, p: Pair<Rule>, decorators: Vec<Expr>, span: Span) -> R<Stmt> {
        let mut it = kids(p);
        let name_pair = it.next().ok_or_else(|| shape(span, "def"))?;
        let name: Rc<str> = Rc::from(name_pair.as_str());
        let qualname = self.qualname_for(&name);
        let mut params = None;
        let mut returns = None;
        let mut header_end = self.span(&name_pair).end;
        let mut body_pair = None;
        for c in it {
            match c.as_rule() {
                Rule::type_params => {
                    return Err(SyntaxError::new(
                        "type parameters are not supported",
                        self.span(&c),
                    ))
                }
                Rule::params => params = Some(c),
                Rule::returns => {
                    header_end = self.span(&c).end;
                    let e = kids(c).next().ok_or_else(|| shape(span, "annotation"))?;
                    returns = Some(self.expr(e)?);
                }
                Rule::block => body_pair = Some(c),
                _ => return Err(shape(span, "def")),
            }
        }
        let args = match params {
            Some(p) => {
                header_end = header_end.max(self.close_paren_after(p.as_span().end()));
                self.params(p)?
            }
            None => Default::default(),
        };
        if header_end == self.span(&name_pair).end {
            header_end = self.close_paren_after(name_pair.as_span().end());
        }
        let body_pair = body_pair.ok_or_else(|| shape(span, "def"))?;
        let is_async = self.async_def.replace(false);
        let (body, yields) =
            self.in_scope_async(ScopeKind::Function, qualname.clone(), is_async, || {
                self.block(body_pair)
            })?;
        if is_async && yields {
            return Err(SyntaxError::new(
                "async generators ('yield' inside 'async def') are not supported",
                Span::new(span.start as usize, span.start as usize + 5),
            ));
        }
        let is_generator = yields || is_async;
        let end = body_end(&body, span);
        let def = FunctionDef {
            target: self.mangled_name(&name),
            name,
            qualname,
            args,
            returns,
            body: crate::syntax::ast::Body::new(body),
            decorators,
            scope: RefCell::new(Default::default()),
            is_generator,
            is_async,
            span: span.with_end(header_end),
        };
        Ok(Stmt {
            kind: StmtKind::FunctionDef(Rc::new(def)),
            span: span.with_end(end),
        })
    }

    /// Source offset just past the first ')' at or after parsed-text offset `t`.
    fn close_paren_after(&self, t: usize) -> u32 {
        let s = self.pos(t);
        let rest = &self.src[s.min(self.src.len())..];
        rest.find(')').map_or(s, |i| s + i + 1) as u32
    }

    fn class_def(&self, p: Pair<Rule>, decorators: Vec<Expr>, span: Span) -> R<Stmt> {
        let mut it = kids(p);
        let name_pair = it.next().ok_or_else(|| shape(span, "class"))?;
        let name: Rc<str> = Rc::from(name_pair.as_str());
        let qualname = self.qualname_for(&name);
        let mut bases = Vec::new();
        let mut keywords: Vec<Keyword> = Vec::new();
        let mut header_end = self.span(&name_pair).end;
        let mut body_pair = None;
        for c in it {
            match c.as_rule() {
                Rule::type_params => {
                    return Err(SyntaxError::new(
                        "type parameters are not supported",
                        self.span(&c),
                    ))
                }
                Rule::arguments => {
                    header_end = self.close_paren_after(c.as_span().end());
                    let (args, kws) = self.arguments(c)?;
                    bases = args;
                    keywords = kws;
                }
                Rule::block => body_pair = Some(c),
                _ => return Err(shape(span, "class")),
            }
        }
        if header_end == self.span(&name_pair).end {
            let after = &self.src[header_end as usize..];
            if after.trim_start().starts_with('(') {
                header_end = self.close_paren_after(name_pair.as_span().end());
            }
        }
        let body_pair = body_pair.ok_or_else(|| shape(span, "class"))?;
        let body = self.in_scope(ScopeKind::Class, qualname.clone(), || self.block(body_pair))?;
        let end = body_end(&body, span);
        let def = ClassDef {
            target: self.mangled_name(&name),
            name,
            qualname,
            bases,
            keywords,
            body,
            decorators,
            span: span.with_end(header_end),
        };
        Ok(Stmt {
            kind: StmtKind::ClassDef(Rc::new(def)),
            span: span.with_end(end),
        })
    }
}

/// The operator of an augmented assignment.
fn aug_op(s: &str) -> Option<BinOp> {
    Some(match s {
        "+=" => BinOp::Add,
        "-=" => BinOp::Sub,
        "*=" => BinOp::Mult,
        "@=" => BinOp::MatMult,
        "/=" => BinOp::Div,
        "//=" => BinOp::FloorDiv,
        "%=" => BinOp::Mod,
        "&=" => BinOp::BitAnd,
        "|=" => BinOp::BitOr,
        "^=" => BinOp::BitXor,
        "<<=" => BinOp::LShift,
        ">>=" => BinOp::RShift,
        "**=" => BinOp::Pow,
        _ => return None,
    })
}

/// An IndentationError (used by `errors`).
#[cold]
pub(super) fn indentation_error(msg: impl Into<String>, span: Span) -> SyntaxError {
    SyntaxError::with_kind(SyntaxErrorKind::Indentation, msg, span)
}
