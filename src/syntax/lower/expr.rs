//! Lowering of expressions. Operator precedence from `or` down to `**` goes
//! through pest's Pratt parser over the flat operand/operator sequence the
//! grammar produces (so pest itself never recurses per operator).
//! Atoms (names, displays, comprehensions, slices, lambdas) are in `atom.rs`.

use std::sync::OnceLock;

use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};

use super::{kids, shape, Lowerer, ScopeKind, R};
use crate::syntax::ast::{BinOp, BoolOp, CmpOp, Expr, ExprKind, UnaryOp};
use crate::syntax::error::SyntaxError;
use crate::syntax::parser::Rule;
use crate::syntax::span::Span;

/// Python's precedence table, lowest first.
fn pratt() -> &'static PrattParser<Rule> {
    static PRATT: OnceLock<PrattParser<Rule>> = OnceLock::new();
    PRATT.get_or_init(|| {
        PrattParser::new()
            .op(Op::infix(Rule::or_op, Assoc::Left))
            .op(Op::infix(Rule::and_op, Assoc::Left))
            .op(Op::prefix(Rule::not_op))
            .op(Op::infix(Rule::eq, Assoc::Left)
                | Op::infix(Rule::not_eq, Assoc::Left)
                | Op::infix(Rule::lt, Assoc::Left)
                | Op::infix(Rule::lt_e, Assoc::Left)
                | Op::infix(Rule::gt, Assoc::Left)
                | Op::infix(Rule::gt_e, Assoc::Left)
                | Op::infix(Rule::in_op, Assoc::Left)
                | Op::infix(Rule::not_in, Assoc::Left)
                | Op::infix(Rule::is_op, Assoc::Left)
                | Op::infix(Rule::is_not, Assoc::Left))
            .op(Op::infix(Rule::bit_or, Assoc::Left))
            .op(Op::infix(Rule::bit_xor, Assoc::Left))
            .op(Op::infix(Rule::bit_and, Assoc::Left))
            .op(Op::infix(Rule::lshift, Assoc::Left) | Op::infix(Rule::rshift, Assoc::Left))
            .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
            .op(Op::infix(Rule::mult, Assoc::Left)
                | Op::infix(Rule::mat_mult, Assoc::Left)
                | Op::infix(Rule::div, Assoc::Left)
                | Op::infix(Rule::floor_div, Assoc::Left)
                | Op::infix(Rule::modulo, Assoc::Left))
            .op(Op::prefix(Rule::neg) | Op::prefix(Rule::pos) | Op::prefix(Rule::invert))
            .op(Op::infix(Rule::pow, Assoc::Right))
            .op(Op::postfix(Rule::call)
                | Op::postfix(Rule::subscript)
                | Op::postfix(Rule::attribute))
    })
}

/// A Pratt result: the expression, and whether an operator of this same
/// operator sequence built it (so `a < b < c` chains but `(a < b) < c` does not).
type Operand = R<(Expr, bool)>;

fn bin_op(r: Rule) -> Option<BinOp> {
    Some(match r {
        Rule::bit_or => BinOp::BitOr,
        Rule::bit_xor => BinOp::BitXor,
        Rule::bit_and => BinOp::BitAnd,
        Rule::lshift => BinOp::LShift,
        Rule::rshift => BinOp::RShift,
        Rule::add => BinOp::Add,
        Rule::sub => BinOp::Sub,
        Rule::mult => BinOp::Mult,
        Rule::mat_mult => BinOp::MatMult,
        Rule::div => BinOp::Div,
        Rule::floor_div => BinOp::FloorDiv,
        Rule::modulo => BinOp::Mod,
        Rule::pow => BinOp::Pow,
        _ => return None,
    })
}

