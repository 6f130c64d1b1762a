//! The signature of a traced function as TensorFlow types it (its
//! `FunctionType`): each parameter's trace type (`TensorSpec`, `Literal[3]`,
//! `List[...]`, `Dict[...]`), how a call binds to it, and the flat signature
//! a concrete function falls back to.
//!
//! A `tf.function` call is canonicalized before it is keyed and traced
//! (`canonicalize`: arguments given by keyword move to their positions and
//! defaults fill the rest), so `f(x, 3)`, `f(x, n=3)` and `f(x)` with
//! `n=3` are one signature, as in TensorFlow. A concrete function's call
//! first binds to the structured signature (Python's binding rules without
//! defaults, then each value cast to its parameter's type: a literal must be
//! equal, a tensor must fit the spec, a Python number converts); failing
//! that, to the flat signature (the graph's tensor inputs by position or by
//! placeholder name); failing both, TensorFlow's TypeError naming both
//! reasons.

use std::rc::Rc;

use crate::distribute::dataset::structure::{Spec, SpecObj};
use crate::object::tensor::convert::to_tensor;
use crate::runtime::graph::shapes::{self, StaticShape};
use crate::runtime::{DType, Tensor};
use crate::value::signature::ParamKind;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The type a parameter was traced with.
pub enum TraceType {
    /// A tensor: its dtype and static shape (None: an unknown dim).
    Tensor(DType, StaticShape),
    /// A Python value, matched by equality.
    Literal(Value),
    /// A list of types.
    List(Vec<TraceType>),
    /// A tuple of types.
    Tuple(Vec<TraceType>),
    /// A dict of types, in the dict's order.
    Dict(Vec<(Value, TraceType)>),
}

/// One parameter of a traced signature.
pub struct Param {
    /// Its name.
    pub name: Rc<str>,
    /// How it is passed.
    pub kind: ParamKind,
    /// Its type.
    pub ty: TraceType,
}

/// A traced signature: its parameters, in the function's order, and the
/// flat inputs' names.
pub struct FunctionType {
    /// The Python function's name.
    pub func_name: String,
    /// The parameters.
    pub params: Vec<Param>,
    /// The flat signature's argument names (the graph's placeholders).
    pub flat_names: Vec<String>,
}

fn type_error(msg: String) -> PyErr {
    PyErr::new(ExcType::TypeError, msg)
}

/// `f(x, n=3)` as TensorFlow binds it before keying a trace: every
/// positional-or-keyword argument at its position, defaults filled, keyword
/// arguments in the parameters' order. None where the call is canonical
/// already, the function is not a plain Python function with a fixed
/// parameter list, or the call does not bind (the call itself then raises
/// Python's error).
pub fn canonicalize(
    func: &Value,
    args: &[Value],
    kwargs: &[(Rc<str>, Value)],
) -> Option<crate::distribute::nest::CallArgs> {
    let params = call_params(func)?;
    if has_var_params(func) || (kwargs.is_empty() && args.len() == params.len()) {
        // not a fixed parameter list, or every argument already in place
        return None;
    }
    let mut pos = Vec::new();
    let mut kw = Vec::new();
    let mut used = 0;
    for (i, p) in params.iter().enumerate() {
        let given = kwargs.iter().find(|(k, _)| **k == *p.name);
        let v = if i < args.len() {
            if p.kind == ParamKind::KeywordOnly || given.is_some() {
                return None;
            }
            args[i].clone()
        } else if let Some((_, v)) = given.filter(|_| p.kind != ParamKind::PositionalOnly) {
            used += 1;
            v.clone()
        } else {
            p.default.clone()?
        };
        match p.kind {
            ParamKind::KeywordOnly => kw.push((p.name.clone(), v)),
            _ => pos.push(v),
        }
    }
    (args.len() <= pos.len() && used == kwargs.len()).then_some((pos, kw))
}

