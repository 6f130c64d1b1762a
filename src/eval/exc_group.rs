//! Exception groups (PEP 654): `BaseExceptionGroup.split`, `subgroup` and
//! `derive`, and the `except*` clauses of a `try` statement, which hand each
//! handler the part of a group it matches and raise what is left, as
//! CPython's `exception_group_match` and `_PyExc_PrepReraiseStar` do.
//! Constructing a group and checking its arguments lives in `class.rs`.

use std::rc::Rc;

use super::frame::Frame;
use super::{Flow, Interp};
use crate::object::native;
use crate::object::types::type_error;
use crate::syntax::ast::ExceptHandler;
use crate::value::{Class, ExcType, PyErr, PyResult, Value, Vm};

/// What `split` tests each exception against.
enum Matcher<'a> {
    /// An exception class or a tuple of them: `isinstance`.
    Type(&'a Value),
    /// A predicate called with each exception.
    Predicate(&'a Value),
    /// Exactly these leaf exceptions (by identity): the projection of the
    /// re-raised parts onto the original group.
    Leaves(&'a [Value]),
}

fn is_group(v: &Value) -> bool {
    matches!(v, Value::Instance(i) if i.class.is_subclass_of(&ExcType::BaseExceptionGroup.class()))
}

fn is_exception_class(v: &Value) -> bool {
    matches!(v, Value::Class(c) if c.exception_type().is_some())
}

/// `split`/`subgroup`'s argument, checked as CPython checks it.
fn matcher(v: &Value) -> PyResult<Matcher<'_>> {
    match v {
        _ if is_exception_class(v) => Ok(Matcher::Type(v)),
        Value::Tuple(items) if items.iter().all(is_exception_class) => Ok(Matcher::Type(v)),
        Value::Function(_) | Value::NativeFunction(_) | Value::BoundMethod(_) => {
            Ok(Matcher::Predicate(v))
        }
        Value::Instance(i) if i.class.lookup("__call__").is_some() => Ok(Matcher::Predicate(v)),
        _ => Err(type_error(
            "expected a function, exception type or tuple of exception types",
        )),
    }
}

fn matches(vm: &dyn Vm, exc: &Value, m: &Matcher) -> PyResult<bool> {
    match m {
        Matcher::Type(t) => match t {
            Value::Tuple(items) => {
                for c in items.iter() {
                    if vm.isinstance(exc, c)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => vm.isinstance(exc, t),
        },
        Matcher::Predicate(f) => {
            let r = vm.call(f, vec![exc.clone()], Vec::new())?;
            vm.truthy(&r)
        }
        Matcher::Leaves(leaves) => Ok(leaves.iter().any(|l| l.is(exc))),
    }
}

/// The group's sub-exceptions.
fn exceptions(vm: &dyn Vm, eg: &Value) -> PyResult<Vec<Value>> {
    let excs = vm.getattr(eg, "exceptions")?;
    vm.collect(&excs)
}

/// CPython's `exceptiongroup_split_recursive`: the parts of `exc` that
/// match and (when `with_rest`) those that do not, each a group shaped like
/// `exc` made by its `derive`, or None when empty.
fn split_recursive(
    vm: &dyn Vm,
    exc: &Value,
    m: &Matcher,
    with_rest: bool,
) -> PyResult<(Option<Value>, Option<Value>)> {
    if matches(vm, exc, m)? {
        return Ok((Some(exc.clone()), None));
    }
    if !is_group(exc) {
        return Ok((None, with_rest.then(|| exc.clone())));
    }
    let mut matched = Vec::new();
    let mut rest = Vec::new();
    for e in exceptions(vm, exc)? {
        let (a, b) = split_recursive(vm, &e, m, with_rest)?;
        matched.extend(a);
        rest.extend(b);
    }
    let matched = subset(vm, exc, matched)?;
    let rest = if with_rest {
        subset(vm, exc, rest)?
    } else {
        None
    };
    Ok((matched, rest))
}

/// `orig.derive(excs)` with `orig`'s context, cause, traceback and (a copy
/// of) its notes; None for no exceptions.
fn subset(vm: &dyn Vm, orig: &Value, excs: Vec<Value>) -> PyResult<Option<Value>> {
    if excs.is_empty() {
        return Ok(None);
    }
    let derive = vm.getattr(orig, "derive")?;
    let eg = vm.call(&derive, vec![Value::list(excs)], Vec::new())?;
    let (Value::Instance(new), Value::Instance(old)) = (&eg, orig) else {
        return Err(derive_error());
    };
    if !is_group(&eg) {
        return Err(derive_error());
    }
    for name in ["__traceback__", "__context__", "__cause__"] {
        if let Some(v) = old.get_attr(name) {
            new.set_attr(name, v);
        }
    }
    // CPython sets the cause with `PyException_SetCause`, which also
    // suppresses the context.
    new.set_attr("__suppress_context__", Value::Bool(true));
    if let Some(notes) = old.get_attr("__notes__") {
        // A copy, so that the parts have independent lists of notes.
        let notes = match &notes {
            Value::List(_) | Value::Tuple(_) => Value::list(vm.collect(&notes)?),
            _ => notes,
        };
        new.set_attr("__notes__", notes);
    }
    Ok(Some(eg))
}

fn derive_error() -> PyErr {
    type_error("derive must return an instance of BaseExceptionGroup")
}

fn none_or(v: Option<Value>) -> Value {
    v.unwrap_or(Value::None)
}

// `BaseExceptionGroup.split(condition)`: `(match, rest)`.
#[native("BaseExceptionGroup.split(self, matcher_value, /)")]
fn eg_split(vm: &dyn Vm, this: &Value, matcher_value: &Value) -> PyResult<Value> {
    let m = matcher(matcher_value)?;
    let (matched, rest) = split_recursive(vm, this, &m, true)?;
    Ok(Value::tuple(vec![none_or(matched), none_or(rest)]))
}

// `BaseExceptionGroup.subgroup(condition)`: the part that matches.
#[native("BaseExceptionGroup.subgroup(self, matcher_value, /)")]
fn eg_subgroup(vm: &dyn Vm, this: &Value, matcher_value: &Value) -> PyResult<Value> {
    let m = matcher(matcher_value)?;
    let (matched, _) = split_recursive(vm, this, &m, false)?;
    Ok(none_or(matched))
}

// `BaseExceptionGroup.derive(excs)`: a group with this one's message.
#[native("BaseExceptionGroup.derive(self, excs, /)")]
fn eg_derive(vm: &dyn Vm, this: &Value, excs: Value) -> PyResult<Value> {
    let message = vm.getattr(this, "message")?;
    let cls = Value::Class(ExcType::BaseExceptionGroup.class());
    vm.call(&cls, vec![message, excs], Vec::new())
}

/// Adds `split`, `subgroup` and `derive` to `BaseExceptionGroup`.
pub(super) fn register_methods() {
    let cls = ExcType::BaseExceptionGroup.class();
    for def in [eg_split::DEF, eg_subgroup::DEF, eg_derive::DEF] {
        super::class::add_missing(&cls, def);
    }
}

/// The class `BaseException.__new__` makes for `cls(*args)`:
/// `BaseExceptionGroup(msg, excs)` is an `ExceptionGroup` when every one of
/// `excs` is an `Exception`, and `OSError(errno, ...)` the subclass for that
/// errno (`FileNotFoundError` for `ENOENT`), as in CPython; else `cls`.
pub(super) fn concrete_exception_class(vm: &dyn Vm, cls: &Rc<Class>, args: &[Value]) -> Rc<Class> {
    let base_group = ExcType::BaseExceptionGroup.class();
    if Rc::ptr_eq(cls, &base_group) {
        if let [_, excs @ (Value::List(_) | Value::Tuple(_))] = args {
            let plain = ExcType::Exception.class();
            let all_plain = vm.collect(excs).is_ok_and(|items| {
                !items.is_empty()
                    && items
                        .iter()
                        .all(|e| matches!(e, Value::Instance(i) if i.class.is_subclass_of(&plain)))
            });
            if all_plain {
                return ExcType::ExceptionGroup.class();
            }
        }
    } else if Rc::ptr_eq(cls, &ExcType::OSError.class()) && (2..=5).contains(&args.len()) {
        if let Value::Int(errno) = args[0] {
            if let Some(t) = ExcType::for_errno(errno) {
                return t.class();
            }
        }
    }
    cls.clone()
}

/// The leaf exceptions of `v` (itself when it is no group).
fn leaves(vm: &dyn Vm, v: &Value, out: &mut Vec<Value>) -> PyResult<()> {
    if is_group(v) {
        for e in exceptions(vm, v)? {
            leaves(vm, &e, out)?;
        }
    } else {
        out.push(v.clone());
    }
    Ok(())
}

impl Interp {
    /// `BaseExceptionGroup(message, excs)`: an `ExceptionGroup` when every
    /// exception is an `Exception`.
    fn new_group(&self, message: &str, excs: Value) -> PyResult<Value> {
        let cls = Value::Class(ExcType::BaseExceptionGroup.class());
        self.call(&cls, vec![Value::str(message), excs], Vec::new())
    }

    /// The `except*` clauses of a `try` whose body raised `err`: each
    /// handler runs with the part of the group its types match (a lone
    /// exception is wrapped in a group first); what the handlers raise and
    /// what none of them matched is raised again, as one group.
    pub(super) fn handle_star(
        &self,
        f: &mut Frame,
        mut err: PyErr,
        handlers: &[ExceptHandler],
    ) -> PyResult<Flow> {
        let orig = err.value().clone();
        let mut rest = Some(orig.clone());
        // What the handlers raised: (exception, whether it re-raises part
        // of `orig`), the unraised `PyErr` kept for its traceback.
        let mut raised: Vec<(PyErr, bool)> = Vec::new();
        for h in handlers {
            let Some(current) = rest.clone() else { break };
            let Some(t) = &h.type_ else { continue };
            let (back, cls) = self.while_handling(err, || {
                let cls = self.eval(f, t)?;
                self.check_star_type(&cls)?;
                Ok(cls)
            });
            err = back;
            let cls = cls?;
            let matched = if matches(self, &current, &Matcher::Type(&cls))? {
                rest = None;
                if is_group(&current) {
                    current
                } else {
                    self.new_group("", Value::tuple(vec![current]))?
                }
            } else if is_group(&current) {
                let split = self.getattr(&current, "split")?;
                let pair = self.call(&split, vec![cls], Vec::new())?;
                let pair = self.collect_iterable(&pair)?;
                let [m, r] = pair.as_slice() else {
                    return Err(type_error("X.split(T) must return a tuple of two values"));
                };
                rest = (!matches!(r, Value::None)).then(|| r.clone());
                if matches!(m, Value::None) {
                    continue;
                }
                m.clone()
            } else {
                continue;
            };
            if let Some(n) = &h.name {
                self.assign(f, n, matched.clone())?;
            }
            let handled = PyErr::from_value(matched.clone());
            let (_, r) = self.while_handling(handled, || self.exec_block(f, &h.body));
            if let Some(n) = &h.name {
                let _ = self.delete(f, n);
            }
            if let Err(e) = r {
                let reraise = e.0.reraise && e.value().is(&matched);
                raised.push((e, reraise));
            }
        }
        if let Some(r) = rest {
            if r.is(&orig) && raised.is_empty() {
                // No handler matched: the exception goes on as it was.
                return Err(err);
            }
            raised.push((PyErr::from_value(r), true));
        }
        match self.prep_reraise_star(&orig, &err, raised)? {
            None => Ok(Flow::Normal),
            Some(e) => Err(e),
        }
    }

    /// An `except*` clause's class (or tuple of classes): exceptions, and
    /// no exception group.
    fn check_star_type(&self, cls: &Value) -> PyResult<()> {
        let items = match cls {
            Value::Tuple(items) => items.to_vec(),
            other => vec![other.clone()],
        };
        for c in &items {
            let Value::Class(c) = c else {
                return Err(not_exception_class());
            };
            if c.exception_type().is_none() {
                return Err(not_exception_class());
            }
            if c.is_subclass_of(&ExcType::BaseExceptionGroup.class()) {
                return Err(type_error(
                    "catching ExceptionGroup with except* is not allowed. Use except instead.",
                ));
            }
        }
        Ok(())
    }

    /// CPython's `_PyExc_PrepReraiseStar`: what leaves an `except*`
    /// statement. The re-raised parts are projected back onto `orig` (keeping
    /// its nesting); new exceptions join them in a group with an empty
    /// message.
    /// `err` is what the body raised: a part of it raised again keeps its
    /// traceback.
    fn prep_reraise_star(
        &self,
        orig: &Value,
        err: &PyErr,
        raised: Vec<(PyErr, bool)>,
    ) -> PyResult<Option<PyErr>> {
        if raised.is_empty() {
            return Ok(None);
        }
        if !is_group(orig) {
            // A lone exception, wrapped: at most one handler ran.
            return Ok(raised.into_iter().next().map(|(e, _)| e));
        }
        let mut kept = Vec::new();
        let mut new = Vec::new();
        for (e, reraise) in raised {
            if reraise {
                leaves(self, e.value(), &mut kept)?;
            } else {
                new.push(e.value().clone());
            }
        }
        let reraised = if kept.is_empty() {
            None
        } else {
            split_recursive(self, orig, &Matcher::Leaves(&kept), false)?.0
        };
        if new.is_empty() {
            return Ok(reraised.map(|v| {
                let mut e = err.clone();
                e.0.value = v;
                e.0.reraise = false;
                e
            }));
        }
        new.extend(reraised);
        let eg = self.new_group("", Value::list(new))?;
        Ok(Some(PyErr::from_value(eg)))
    }
}

/// The TypeError of an `except` clause naming something not an exception class.
pub(super) fn not_exception_class() -> PyErr {
    type_error("catching classes that do not inherit from BaseException is not allowed")
}