fn cmp_op(r: Rule) -> Option<CmpOp> {
    Some(match r {
        Rule::eq => CmpOp::Eq,
        Rule::not_eq => CmpOp::NotEq,
        Rule::lt => CmpOp::Lt,
        Rule::lt_e => CmpOp::LtE,
        Rule::gt => CmpOp::Gt,
        Rule::gt_e => CmpOp::GtE,
        Rule::in_op => CmpOp::In,
        Rule::not_in => CmpOp::NotIn,
        Rule::is_op => CmpOp::Is,
        Rule::is_not => CmpOp::IsNot,
        _ => return None,
    })
}

/// `not x` built by the operator sequence itself (not parenthesized).
fn bare_not(e: &(Expr, bool)) -> bool {
    e.1 && matches!(
        e.0.kind,
        ExprKind::UnaryOp {
            op: UnaryOp::Not,
            ..
        }
    )
}

impl Lowerer<'_> {
    /// Lowers any expression pair.
    pub(super) fn expr(&self, p: Pair<Rule>) -> R<Expr> {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::if_exp => return self.if_exp(p),
            Rule::disjunction | Rule::bitor_expr => return self.operators(p.into_inner(), span),
            Rule::star_expressions | Rule::star_targets => return self.exprlist(p),
            Rule::lambda_expr => return self.lambda(p),
            Rule::yield_expr => return self.yield_expr(p, span),
            Rule::slice_upper => {
                return self.expr(kids(p).next().ok_or_else(|| shape(span, "slice"))?)
            }
            Rule::named_expr => {
                let mut it = kids(p);
                let n = it.next().ok_or_else(|| shape(span, "walrus"))?;
                let target = Expr {
                    kind: ExprKind::Name(self.mangled_name(n.as_str())),
                    span: self.span(&n),
                };
                let value = self.expr(it.next().ok_or_else(|| shape(span, "walrus"))?)?;
                ExprKind::NamedExpr {
                    target: Box::new(target),
                    value: Box::new(value),
                }
            }
            Rule::starred => {
                let inner = kids(p).next().ok_or_else(|| shape(span, "starred"))?;
                ExprKind::Starred(Box::new(self.expr(inner)?))
            }
            _ => return self.atom(p),
        };
        Ok(Expr { kind, span })
    }

    /// Lowers a value position: a bare `*x` is not allowed there.
    pub(super) fn value(&self, p: Pair<Rule>) -> R<Expr> {
        let e = self.expr(p)?;
        if matches!(e.kind, ExprKind::Starred(_)) {
            return Err(SyntaxError::new(
                "can't use starred expression here",
                e.span,
            ));
        }
        Ok(e)
    }

    /// `for` and comprehension targets.
    pub(super) fn targets(&self, p: Pair<Rule>) -> R<Expr> {
        self.exprlist(p)
    }

    /// `a, b` (a Tuple) or a single expression.
    fn exprlist(&self, p: Pair<Rule>) -> R<Expr> {
        self.tuple_or_one(self.span(&p), kids(p), |c| self.expr(c))
    }

    /// `await x`: only directly inside an `async def` (CPython's
    /// compile-time rule); `x` is the primary after the keyword.
    pub(super) fn await_expr(&self, p: Pair<Rule>, span: Span) -> R<Expr> {
        let kw = Span::new(span.start as usize, span.start as usize + 5);
        if !self.in_async() {
            let msg = match self.scope_kind() {
                ScopeKind::Module | ScopeKind::Class => "'await' outside function",
                ScopeKind::Comprehension => {
                    "'await' in a comprehension is not supported (asynchronous comprehensions)"
                }
                _ => "'await' outside async function",
            };
            return Err(SyntaxError::new(msg, kw));
        }
        let mut it = kids(p).filter(|c| c.as_rule() != Rule::AWAIT);
        let atom = it.next().ok_or_else(|| shape(span, "await"))?;
        let mut value = self.atom(atom)?;
        for t in it {
            value = self.trailer(value, t)?;
        }
        Ok(Expr {
            kind: ExprKind::Await(Box::new(value)),
            span,
        })
    }

    /// `yield`, `yield x`, `yield from x`: marks the enclosing function a
    /// generator; outside a function it is CPython's SyntaxError.
    pub(super) fn yield_expr(&self, p: Pair<Rule>, span: Span) -> R<Expr> {
        let kw_start = self.span(&p).start as usize;
        let kw = Span::new(kw_start, kw_start + 5);
        match self.scope_kind() {
            ScopeKind::Function | ScopeKind::Lambda => {}
            ScopeKind::Comprehension => {
                let qualname = self.scopes.borrow().last().map(|s| s.qualname.clone());
                let what = match qualname.as_deref().and_then(|q| q.rsplit('.').next()) {
                    Some("<setcomp>") => "set comprehension",
                    Some("<dictcomp>") => "dict comprehension",
                    Some("<genexpr>") => "generator expression",
                    _ => "list comprehension",
                };
                return Err(SyntaxError::new(format!("'yield' inside {what}"), kw));
            }
            _ => return Err(SyntaxError::new("'yield' outside function", kw)),
        }
        if let Some(top) = self.scopes.borrow_mut().last_mut() {
            top.yields = true;
        }
        let from = p.clone().into_inner().any(|c| c.as_rule() == Rule::FROM);
        let value = kids(p).next().map(|e| self.expr(e)).transpose()?;
        let kind = match (from, value) {
            (true, Some(v)) => ExprKind::YieldFrom(Box::new(v)),
            (true, None) => return Err(shape(span, "yield from")),
            (false, v) => ExprKind::Yield(v.map(Box::new)),
        };
        Ok(Expr { kind, span })
    }

    fn if_exp(&self, p: Pair<Rule>) -> R<Expr> {
        let span = self.span(&p);
        let mut inner = p.into_inner();
        // The head is the flat operator sequence up to the `if` keyword.
        let mut head = Vec::new();
        for c in inner.by_ref() {
            if c.as_rule() == Rule::IF {
                break;
            }
            head.push(c);
        }
        let body = self.operators(head.into_iter(), span)?;
        let mut it = inner.filter(|c| !super::is_token(c.as_rule()));
        let Some(test) = it.next() else {
            return Ok(body);
        };
        let test = self.expr(test)?;
        let orelse = it.next().ok_or_else(|| shape(span, "conditional"))?;
        if orelse.as_rule() == Rule::missing_else {
            return Err(SyntaxError::new(
                "expected 'else' after 'if' expression",
                body.span.with_end(test.span.end),
            ));
        }
        let orelse = self.expr(orelse)?;
        Ok(Expr {
            kind: ExprKind::IfExp {
                test: Box::new(test),
                body: Box::new(body),
                orelse: Box::new(orelse),
            },
            span,
        })
    }

    /// A flat operator sequence (operands, prefix/binary operators, trailers).
    fn operators<'i>(
        &self,
        mut pairs: impl Iterator<Item = Pair<'i, Rule>>,
        span: Span,
    ) -> R<Expr> {
        let first = pairs.next().ok_or_else(|| shape(span, "operand"))?;
        let Some(second) = pairs.next() else {
            // Fast path: a lone atom.
            return self.atom(first);
        };
        let out = pratt()
            .map_primary(|q| self.operand(q))
            .map_prefix(|op, rhs| self.prefix(op, rhs))
            .map_postfix(|lhs, op| self.trailer(lhs?.0, op).map(|e| (e, false)))
            .map_infix(|lhs, op, rhs| self.infix(lhs, op, rhs))
            .parse([first, second].into_iter().chain(pairs));
        out.map(|(e, _)| e)
    }

    /// An operand of an operator sequence.
    fn operand(&self, q: Pair<Rule>) -> Operand {
        self.atom(q).map(|e| (e, false))
    }

    fn prefix(&self, op: Pair<Rule>, rhs: Operand) -> Operand {
        let op_span = self.span(&op);
        let rhs = rhs?;
        let op = match op.as_rule() {
            Rule::not_op => UnaryOp::Not,
            Rule::neg => UnaryOp::USub,
            Rule::pos => UnaryOp::UAdd,
            _ => UnaryOp::Invert,
        };
        if op != UnaryOp::Not && bare_not(&rhs) {
            return Err(self.bad_not(&rhs.0));
        }
        let span = op_span.to(rhs.0.span);
        Ok((
            Expr {
                kind: ExprKind::UnaryOp {
                    op,
                    operand: Box::new(rhs.0),
                },
                span,
            },
            true,
        ))
    }

    /// `a == not b`: CPython's "invalid syntax" at the `not`.
    fn bad_not(&self, e: &Expr) -> SyntaxError {
        SyntaxError::new(
            "invalid syntax",
            Span::new(e.span.start as usize, e.span.start as usize + 3),
        )
    }

    fn infix(&self, lhs: Operand, op: Pair<Rule>, rhs: Operand) -> Operand {
        let (lhs, rhs) = (lhs?, rhs?);
        let rule = op.as_rule();
        let span = lhs.0.span.to(rhs.0.span);
        if let Some(bop) = match rule {
            Rule::or_op => Some(BoolOp::Or),
            Rule::and_op => Some(BoolOp::And),
            _ => None,
        } {
            let (mut l, from_op) = lhs;
            if from_op {
                if let ExprKind::BoolOp { op, values } = &mut l.kind {
                    if *op == bop {
                        values.push(rhs.0);
                        l.span = span;
                        return Ok((l, true));
                    }
                }
            }
            let kind = ExprKind::BoolOp {
                op: bop,
                values: vec![l, rhs.0],
            };
            return Ok((Expr { kind, span }, true));
        }
        if bare_not(&rhs) {
            return Err(self.bad_not(&rhs.0));
        }
        if bare_not(&lhs) {
            return Err(self.bad_not(&lhs.0));
        }
        if let Some(cop) = cmp_op(rule) {
            let (mut l, from_op) = lhs;
            if from_op {
                if let ExprKind::Compare {
                    ops, comparators, ..
                } = &mut l.kind
                {
                    ops.push(cop);
                    comparators.push(rhs.0);
                    l.span = span;
                    return Ok((l, true));
                }
            }
            let kind = ExprKind::Compare {
                left: Box::new(l),
                ops: vec![cop],
                comparators: vec![rhs.0],
            };
            return Ok((Expr { kind, span }, true));
        }
        let bop = bin_op(rule).ok_or_else(|| shape(span, "operator"))?;
        let kind = ExprKind::BinOp {
            left: Box::new(lhs.0),
            op: bop,
            right: Box::new(rhs.0),
        };
        Ok((Expr { kind, span }, true))
    }

    /// A call, subscript or attribute applied to `e`.
    fn trailer(&self, e: Expr, t: Pair<Rule>) -> R<Expr> {
        let tspan = self.span(&t);
        let whole = e.span.with_end(tspan.end);
        let kind = match t.as_rule() {
            Rule::call => {
                let (args, keywords) = match kids(t).next() {
                    Some(a) => self.arguments(a)?,
                    None => (Vec::new(), Vec::new()),
                };
                ExprKind::Call {
                    func: Box::new(e),
                    args,
                    keywords,
                }
            }
            Rule::subscript => {
                let s = kids(t).next().ok_or_else(|| shape(tspan, "subscript"))?;
                ExprKind::Subscript {
                    value: Box::new(e),
                    slice: Box::new(self.slices(s)?),
                }
            }
            _ => {
                let n = kids(t).next().ok_or_else(|| shape(tspan, "attribute"))?;
                ExprKind::Attribute {
                    value: Box::new(e),
                    attr: {
                        let mut id = self.ident(&n);
                        id.name = self.mangle(&id.name);
                        id
                    },
                }
            }
        };
        Ok(Expr { kind, span: whole })
    }
}
