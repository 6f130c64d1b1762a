//! The `Vm` trait implemented by the interpreter: the one door through
//! which natives (`modules/`, `distribute/`, the object layer) call back
//! into evaluation. Each method forwards to the `Interp` method that does
//! the work.

use std::rc::Rc;

use super::Interp;
use crate::syntax::ast::BinOp;
use crate::value::native::State;
use crate::value::{PyResult, Value, Vm};

impl Vm for Interp {
    fn check_interrupt(&self) -> PyResult<()> {
        Interp::check_interrupt(self)
    }
    fn handled_exception(&self) -> Option<Value> {
        self.handling.borrow().last().map(|e| e.value().clone())
    }
    fn graph_strict(&self) -> bool {
        crate::runtime::graph::tracing() && self.user_code.get() && self.lenient.get() == 0
    }
    fn import_module(&self, name: &str) -> PyResult<Value> {
        self.import(name)
    }
    fn frame(&self, depth: usize) -> Option<Value> {
        let stack = self.live_stack(depth);
        (!stack.is_empty()).then(|| super::traceback::FrameInfo::live(stack.into(), 0))
    }
    fn autograph(&self) -> bool {
        crate::distribute::function::trace::autograph()
    }

    fn call(
        &self,
        func: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value> {
        self.call_value(func, args, kwargs)
    }

    fn repr(&self, v: &Value) -> PyResult<String> {
        self.repr_value(v)
    }

    fn str(&self, v: &Value) -> PyResult<String> {
        self.str_value(v)
    }

    fn object_repr(&self, v: &Value) -> PyResult<String> {
        self.object_repr_of(v)
    }

    fn object_str(&self, v: &Value) -> PyResult<String> {
        self.object_str_of(v)
    }

    fn getattr(&self, v: &Value, name: &str) -> PyResult<Value> {
        self.get_attribute(v, name)
    }

    fn truthy(&self, v: &Value) -> PyResult<bool> {
        self.is_true(v)
    }

    fn eq(&self, a: &Value, b: &Value) -> PyResult<bool> {
        self.values_eq(a, b)
    }

    fn lt(&self, a: &Value, b: &Value) -> PyResult<bool> {
        let r = self.compare_op(crate::syntax::ast::CmpOp::Lt, a, b)?;
        self.is_true(&r)
    }

    fn gt(&self, a: &Value, b: &Value) -> PyResult<bool> {
        let r = self.compare_op(crate::syntax::ast::CmpOp::Gt, a, b)?;
        self.is_true(&r)
    }

    fn binop(&self, op: BinOp, a: &Value, b: &Value) -> PyResult<Value> {
        self.binary_op(op, a, b)
    }

    fn len(&self, v: &Value) -> PyResult<usize> {
        self.length(v)
    }

    fn getitem(&self, v: &Value, key: &Value) -> PyResult<Value> {
        self.get_item(v, key)
    }

    fn setitem(&self, v: &Value, key: &Value, value: Value) -> PyResult<()> {
        self.set_item(v, key, value)
    }

    fn delitem(&self, v: &Value, key: &Value) -> PyResult<()> {
        self.del_item(v, key)
    }

    fn inplace(&self, op: BinOp, a: &Value, b: &Value) -> PyResult<Value> {
        self.inplace_op(op, a, b)
    }

    fn dir(&self, v: &Value) -> Vec<String> {
        self.dir_of(v)
    }

    fn contains(&self, container: &Value, item: &Value) -> PyResult<bool> {
        self.contains_value(container, item)
    }

    fn hash(&self, v: &Value) -> PyResult<i64> {
        self.hash_value(v)
    }

    fn type_of(&self, v: &Value) -> Value {
        Value::Class(self.class_of(v))
    }

    fn construct(
        &self,
        cls: &Rc<crate::value::Class>,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value> {
        Interp::construct(self, cls, args, kwargs)
    }

    fn isinstance(&self, v: &Value, cls: &Value) -> PyResult<bool> {
        self.is_instance(v, cls)
    }

    fn format(&self, v: &Value, spec: &str) -> PyResult<String> {
        self.format_value(v, spec)
    }

    fn iter(&self, v: &Value) -> PyResult<Value> {
        self.iter_value(v)
    }

    fn next(&self, it: &Value) -> PyResult<Option<Value>> {
        self.next_value(it)
    }

    fn run_replicas(
        &self,
        n: usize,
        body: &dyn Fn(usize) -> PyResult<Value>,
        merge: &dyn Fn(Vec<Value>) -> PyResult<Vec<Value>>,
    ) -> PyResult<Vec<Value>> {
        Interp::run_replicas(self, n, body, merge)
    }

    fn collective(&self, payload: Value) -> Result<Value, crate::value::CollectiveError> {
        Interp::collective(self, payload)
    }

    fn current_replica(&self) -> Option<usize> {
        Interp::current_replica(self)
    }

    fn flush_stdout(&self) {
        self.flush();
    }

    fn write_stdout(&self, text: &str) {
        let out = self.output.borrow().clone();
        let _ = out.borrow_mut().write_all(text.as_bytes());
    }

    fn recursion_limit(&self) -> u32 {
        self.recursion_limit.get()
    }

    fn set_recursion_limit(&self, n: u32) {
        self.recursion_limit.set(n);
    }

    fn state(&self) -> &State {
        &self.state
    }
}
