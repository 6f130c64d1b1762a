//! Calling: user functions (frames, parameter binding through the one
//! binder, closures), natives, bound methods, classes (instantiation) and
//! callable objects; creating function objects from `def` and `lambda`.

use std::cell::RefCell;
use std::rc::Rc;

use super::frame::Frame;
use super::{Flow, Interp};
use crate::object::types::type_error;
use crate::syntax::ast::{FunctionDef, Slot};
use crate::value::signature::{Param, ParamKind, Signature};
use crate::value::{ClassKind, ExcType, Function, Instance, PyErr, PyResult, Value};

/// The node name of a native whose result depends only on its arguments'
/// static shapes, which a graph (kept per exact signature) knows.
fn shape_only(name: &str) -> Option<&'static str> {
    Some(match name {
        "shape" => "Shape",
        "size" => "Size",
        "rank" => "Rank",
        "zeros_like" => "zeros_like",
        "ones_like" => "ones_like",
        _ => return None,
    })
}

/// While a `tf.function` traces: a tensor a native made from constant
/// arguments (`tf.zeros([2])`) is a constant of the graph, named after the
/// native as TensorFlow names it (`zeros`).
fn graph_constant(name: &str, args: &[Value], result: &PyResult<Value>, before: usize) {
    use crate::runtime::graph;
    let Ok(Value::Tensor(t)) = result else { return };
    let base = name.rsplit('.').next().unwrap_or(name);
    let (base, shape_only) = match (shape_only(name), base) {
        (Some(n), _) => (n, true),
        (None, "constant" | "convert_to_tensor") => ("Const", false),
        (None, "fill") => ("Fill", false),
        (None, other) => (other, false),
    };
    if graph::is_symbolic(t) {
        if base != "Const" {
            graph::rename_constant(t, before, base);
        }
        return;
    }
    if shape_only || crate::object::tensor::constant_args(args) {
        graph::constant_named(t, base);
    }
    // a shape-only constant of a tensor whose static shape is partial
    if let (true, Some(Value::Tensor(x))) = (shape_only, args.first()) {
        if let Some(s) = graph::static_dims(x) {
            // its value is this trace's, not the graph's (a known rank
            // still fixes `tf.rank`)
            if base != "Rank" || s.is_none() {
                graph::shapes::mark_dynamic(t);
            }
            let shape = match base {
                "Shape" => Some(vec![s.map(|d| d.len())]),
                "zeros_like" | "ones_like" => s,
                _ => return,
            };
            graph::shapes::set_static(t, shape);
        }
    }
}

impl Interp {
    /// TensorFlow's dispatch for composite tensors written in the language
    /// (`tf.RaggedTensor`, `tf.sparse.SparseTensor`): a native that failed
    /// on its arguments (a composite converts to no tensor) is offered to
    /// the `__tf_dispatch__(func, args)` class method of the first composite
    /// among them (or in a list or tuple argument), with the bound arguments
    /// in signature order; it returns the result, or `NotImplemented` for
    /// the native's own error. Only the error path pays for it.
    #[cold]
    pub(crate) fn composite_dispatch(
        &self,
        nf: &Rc<crate::value::NativeFunction>,
        values: &[Value],
        err: PyErr,
    ) -> PyResult<Value> {
        fn composite(v: &Value) -> Option<Value> {
            match v {
                Value::Instance(inst) => inst
                    .class
                    .lookup("__tf_dispatch__")
                    .is_some()
                    .then(|| v.clone()),
                _ => None,
            }
        }
        let found = values.iter().find_map(|v| match v {
            Value::List(l) => l.borrow().iter().find_map(composite),
            Value::Tuple(t) => t.iter().find_map(composite),
            other => composite(other),
        });
        let Some(obj) = found else {
            return Err(err);
        };
        let h = self.get_attribute(&obj, "__tf_dispatch__")?;
        let func = Value::NativeFunction(nf.clone());
        let out = self.call_value(&h, vec![func, Value::list(values.to_vec())], Vec::new())?;
        if out.is(&crate::object::descr::not_implemented()) {
            return Err(err);
        }
        Ok(out)
    }