/// The parameters a call of `func` binds: a Python function's, or a bound
/// method's after its receiver (`tf.function(obj.method)`).
pub fn call_params(func: &Value) -> Option<&[crate::value::signature::Param]> {
    match func {
        Value::Function(f) => Some(&f.sig.params),
        Value::BoundMethod(b) => match &b.func {
            Value::Function(f) => f.sig.params.get(1..),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `func` takes `*args` or `**kwargs`.
fn has_var_params(func: &Value) -> bool {
    let Some(params) = call_params(func) else {
        return true;
    };
    params
        .iter()
        .any(|p| matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword))
}

impl TraceType {
    /// The type of a traced argument (`statics`: the static shapes of the
    /// call's tensors in order, where some dims are unknown). None for a
    /// value the structured binding does not model (a variable, a
    /// distributed value, another object).
    pub fn of(v: &Value, statics: Option<&[StaticShape]>, k: &mut usize) -> Option<TraceType> {
        let mut items = |xs: &[Value]| -> Option<Vec<TraceType>> {
            xs.iter().map(|x| TraceType::of(x, statics, k)).collect()
        };
        match v {
            Value::Tensor(t) => {
                let dims = statics
                    .and_then(|s| s.get(*k))
                    .filter(|d| shapes::fits(d, t.dims()))
                    .cloned()
                    .unwrap_or_else(|| Some(shapes::known(t)));
                *k += 1;
                Some(TraceType::Tensor(t.dtype(), dims))
            }
            Value::None | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {
                Some(TraceType::Literal(v.clone()))
            }
            Value::List(l) => {
                let xs = l.borrow().clone();
                items(&xs).map(TraceType::List)
            }
            Value::Tuple(t) => items(t).map(TraceType::Tuple),
            Value::Dict(d) => {
                let pairs = d.borrow().items();
                let out = pairs
                    .into_iter()
                    .map(|(key, x)| Some((key, TraceType::of(&x, statics, k)?)))
                    .collect::<Option<Vec<_>>>()?;
                Some(TraceType::Dict(out))
            }
            _ => None,
        }
    }

    /// TensorFlow's text of the type.
    pub fn text(&self, vm: &dyn Vm) -> PyResult<String> {
        let join = |xs: &[TraceType]| -> PyResult<String> {
            Ok(xs
                .iter()
                .map(|x| x.text(vm))
                .collect::<PyResult<Vec<_>>>()?
                .join(", "))
        };
        Ok(match self {
            TraceType::Tensor(dtype, dims) => Spec::Tensor {
                dtype: *dtype,
                dims: dims.clone(),
            }
            .text(),
            TraceType::Literal(v) => format!("Literal[{}]", vm.repr(v)?),
            TraceType::List(xs) => format!("List[{}]", join(xs)?),
            TraceType::Tuple(xs) => format!("Tuple[{}]", join(xs)?),
            TraceType::Dict(pairs) => {
                let mut parts = Vec::with_capacity(pairs.len());
                for (key, x) in pairs {
                    parts.push(format!("[{}, {}]", vm.repr(key)?, x.text(vm)?));
                }
                format!("Dict[{}]", parts.join(", "))
            }
        })
    }

    /// `value` cast to this type (Python numbers converted to tensors), or
    /// TensorFlow's reason why it cannot be.
    fn cast(&self, vm: &dyn Vm, value: &Value) -> PyResult<Result<Value, String>> {
        let cannot = |what: String| Ok(Err(what));
        match self {
            TraceType::Literal(l) => {
                if vm.eq(value, l)? {
                    Ok(Ok(value.clone()))
                } else {
                    cannot(format!(
                        "Can not cast {} to Literal[{}]",
                        vm.repr(value)?,
                        vm.repr(l)?
                    ))
                }
            }
            TraceType::Tensor(dtype, dims) => {
                let t = match value {
                    Value::Tensor(t) => t.clone(),
                    other => match to_tensor(vm, other, Some(*dtype)) {
                        Ok(t) => t,
                        Err(e) => return cannot(vm.str(e.value())?),
                    },
                };
                if t.dtype() == *dtype && shapes::fits(dims, t.dims()) {
                    Ok(Ok(Value::Tensor(t)))
                } else {
                    let got = TraceType::Tensor(t.dtype(), Some(shapes::known(&t)));
                    cannot(format!(
                        "Can not cast {} to {}",
                        got.text(vm)?,
                        self.text(vm)?
                    ))
                }
            }
            TraceType::List(xs) | TraceType::Tuple(xs) => {
                let (ok, kind) = match self {
                    TraceType::List(_) => (matches!(value, Value::List(_)), "list"),
                    _ => (matches!(value, Value::Tuple(_)), "tuple"),
                };
                if !ok {
                    return cannot(format!("Can not cast {} to {kind} type.", vm.repr(value)?));
                }
                let items = vm.collect(value)?;
                if items.len() != xs.len() {
                    return cannot(format!(
                        "Expected {} to have length of {}",
                        vm.str(value)?,
                        xs.len()
                    ));
                }
                let mut out = Vec::with_capacity(items.len());
                for (x, t) in items.iter().zip(xs) {
                    match t.cast(vm, x)? {
                        Ok(v) => out.push(v),
                        Err(e) => return cannot(e),
                    }
                }
                Ok(Ok(match self {
                    TraceType::List(_) => Value::list(out),
                    _ => Value::tuple(out),
                }))
            }
            TraceType::Dict(pairs) => {
                let Value::Dict(d) = value else {
                    return cannot(format!("Can not cast {} to a Dict type.", vm.repr(value)?));
                };
                let given = d.borrow().items();
                let same_keys = given.len() == pairs.len()
                    && pairs
                        .iter()
                        .all(|(k, _)| given.iter().any(|(g, _)| vm.eq(g, k).unwrap_or(false)));
                if !same_keys {
                    return cannot(format!(
                        "{} has different keys with the TraceType {}.",
                        vm.repr(value)?,
                        self.text(vm)?
                    ));
                }
                let mut out = crate::value::Dict::new();
                for (k, t) in pairs {
                    let x = vm.getitem(value, k)?;
                    match t.cast(vm, &x)? {
                        Ok(v) => out.insert(k.clone(), v)?,
                        Err(e) => return cannot(e),
                    }
                }
                Ok(Ok(Value::dict(out)))
            }
        }
    }

    /// The value with this type's tensors taken from `flat` in order and
    /// its literals as traced.
    fn fill(&self, flat: &mut std::slice::Iter<'_, Tensor>) -> Value {
        match self {
            TraceType::Tensor(..) => flat.next().cloned().map_or(Value::None, Value::Tensor),
            TraceType::Literal(v) => v.clone(),
            TraceType::List(xs) => Value::list(xs.iter().map(|x| x.fill(flat)).collect()),
            TraceType::Tuple(xs) => Value::tuple(xs.iter().map(|x| x.fill(flat)).collect()),
            TraceType::Dict(pairs) => {
                let mut d = crate::value::Dict::new();
                for (k, x) in pairs {
                    let _ = d.insert(k.clone(), x.fill(flat));
                }
                Value::dict(d)
            }
        }
    }

    /// The `structured_input_signature` value: a `tf.TensorSpec` named by
    /// its path for each tensor, the literal itself otherwise.
    fn spec_value(&self, vm: &dyn Vm, path: &str) -> PyResult<Value> {
        Ok(match self {
            TraceType::Tensor(dtype, dims) => Value::native(SpecObj(
                Spec::Tensor {
                    dtype: *dtype,
                    dims: dims.clone(),
                },
                Some(Rc::from(path)),
            )),
            TraceType::Literal(v) => v.clone(),
            TraceType::List(xs) | TraceType::Tuple(xs) => {
                let items = xs
                    .iter()
                    .enumerate()
                    .map(|(i, x)| x.spec_value(vm, &format!("{path}_{i}")))
                    .collect::<PyResult<Vec<_>>>()?;
                match self {
                    TraceType::List(_) => Value::list(items),
                    _ => Value::tuple(items),
                }
            }
            TraceType::Dict(pairs) => {
                let mut d = crate::value::Dict::new();
                for (k, x) in pairs {
                    let key = match k {
                        Value::Str(s) => s.to_string(),
                        other => vm.str(other)?,
                    };
                    d.insert(k.clone(), x.spec_value(vm, &format!("{path}_{key}"))?)?;
                }
                Value::dict(d)
            }
        })
    }

    fn tensors(&self, v: &Value, out: &mut Vec<Tensor>) {
        match (self, v) {
            (TraceType::Tensor(..), Value::Tensor(t)) => out.push(t.clone()),
            (TraceType::List(xs) | TraceType::Tuple(xs), v) => {
                let items: Vec<Value> = match v {
                    Value::List(l) => l.borrow().clone(),
                    Value::Tuple(t) => t.to_vec(),
                    _ => return,
                };
                xs.iter().zip(&items).for_each(|(x, i)| x.tensors(i, out));
            }
            (TraceType::Dict(pairs), Value::Dict(d)) => {
                for (k, x) in pairs {
                    if let Ok(Some(item)) = d.borrow().get(k) {
                        x.tensors(&item, out);
                    }
                }
            }
            _ => {}
        }
    }

    fn count(&self) -> usize {
        match self {
            TraceType::Tensor(..) => 1,
            TraceType::Literal(_) => 0,
            TraceType::List(xs) | TraceType::Tuple(xs) => xs.iter().map(TraceType::count).sum(),
            TraceType::Dict(pairs) => pairs.iter().map(|(_, x)| x.count()).sum(),
        }
    }
}

/// A call bound to a concrete function: its flat tensor inputs and the
/// arguments the Python body would take.
pub struct Bound {
    /// The graph's inputs, in order.
    pub inputs: Vec<Tensor>,
    /// The positional arguments.
    pub args: Vec<Value>,
    /// The keyword arguments.
    pub kwargs: Vec<(Rc<str>, Value)>,
}

impl FunctionType {
    /// The type of a canonical traced call, None where some argument is not
    /// modelled (the call then binds as before: by its tensors).
    pub fn of_call(
        func: &Value,
        args: &[Value],
        kwargs: &[(Rc<str>, Value)],
        statics: Option<&[StaticShape]>,
    ) -> Option<FunctionType> {
        let own = call_params(func)?;
        if has_var_params(func) {
            return None;
        }
        let mut k = 0;
        let mut params = Vec::with_capacity(own.len());
        let mut values = args.iter();
        for p in own {
            let v = match p.kind {
                ParamKind::KeywordOnly => {
                    kwargs.iter().find(|(n, _)| **n == *p.name).map(|(_, v)| v)
                }
                _ => values.next(),
            };
            let ty = TraceType::of(v?, statics, &mut k)?;
            params.push(Param {
                name: p.name.clone(),
                kind: p.kind,
                ty,
            });
        }
        let mut flat_names = Vec::new();
        for p in &params {
            for _ in 0..p.ty.count() {
                let mut name = p.name.to_string();
                let mut n = 0;
                while flat_names.contains(&name) {
                    n += 1;
                    name = format!("{}_{n}", p.name);
                }
                flat_names.push(name);
            }
        }
        Some(FunctionType {
            func_name: match func {
                Value::Function(f) => f.def.name.to_string(),
                Value::BoundMethod(b) => match &b.func {
                    Value::Function(f) => f.def.name.to_string(),
                    _ => String::new(),
                },
                _ => String::new(),
            },
            params,
            flat_names,
        })
    }

    /// `name (KIND): type` for each parameter.
    pub fn param_lines(&self, vm: &dyn Vm) -> PyResult<Vec<String>> {
        self.params
            .iter()
            .map(|p| {
                Ok(format!(
                    "{} ({}): {}",
                    p.name,
                    super::concrete::kind_name(p.kind),
                    p.ty.text(vm)?
                ))
            })
            .collect()
    }

    /// `(a: TensorSpec(...), b: Literal[2], *, c: ...) -> OUTPUT`.
    pub fn signature_text(&self, vm: &dyn Vm, output: &str) -> PyResult<String> {
        let mut parts = Vec::with_capacity(self.params.len() + 1);
        let mut star = false;
        for p in &self.params {
            if p.kind == ParamKind::KeywordOnly && !star {
                parts.push("*".to_string());
                star = true;
            }
            parts.push(format!("{}: {}", p.name, p.ty.text(vm)?));
        }
        Ok(format!("({}) -> {output}", parts.join(", ")))
    }

    /// `structured_input_signature`: `((positional...), {keyword-only})`.
    pub fn structured_input_signature(&self, vm: &dyn Vm) -> PyResult<Value> {
        let mut pos = Vec::new();
        let mut kw = crate::value::Dict::new();
        for p in &self.params {
            let v = p.ty.spec_value(vm, &p.name)?;
            match p.kind {
                ParamKind::KeywordOnly => kw.insert(Value::str(&*p.name), v)?,
                _ => pos.push(v),
            }
        }
        Ok(Value::tuple(vec![Value::tuple(pos), Value::dict(kw)]))
    }

    /// Binds a call to the structured signature, then (failing that) to the
    /// flat one; TensorFlow's TypeError when neither binds.
    pub fn bind(
        &self,
        vm: &dyn Vm,
        args: &[Value],
        kwargs: &[(Rc<str>, Value)],
        output: &str,
    ) -> PyResult<Bound> {
        let structured = match self.bind_structured(vm, args, kwargs)? {
            Ok(b) => return Ok(b),
            Err(e) => e,
        };
        let flat = match self.bind_flat(vm, args, kwargs)? {
            Ok(b) => return Ok(b),
            Err(e) => e,
        };
        let mut kw = crate::value::Dict::new();
        for (k, v) in kwargs {
            kw.insert(Value::str(&**k), v.clone())?;
        }
        Err(type_error(format!(
            "Binding inputs to tf.function failed due to `{structured}`. Received args: {} and kwargs: {} for signature: {}.\nFallback to flat signature also failed due to: {flat}",
            vm.str(&Value::tuple(args.to_vec()))?,
            vm.str(&Value::dict(kw))?,
            self.signature_text(vm, output)?
        )))
    }

    /// Binds a call to the types of an `input_signature` (each value cast
    /// to its spec: a Python list becomes a tensor, a tensor must fit);
    /// TensorFlow's TypeError when the call does not bind.
    pub fn bind_signature(
        &self,
        vm: &dyn Vm,
        args: &[Value],
        kwargs: &[(Rc<str>, Value)],
    ) -> PyResult<crate::distribute::nest::CallArgs> {
        let reason = match self.bind_structured(vm, args, kwargs)? {
            Ok(b) => return Ok((b.args, b.kwargs)),
            Err(e) => e,
        };
        let mut kw = crate::value::Dict::new();
        for (k, v) in kwargs {
            kw.insert(Value::str(&**k), v.clone())?;
        }
        let params = self
            .params
            .iter()
            .map(|p| Ok(format!("{}: {}", p.name, p.ty.text(vm)?)))
            .collect::<PyResult<Vec<_>>>()?;
        Err(type_error(format!(
            "Binding inputs to tf.function failed due to `{reason}`. Received args: {} and kwargs: {} for signature: ({}).",
            vm.str(&Value::tuple(args.to_vec()))?,
            vm.str(&Value::dict(kw))?,
            params.join(", ")
        )))
    }

    /// Python's `Signature.bind` (no defaults: a concrete function has
    /// none), then each value cast to its parameter's type.
    fn bind_structured(
        &self,
        vm: &dyn Vm,
        args: &[Value],
        kwargs: &[(Rc<str>, Value)],
    ) -> PyResult<Result<Bound, String>> {
        let mut values: Vec<Value> = Vec::with_capacity(self.params.len());
        let mut args_it = args.iter();
        let mut taken = 0;
        for p in &self.params {
            let given = kwargs.iter().find(|(k, _)| **k == *p.name);
            if p.kind != ParamKind::KeywordOnly {
                if let Some(a) = args_it.next() {
                    if given.is_some() && p.kind != ParamKind::PositionalOnly {
                        return Ok(Err(format!("multiple values for argument '{}'", p.name)));
                    }
                    values.push(a.clone());
                    continue;
                }
            } else if args_it.len() > 0 {
                return Ok(Err("too many positional arguments".to_string()));
            }
            match given {
                Some((_, v)) if p.kind != ParamKind::PositionalOnly => {
                    taken += 1;
                    values.push(v.clone());
                }
                _ => return Ok(Err(format!("missing a required argument: '{}'", p.name))),
            }
        }
        if args_it.len() > 0 {
            return Ok(Err("too many positional arguments".to_string()));
        }
        if taken < kwargs.len() {
            let extra = kwargs
                .iter()
                .find(|(k, _)| !self.params.iter().any(|p| p.name == *k))
                .map_or_else(|| kwargs[0].0.clone(), |(k, _)| k.clone());
            return Ok(Err(format!("got an unexpected keyword argument '{extra}'")));
        }
        let mut bound = Bound {
            inputs: Vec::new(),
            args: Vec::new(),
            kwargs: Vec::new(),
        };
        for (p, v) in self.params.iter().zip(&values) {
            let v = match p.ty.cast(vm, v)? {
                Ok(v) => v,
                Err(e) => return Ok(Err(e)),
            };
            p.ty.tensors(&v, &mut bound.inputs);
            match p.kind {
                ParamKind::KeywordOnly => bound.kwargs.push((p.name.clone(), v)),
                _ => bound.args.push(v),
            }
        }
        Ok(Ok(bound))
    }

    /// The flat signature: the graph's tensor inputs, by position or by
    /// their placeholders' names.
    fn bind_flat(
        &self,
        vm: &dyn Vm,
        args: &[Value],
        kwargs: &[(Rc<str>, Value)],
    ) -> PyResult<Result<Bound, String>> {
        let names = &self.flat_names;
        let summary = format!("{}({})", self.func_name, names.join(", "));
        if args.len() > names.len() {
            return Ok(Err(format!(
                "{summary} takes {} positional arguments, got {}.",
                names.len(),
                args.len()
            )));
        }
        let mut flat: Vec<Value> = args.to_vec();
        let mut rest: Vec<(Rc<str>, Value)> = kwargs.to_vec();
        for name in &names[args.len()..] {
            match rest.iter().position(|(k, _)| **k == **name) {
                Some(i) => flat.push(rest.remove(i).1),
                None => {
                    let mut missing: Vec<&String> = names[args.len()..]
                        .iter()
                        .filter(|n| !kwargs.iter().any(|(k, _)| **k == ***n))
                        .collect();
                    missing.sort();
                    let missing: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
                    return Ok(Err(format!(
                        "{summary} missing required arguments: {}.",
                        missing.join(", ")
                    )));
                }
            }
        }
        if !rest.is_empty() {
            if let Some((k, _)) = rest
                .iter()
                .find(|(k, _)| names[..args.len()].iter().any(|n| **n == **k))
            {
                return Ok(Err(format!("{summary} got two values for '{k}'.")));
            }
            let mut extra: Vec<&str> = rest.iter().map(|(k, _)| &**k).collect();
            extra.sort();
            return Ok(Err(format!(
                "{summary} got unexpected keyword arguments: {}.",
                extra.join(", ")
            )));
        }
        let mut inputs = Vec::with_capacity(flat.len());
        for (i, v) in flat.iter().enumerate() {
            match v {
                Value::Tensor(t) => inputs.push(t.clone()),
                other => {
                    return Ok(Err(format!(
                    "{summary}: expected argument #{i}(zero-based) to be a Tensor; got {} ({}).",
                    other.type_name(),
                    vm.str(other)?
                )))
                }
            }
        }
        let mut it = inputs.iter();
        let mut bound = Bound {
            inputs: Vec::new(),
            args: Vec::new(),
            kwargs: Vec::new(),
        };
        for p in &self.params {
            let v = p.ty.fill(&mut it);
            match p.kind {
                ParamKind::KeywordOnly => bound.kwargs.push((p.name.clone(), v)),
                _ => bound.args.push(v),
            }
        }
        bound.inputs = inputs;
        Ok(Ok(bound))
    }
}

impl super::FunctionObj {
    /// The copy of a `tf.function` method bound to an instance (cached:
    /// later accesses reuse its traces), as `Function.__get__` gives it.
    pub(super) fn bound_to(&self, receiver: &Value) -> Option<Value> {
        let Value::Instance(inst) = receiver else {
            return None;
        };
        if !matches!(self.func, Value::Function(_)) {
            return None;
        }
        let mut cache = self.bound.borrow_mut();
        if let Some(k) = cache
            .iter()
            .position(|(w, _)| w.upgrade().is_some_and(|i| Rc::ptr_eq(&i, inst)))
        {
            let entry = cache.remove(k);
            let v = entry.1.clone();
            cache.push(entry);
            return Some(v);
        }
        let method = Value::BoundMethod(Rc::new(crate::value::BoundMethod {
            receiver: receiver.clone(),
            func: self.func.clone(),
        }));
        let v = super::FunctionObj::value(
            method,
            self.relaxed,
            self.autograph,
            self.signature_dims.clone(),
            self.input_signature.clone(),
        );
        if cache.len() >= super::BOUND_CACHE {
            cache.remove(0);
        }
        cache.push((Rc::downgrade(inst), v.clone()));
        Some(v)
    }
}
