//! Autograph's expressions: `a if test else b`, `and`, `or` and `not` on a
//! tensor while a graph traces, as TensorFlow's `if_exp`, `and_`, `or_` and
//! `not_` operators stage them: a conditional expression or a
//! short-circuit on a tensor is an `If` node whose branches are the two
//! operands, `not` is `tf.logical_not`.

use super::{ag_branch, verify_single};
use crate::distribute::function::control;
use crate::eval::frame::Frame;
use crate::eval::Interp;
use crate::object::tensor::convert::runtime_err;
use crate::runtime::{graph, Tensor};
use crate::syntax::ast::*;
use crate::value::{PyResult, Value};

impl Interp {
    /// `a and b …` / `a or b …`: CPython's short-circuit (the last operand
    /// is the result as it is: CPython never asks its truth, so `None or
    /// tensor` returns the tensor); in a converted function a tensor operand
    /// makes the operands after it one branch of an `If` node.
    pub(in crate::eval) fn eval_bool_op(
        &self,
        f: &mut Frame,
        op: BoolOp,
        values: &[Expr],
    ) -> PyResult<Value> {
        let Some((tail, head)) = values.split_last() else {
            return Ok(Value::None);
        };
        for (i, v) in head.iter().enumerate() {
            let x = self.eval(f, v)?;
            if let Value::Tensor(t) = &x {
                if graph::tracing() && self.ag_on(f) {
                    let (t, rest) = (t.clone(), &values[i + 1..]);
                    return self.ag_cond_expr(f, &t, None, &mut |this, f, k| match (op, k) {
                        (BoolOp::And, 0) | (BoolOp::Or, 1) => this.eval_bool_op(f, op, rest),
                        _ => Ok(x.clone()),
                    });
                }
            }
            let t = self.is_true(&x)?;
            match op {
                BoolOp::And if !t => return Ok(x),
                BoolOp::Or if t => return Ok(x),
                _ => {}
            }
        }
        self.eval(f, tail)
    }

    /// `body if test else orelse`, `test` already evaluated to `t`.
    pub(in crate::eval) fn eval_if_exp(
        &self,
        f: &mut Frame,
        test: &Expr,
        t: Value,
        body: &Expr,
        orelse: &Expr,
    ) -> PyResult<Value> {
        if let Value::Tensor(pred) = &t {
            if graph::tracing() && self.ag_on(f) {
                // autograph names the value by the condition's source
                let (a, b) = (test.span.start as usize, test.span.end as usize);
                let repr = f.source().text.get(a..b).unwrap_or("").to_string();
                return self.ag_cond_expr(f, pred, Some(&repr), &mut |this, f, k| {
                    this.eval(f, if k == 0 { body } else { orelse })
                });
            }
        }
        if self.is_true(&t)? {
            self.eval(f, body)
        } else {
            self.eval(f, orelse)
        }
    }

    /// `not v`: `tf.logical_not` of a tensor in a converted function.
    #[inline(never)]
    pub(in crate::eval) fn eval_not_tensor(&self, f: &Frame, v: Value) -> PyResult<Value> {
        if graph::tracing() && self.ag_on(f) {
            return self.call_value(&self.tf_fn("logical_not")?, vec![v], Vec::new());
        }
        self.unary_op(UnaryOp::Not, &v)
    }

    /// An `If` node whose branches are `branch(0)` and `branch(1)` (each
    /// traced once), `pred` choosing; with `repr`, autograph's checks of a
    /// conditional expression's two values.
    fn ag_cond_expr(
        &self,
        f: &mut Frame,
        pred: &Tensor,
        repr: Option<&str>,
        branch: &mut dyn FnMut(&Interp, &mut Frame, usize) -> PyResult<Value>,
    ) -> PyResult<Value> {
        let taken = graph::paused(|| pred.item()).map_err(runtime_err)?.as_f64() != 0.0;
        let mut traced = Vec::with_capacity(2);
        for k in 0..2 {
            let mut run = || branch(self, f, k);
            traced.push(ag_branch(self, &mut run)?);
        }
        if let Some(repr) = repr {
            verify_single(repr, &traced[0].result, &traced[1].result)?;
        }
        for t in &traced {
            if !t.ok {
                graph::taint(|| {
                    format!("a conditional's branch returns a {}", t.result.type_name())
                });
            }
        }
        if traced[0].outs.len() != traced[1].outs.len() {
            graph::taint(|| "a conditional's branches return other structures".into());
            let k = usize::from(!taken);
            return Ok(traced[k].result.clone());
        }
        control::finish_cond(self, pred, taken, [&traced[0], &traced[1]])
    }
}