    /// Calls any callable value.
    pub fn call_value(
        &self,
        func: &Value,
        mut args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value> {
        match func {
            Value::Function(fun) => self.call_function(fun, args, kwargs),
            Value::NativeFunction(nf) => {
                if let Some(recv) = &nf.bound {
                    args.insert(0, recv.clone());
                } else if let Some(Value::Instance(_)) = args.first() {
                    // `list.append(stack, x)`: the builtin value underneath.
                    let first = std::mem::replace(&mut args[0], Value::None);
                    args[0] = crate::object::types::subclass::native_receiver(nf, first);
                }
                let bound = nf.sig.bind(args, kwargs)?;
                let tracing = crate::runtime::graph::tracing();
                let before = if tracing {
                    crate::runtime::graph::node_count()
                } else {
                    0
                };
                let result = if tracing && shape_only(&nf.sig.name).is_some() {
                    // computed from static shapes: a constant of the graph
                    crate::runtime::graph::paused(|| (nf.func)(self, &bound))
                } else {
                    (nf.func)(self, &bound)
                };
                if tracing {
                    graph_constant(&nf.sig.name, &bound.values, &result, before);
                }
                let result = match result {
                    Err(e) => self.composite_dispatch(nf, &bound.values, e),
                    ok => ok,
                };
                self.give_args(bound.values);
                result
            }
            Value::BoundMethod(bm) => {
                args.insert(0, bm.receiver.clone());
                self.call_value(&bm.func, args, kwargs)
            }
            Value::Class(cls) => self.instantiate(cls, args, kwargs),
            Value::Instance(inst) => match inst.class.lookup("__call__") {
                Some(call) => {
                    // a native descriptor (a `tf.function` method) binds itself
                    if let Value::Native(n) = &call {
                        if let Some(bound) = n.bind(&call, func) {
                            return self.call_value(&bound, args, kwargs);
                        }
                    }
                    args.insert(0, func.clone());
                    self.call_value(&call, args, kwargs)
                }
                None => Err(not_callable(func)),
            },
            Value::Native(n) => n.call(func, args, kwargs, self),
            _ => Err(not_callable(func)),
        }
    }

    /// Calls a user function: binds arguments, runs the body in a new frame.
    pub fn call_function(
        &self,
        fun: &Rc<Function>,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value> {
        if fun.plain && kwargs.is_empty() && args.len() == fun.sig.params.len() {
            let mut args = args;
            let mut locals = self.take_locals();
            locals.extend(args.drain(..).map(Some));
            self.give_args(args);
            return self.call_plain(fun.clone(), locals);
        }
        let depth = self.enter_call()?;
        let def = &fun.def;
        let scope = def.scope.borrow();
        let mut frame = Frame::call(
            fun,
            self.take_locals(),
            Vec::with_capacity(scope.num_cells as usize + fun.closure.len()),
        );
        frame.locals.resize(scope.num_locals as usize, None);
        for _ in 0..scope.num_cells {
            frame.cells.push(self.new_cell());
        }
        frame.cells.extend(fun.closure.iter().cloned());
        // Fast path: exactly the positional parameters, no keywords.
        let simple = kwargs.is_empty()
            && args.len() == fun.sig.params.len()
            && fun.sig.params.iter().all(|p| {
                matches!(
                    p.kind,
                    ParamKind::PositionalOrKeyword | ParamKind::PositionalOnly
                )
            });
        if simple {
            let mut args = args;
            for (slot, v) in scope.param_slots.iter().zip(args.drain(..)) {
                store_param(&mut frame, *slot, v);
            }
            self.give_args(args);
        } else {
            let bound = match fun.sig.bind(args, kwargs) {
                Ok(b) => b,
                Err(e) => {
                    self.give_locals(std::mem::take(&mut frame.locals));
                    return Err(e);
                }
            };
            for (slot, v) in scope.param_slots.iter().zip(bound.values) {
                store_param(&mut frame, *slot, v);
            }
        }
        drop(scope);
        if def.is_generator {
            return self.make_generator(fun, frame);
        }
        self.run_frame(frame, &def.body, depth)
    }

    /// Calls a `plain` user function whose arguments the caller has already
    /// put in `locals[..n]` (a vector from [`Interp::take_locals`]): no
    /// argument vector, no binding, no borrow of the scope.
    pub(crate) fn call_plain(
        &self,
        fun: Rc<Function>,
        mut locals: Vec<Option<Value>>,
    ) -> PyResult<Value> {
        let depth = match self.enter_call() {
            Ok(d) => d,
            Err(e) => {
                self.give_locals(locals);
                return Err(e);
            }
        };
        if locals.len() < fun.num_locals as usize {
            locals.resize(fun.num_locals as usize, None);
        }
        // The frame takes the caller's reference (no second count); the
        // body is borrowed through it.
        let body: *const [crate::syntax::ast::Stmt] = &fun.def.body[..];
        let frame = Frame::call_owned(fun, locals, Vec::new());
        // SAFETY: `frame.function` holds the function, and through it the
        // definition whose body this is, until `run_frame` has finished with
        // the body (it drops the frame's fields after `exec_block`); no frame
        // ever has its `function` replaced, and a definition's body is never
        // mutated.
        self.run_frame(frame, unsafe { &*body }, depth)
    }

    /// The checks before a Python call level: the recursion limit (Python's
    /// 1000 frames, and the native stack left), Ctrl-C. Returns the depth.
    #[inline]
    fn enter_call(&self) -> PyResult<u32> {
        // The module frame counts as one, as in CPython.
        let depth = self.depth.get();
        if depth + 1 >= self.recursion_limit.get() {
            return Err(recursion_error());
        }
        self.check_interrupt()?;
        self.check_stack()?;
        Ok(depth)
    }

    /// Runs a function body in its bound frame one level deeper, then
    /// recycles the frame's locals.
    #[inline(always)]
    fn run_frame(
        &self,
        frame: Frame,
        body: &[crate::syntax::ast::Stmt],
        depth: u32,
    ) -> PyResult<Value> {
        // Taken apart in place: moving the whole frame out copied its
        // returned value with a 16-byte load just after the `return`
        // statement had stored it as two words (a missed store forward, the
        // hottest instruction of a call in `perf annotate`).
        let mut frame = std::mem::ManuallyDrop::new(frame);
        self.depth.set(depth + 1);
        // the live stack (`sites.rs`): this frame's file and name, where
        // its caller is
        let link = super::sites::Link {
            source: frame.source(),
            name: frame.name(),
            caller_pos: self.pos.get(),
            parent: self.top.get(),
        };
        self.top.set(&link);
        // while a graph traces: whether this frame is the script's code
        let outer = crate::runtime::graph::tracing().then(|| {
            let user = !frame.source().name.starts_with("<stdlib");
            (self.user_code.replace(user), self.lenient.replace(0))
        });
        let result = self.exec_block(&mut frame, body);
        if let Some((user, lenient)) = outer {
            self.user_code.set(user);
            self.lenient.set(lenient);
        }
        self.depth.set(depth);
        self.top.set(link.parent);
        self.pos.set(link.caller_pos);
        // SAFETY: each field but `ret` is read out exactly once here, and
        // `ret` is moved out below on every path; the frame itself is never
        // dropped (`ManuallyDrop`), so nothing is dropped twice.
        let (locals, cells, label, function, class_ns) = unsafe {
            use std::ptr::read;
            (
                read(&frame.locals),
                read(&frame.cells),
                read(&frame.label),
                read(&frame.function),
                read(&frame.class_ns),
            )
        };
        self.give_locals(locals);
        // Most calls never allocate these: skip their (out-of-line) drops.
        forget_unallocated(cells);
        forget_unallocated(class_ns);
        drop(label);
        drop(function);
        if super::generator::dropped_pending() {
            // A generator only this call's frame held: closed as it returns.
            self.close_dropped();
        }
        // Read last, straight into the result.
        let ret = frame.take_ret();
        match result {
            Ok(Flow::Return) => Ok(ret),
            Ok(_) => {
                ret.discard();
                Ok(Value::None)
            }
            Err(mut e) => {
                ret.discard();
                // The caller's call expression adds its own traceback entry.
                e.0.located = false;
                Err(e)
            }
        }
    }

    /// An empty local-slot vector, reused from a finished call when there is one.
    #[inline]
    pub(crate) fn take_locals(&self) -> Vec<Option<Value>> {
        self.locals_pool.borrow_mut().pop().unwrap_or_default()
    }

    /// Returns a frame's local slots for reuse (emptied here).
    #[inline(always)]
    pub(crate) fn give_locals(&self, mut locals: Vec<Option<Value>>) {
        // Each slot by `discard` (a range check on the tag) rather than the
        // drop glue's jump table: the slots of a frame are mostly ints.
        while let Some(slot) = locals.pop() {
            if let Some(v) = slot {
                v.discard();
            }
        }
        let mut pool = self.locals_pool.borrow_mut();
        if pool.len() < 256 {
            pool.push(locals);
        }
    }

    /// Creates a function object for `def`/`lambda` in the current frame:
    /// evaluates defaults, captures free variables.
    pub fn make_function(&self, f: &mut Frame, def: &Rc<FunctionDef>) -> PyResult<Value> {
        let a = &def.args;
        let mut params = Vec::new();
        let npos = a.posonlyargs.len() + a.args.len();
        let first_default = npos - a.defaults.len().min(npos);
        let mut defaults = Vec::with_capacity(a.defaults.len());
        for d in &a.defaults {
            defaults.push(self.eval(f, d)?);
        }
        let mut defaults = defaults.into_iter();
        for (i, arg) in a.posonlyargs.iter().chain(&a.args).enumerate() {
            params.push(Param {
                name: arg.name.clone(),
                kind: if i < a.posonlyargs.len() {
                    ParamKind::PositionalOnly
                } else {
                    ParamKind::PositionalOrKeyword
                },
                default: if i >= first_default {
                    defaults.next()
                } else {
                    None
                },
            });
        }
        if let Some(v) = &a.vararg {
            params.push(Param {
                name: v.name.clone(),
                kind: ParamKind::VarPositional,
                default: None,
            });
        }
        for (arg, d) in a.kwonlyargs.iter().zip(&a.kw_defaults) {
            let default = match d {
                Some(e) => Some(self.eval(f, e)?),
                None => None,
            };
            params.push(Param {
                name: arg.name.clone(),
                kind: ParamKind::KeywordOnly,
                default,
            });
        }
        if let Some(k) = &a.kwarg {
            params.push(Param {
                name: k.name.clone(),
                kind: ParamKind::VarKeyword,
                default: None,
            });
        }
        // `__annotations__`, evaluated now as CPython does (in its order:
        // the positional-or-keyword parameters before the positional-only ones).
        let mut fields = crate::value::Namespace::default();
        let annotated = a
            .args
            .iter()
            .chain(&a.posonlyargs)
            .chain(&a.vararg)
            .chain(&a.kwonlyargs)
            .chain(&a.kwarg)
            .filter_map(|arg| Some((&arg.name, arg.annotation.as_ref()?)));
        let mut annotations = crate::value::Dict::new();
        for (name, e) in annotated {
            annotations.insert_str(name, self.eval(f, e)?)?;
        }
        if let Some(e) = &def.returns {
            annotations.insert_str("return", self.eval(f, e)?)?;
        }
        if !annotations.is_empty() {
            fields.insert("__annotations__".into(), Value::dict(annotations));
        }
        let scope = def.scope.borrow();
        let closure: Vec<_> = scope.free.iter().map(|s| self.cell_of(f, *s)).collect();
        // A generator's call makes a generator object, not a frame run now.
        let plain = !def.is_generator
            && closure.is_empty()
            && scope.num_cells == 0
            && params.len() == npos
            && scope.param_slots.len() == npos
            && scope
                .param_slots
                .iter()
                .enumerate()
                .all(|(i, s)| *s == Slot::Local(i as u32));
        let num_locals = scope.num_locals;
        drop(scope);
        Ok(Value::Function(Rc::new(Function {
            def: def.clone(),
            source: f.source().clone(),
            sig: Rc::new(Signature {
                name: def.qualname.clone(),
                params,
                builtin: crate::value::signature::BuiltinStyle::Python,
            }),
            closure,
            fields: RefCell::new(fields),
            dict: RefCell::new(None),
            // A function nested in a method sees the method's `__class__`
            // cell, as CPython's compiler makes it a free variable there.
            class_cell: RefCell::new(
                f.function
                    .as_ref()
                    .and_then(|outer| outer.class_cell.borrow().clone()),
            ),
            plain,
            num_locals,
        })))
    }

    /// `Class(...)`: the metaclass's `__call__` when it defines one, else
    /// [`Interp::construct`].
    #[inline]
    pub fn instantiate(
        &self,
        cls: &Rc<crate::value::Class>,
        mut args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value> {
        if cls.meta.is_some() {
            if let Some(call) = self.meta_call_hook(cls) {
                args.insert(0, Value::Class(cls.clone()));
                return self.call_value(&call, args, kwargs);
            }
        }
        self.construct(cls, args, kwargs)
    }

    /// `type.__call__(cls, ...)`: builtin constructors, exceptions, user
    /// classes, metaclasses (`M(name, bases, ns)`).
    pub fn construct(
        &self,
        cls: &Rc<crate::value::Class>,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value> {
        match cls.kind {
            ClassKind::Builtin(_) | ClassKind::Native => {
                let Some(ctor) = cls.lookup("__new__") else {
                    return Err(type_error(format!(
                        "cannot create '{}' instances",
                        cls.name
                    )));
                };
                return self.call_value(&ctor, args, kwargs);
            }
            ClassKind::Exception(_) | ClassKind::User => {}
        }
        if cls.hooks.get() & crate::value::Class::HOOK_BUILTIN_BASE != 0 {
            if let Some((base, t)) = crate::object::types::subclass::builtin_base_of(cls) {
                if super::meta::is_metaclass(cls) {
                    return self.construct_class(cls, args, kwargs);
                }
                return self.construct_on_builtin(cls, &base, t, args, kwargs);
            }
        }
        // A user `__new__` (an implicit static method) makes the object; its
        // `__init__` runs only when it returned an instance of the class.
        if let Some(new) = self.type_lookup(cls, &self.dunders.new).attr {
            let new = crate::object::descr::unwrap_method_decorator(new);
            if matches!(new, Value::Function(_)) {
                let (obj, ours) = self.call_new(cls, &new, &args, &kwargs)?;
                if ours {
                    // `type(obj).__init__`: `__new__` may return an instance
                    // of a subclass (Keras's `Model(inputs, outputs)` is a
                    // `Functional`)
                    let real = match &obj {
                        Value::Instance(i) => i.class.clone(),
                        _ => cls.clone(),
                    };
                    self.init_if_defined(&real, &obj, args, kwargs)?;
                }
                return Ok(obj);
            }
        }
        let is_exc = cls.hooks.get() & crate::value::Class::HOOK_EXCEPTION != 0;
        let cls = &if is_exc {
            super::exc_group::concrete_exception_class(self, cls, &args)
        } else {
            cls.clone()
        };
        let inst = Value::Instance(Rc::new(Instance::new(cls.clone())));
        if is_exc {
            if let Value::Instance(i) = &inst {
                i.set_attr("args", Value::tuple(args.clone()));
            }
        }
        let given = !args.is_empty() || !kwargs.is_empty();
        if !self.init_if_defined(cls, &inst, args, kwargs)? && !is_exc && given {
            return Err(type_error(format!("{}() takes no arguments", cls.name)));
        }
        Ok(inst)
    }

    /// An instance of a subclass of a builtin type (`Stack([1, 2])`): a
    /// `__new__` of the script's own makes it (through the builtin's
    /// `__new__`); else the builtin value is made from the arguments (the
    /// containers start empty, for their `__init__` to fill), then the
    /// class's `__init__` runs, or the builtin's own.
    fn construct_on_builtin(
        &self,
        cls: &Rc<crate::value::Class>,
        base: &Rc<crate::value::Class>,
        t: Option<crate::value::ValueType>,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value> {
        use crate::object::types::subclass;
        if !subclass::supported(base, t) {
            return Err(subclass::unsupported(&base.name));
        }
        let own_new = cls
            .lookup_owner("__new__")
            .filter(|o| matches!(o.kind, ClassKind::User))
            .and_then(|_| cls.lookup("__new__"));
        let obj = match own_new {
            Some(new) => {
                let new = crate::object::descr::unwrap_method_decorator(new);
                let (obj, ours) = self.call_new(cls, &new, &args, &kwargs)?;
                if !ours {
                    return Ok(obj);
                }
                obj
            }
            None => {
                let ctor = base.dict.borrow().get("__new__").cloned();
                let Some(ctor) = ctor else {
                    return Err(subclass::unsupported(&base.name));
                };
                let value = if subclass::filled_by_init(t) {
                    self.call_value(&ctor, Vec::new(), Vec::new())?
                } else {
                    self.call_value(&ctor, args.clone(), kwargs.clone())?
                };
                subclass::instance_on(cls, value)
            }
        };
        self.init_if_defined(cls, &obj, args, kwargs)?;
        Ok(obj)
    }

    /// `cls.__new__(cls, *args, **kwargs)` of a script's `__new__`: the
    /// object, and whether it is an instance of `cls` (only then does
    /// `__init__` run).
    fn call_new(
        &self,
        cls: &Rc<crate::value::Class>,
        new: &Value,
        args: &[Value],
        kwargs: &[(Rc<str>, Value)],
    ) -> PyResult<(Value, bool)> {
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(Value::Class(cls.clone()));
        all.extend(args.iter().cloned());
        let obj = self.call_value(new, all, kwargs.to_vec())?;
        let ours = self.is_instance(&obj, &Value::Class(cls.clone()))?;
        Ok((obj, ours))
    }

    /// Runs the class's `__init__` on `obj` unless it is `object`'s;
    /// whether one ran.
    fn init_if_defined(
        &self,
        cls: &Rc<crate::value::Class>,
        obj: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<bool> {
        match self.type_lookup(cls, &self.dunders.init).attr {
            Some(init) if !crate::object::descr::is_object_init(&init) => {
                self.run_init(&init, obj, args, kwargs)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// `obj.__init__(*args, **kwargs)`, which must return None.
    fn run_init(
        &self,
        init: &Value,
        obj: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<()> {
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(obj.clone());
        all.extend(args);
        let r = self.call_value(init, all, kwargs)?;
        if !r.is_none() {
            return Err(type_error(format!(
                "__init__() should return None, not '{}'",
                r.type_name()
            )));
        }
        Ok(())
    }

    /// The name CPython's `_PyObject_FunctionStr` gives a callable in the
    /// errors of `*`/`**` arguments: the module-qualified name of what was
    /// defined in Python (`__main__.C.m`), the plain name of a builtin.
    pub fn function_str(&self, v: &Value) -> String {
        let qualname = match v {
            Value::Function(f) => f.def.qualname.to_string(),
            Value::Class(c) => c.qualname.to_string(),
            Value::BoundMethod(b) if matches!(b.func, Value::Function(_)) => {
                return self.function_str(&b.func)
            }
            _ => return self.callable_name(v),
        };
        match self.get_attribute(v, "__module__") {
            Ok(Value::Str(m)) if m.as_str() != "builtins" => format!("{m}.{qualname}"),
            _ => qualname,
        }
    }

    /// The name a callable shows in messages (`f`, `print`, `C`).
    pub fn callable_name(&self, v: &Value) -> String {
        match v {
            Value::Function(f) => f.def.qualname.to_string(),
            Value::NativeFunction(n) => n.sig.name.to_string(),
            Value::Class(c) => c.name.to_string(),
            Value::BoundMethod(b) => self.callable_name(&b.func),
            other => other.type_name(),
        }
    }
}

fn store_param(frame: &mut Frame, slot: Slot, v: Value) {
    match slot {
        Slot::Local(i) => frame.locals[i as usize] = Some(v),
        Slot::Cell(i) => *frame.cells[i as usize].borrow_mut() = Some(v),
        _ => {}
    }
}

/// Drops a vector, skipping the drop glue when it never allocated (an
/// empty vector without capacity owns nothing, so forgetting it leaks
/// nothing).
#[inline(always)]
fn forget_unallocated<T>(v: Vec<T>) {
    if v.capacity() == 0 {
        std::mem::forget(v);
    }
}

#[cold]
fn recursion_error() -> PyErr {
    PyErr::new(ExcType::RecursionError, "maximum recursion depth exceeded")
}

#[cold]
fn not_callable(v: &Value) -> PyErr {
    // CPython names a type by its full `tp_name`, which for tensors is dotted
    let name = match v {
        Value::Tensor(_) => crate::object::tensor::hooks::EAGER_NAME.to_string(),
        other => other.type_name(),
    };
    type_error(format!("'{name}' object is not callable"))
}
