//! `repr()` and `str()` of every value, as CPython writes them (containers
//! recurse with a cycle guard: `[[...]]`).

use super::Interp;
use crate::object::types::{push_str, type_error};
use crate::value::format::{bytes_repr, float_repr, str_repr};
use crate::value::{ClassKind, ExcType, PyErr, PyResult, Value};

impl Interp {
    /// `repr(v)`.
    pub fn repr_value(&self, v: &Value) -> PyResult<String> {
        Ok(match v {
            Value::None => "None".into(),
            Value::Bool(true) => "True".into(),
            Value::Bool(false) => "False".into(),
            Value::Int(i) => i.to_string(),
            Value::Long(n) => crate::object::types::long::to_decimal(
                n,
                crate::object::types::long::max_str_digits(self),
            )?,
            Value::Float(f) => float_repr(*f),
            Value::Str(s) => str_repr(s),
            Value::Bytes(b) => bytes_repr(b),
            Value::List(l) => {
                let items = l.borrow().clone();
                self.container_repr(v, "[", "]", &items, false)?
            }
            Value::Tuple(t) => self.container_repr(v, "(", ")", t, t.len() == 1)?,
            Value::Dict(d) => {
                let id = v.id();
                if self.repr_guard.borrow().contains(&id) {
                    return Ok("{...}".into());
                }
                let items = d.borrow().items();
                self.enter_repr(id)?;
                let r = (|| {
                    let mut s = String::from("{");
                    for (i, (k, x)) in items.iter().enumerate() {
                        if i > 0 {
                            push_str(&mut s, ", ")?;
                        }
                        push_str(&mut s, &self.repr_value(k)?)?;
                        push_str(&mut s, ": ")?;
                        push_str(&mut s, &self.repr_value(x)?)?;
                    }
                    push_str(&mut s, "}")?;
                    Ok(s)
                })();
                self.leave_repr();
                r?
            }
            Value::Set(s) => {
                let items: Vec<Value> = s.ordered()?;
                let name = if s.frozen { "frozenset" } else { "set" };
                if items.is_empty() {
                    return Ok(format!("{name}()"));
                }
                let inner = self.container_repr(v, "{", "}", &items, false)?;
                if s.frozen {
                    format!("frozenset({inner})")
                } else {
                    inner
                }
            }
            Value::Function(f) => format!("<function {} at {:#x}>", f.def.qualname, v.id()),
            Value::NativeFunction(nf) => match &nf.bound {
                Some(recv)
                    if recv
                        .downcast::<crate::object::module::ModuleObj>()
                        .is_none() =>
                {
                    format!(
                        "<built-in method {} of {} object at {:#x}>",
                        nf.name(),
                        recv.type_name(),
                        recv.id()
                    )
                }
                // A builtin type's method read from the type (`str.upper`).
                None if nf.sig.name.contains('.')
                    && nf.sig.params.first().is_some_and(|p| &*p.name == "self")
                    && !nf.name().starts_with("__") =>
                {
                    let owner = nf.sig.name.rsplit_once('.').map_or("", |(o, _)| o);
                    format!("<method '{}' of '{owner}' objects>", nf.name())
                }
                _ => format!("<built-in function {}>", nf.name()),
            },
            Value::BoundMethod(bm) => {
                let qual = self.callable_name(&bm.func);
                format!(
                    "<bound method {} of {}>",
                    qual,
                    self.repr_value(&bm.receiver)?
                )
            }
            Value::Class(c) => match c.kind {
                _ if c.meta.is_some() && self.meta_hook(v, "__repr__").is_some() => {
                    let m = self.meta_hook(v, "__repr__").unwrap_or(Value::None);
                    return self.call_str_method(&m, v, "__repr__");
                }
                ClassKind::Builtin(_) => format!("<class '{}'>", c.name),
                // a native enum (`tf.distribute.ReduceOp`), as Python's enums show
                ClassKind::Native if c.dict.borrow().get("_member_names_").is_some() => {
                    format!("<enum '{}'>", c.name)
                }
                _ if &*c.module == "builtins" => format!("<class '{}'>", c.name),
                _ => format!("<class '{}.{}'>", c.module, c.qualname),
            },
            Value::Instance(inst) => {
                if let Some(m) = inst.class.lookup("__repr__") {
                    return self.call_str_method(&m, v, "__repr__");
                }
                // A subclass of a builtin type shows its value (`[1, 2]`).
                if let Some(base) = inst.builtin_base() {
                    let r = self.repr_value(base)?;
                    // Sets name their type unless exactly `set` (`Tags({1, 2})`, `Tags()`).
                    return Ok(match base {
                        Value::Set(_) => {
                            let name = &inst.class.name;
                            match r.find('(') {
                                // `set()`, `frozenset({1})`.
                                Some(i) if !r.starts_with('{') => format!("{name}{}", &r[i..]),
                                _ => format!("{name}({r})"),
                            }
                        }
                        // A native type's repr names its type (a named
                        // tuple's `P(x=1)`): the subclass's name instead, as
                        // CPython's `self.__class__.__name__`.
                        Value::Native(n) => match r.strip_prefix(n.type_name()) {
                            Some(rest) if rest.starts_with('(') => {
                                format!("{}{rest}", inst.class.name)
                            }
                            _ => r,
                        },
                        _ => r,
                    });
                }
                return self.object_repr_of(v);
            }
            Value::Tensor(_) => crate::object::tensor::tensor_repr(self, v)?,
            Value::Native(n) => n.repr(v, self)?,
        })
    }

    /// `object.__repr__(v)`: what `repr` shows for an instance whose class
    /// defines no `__repr__` (BaseException's form for exceptions).
    pub fn object_repr_of(&self, v: &Value) -> PyResult<String> {
        let Value::Instance(inst) = v else {
            return Ok(format!("<{} object at {:#x}>", v.type_name(), v.id()));
        };
        if inst.class.exception_type().is_some() {
            let args = match inst.get_attr("args") {
                Some(Value::Tuple(t)) => t.to_vec(),
                _ => Vec::new(),
            };
            let inner = if args.len() == 1 {
                self.repr_value(&args[0])?
            } else {
                let r = self.repr_value(&Value::tuple(args))?;
                r[1..r.len() - 1].trim_end_matches(',').to_string()
            };
            return Ok(format!("{}({})", inst.class.name, inner));
        }
        if &*inst.class.module == "builtins" {
            // CPython leaves the module out for builtins (`<object object at …>`).
            Ok(format!("<{} object at {:#x}>", inst.class.qualname, v.id()))
        } else {
            Ok(format!(
                "<{}.{} object at {:#x}>",
                inst.class.module,
                inst.class.qualname,
                v.id()
            ))
        }
    }

    /// `str(v)`.
    pub fn str_value(&self, v: &Value) -> PyResult<String> {
        match v {
            Value::Str(s) => Ok(s.to_string()),
            Value::Instance(inst) => {
                if let Some(m) = inst.class.lookup("__str__") {
                    return self.call_str_method(&m, v, "__str__");
                }
                // `str` has its own `__str__`; the other builtins show their repr.
                if let Some(Value::Str(s)) = inst.builtin_base() {
                    return Ok(s.to_string());
                }
                self.object_str_of(v)
            }
            Value::Tensor(_) => crate::object::tensor::tensor_str(self, v),
            Value::Native(n) => n.str(v, self),
            Value::Class(c) if c.meta.is_some() => match self.meta_hook(v, "__str__") {
                Some(m) => self.call_str_method(&m, v, "__str__"),
                None => self.repr_value(v),
            },
            _ => self.repr_value(v),
        }
    }

    /// `object.__str__(v)` (BaseException's for exceptions: the message
    /// from `args`), for an instance whose class defines no `__str__`.
    pub fn object_str_of(&self, v: &Value) -> PyResult<String> {
        let Value::Instance(inst) = v else {
            return self.repr_value(v);
        };
        if inst.class.exception_type().is_some() {
            let args = match inst.get_attr("args") {
                Some(Value::Tuple(t)) => t.to_vec(),
                _ => Vec::new(),
            };
            if inst
                .class
                .is_subclass_of(&ExcType::BaseExceptionGroup.class())
                && args.len() == 2
            {
                // `message (2 sub-exceptions)`
                let n = self.collect_iterable(&args[1])?.len();
                let s = if n == 1 { "" } else { "s" };
                return Ok(format!(
                    "{} ({n} sub-exception{s})",
                    self.str_value(&args[0])?
                ));
            }
            if args.len() >= 3 && inst.class.is_subclass_of(&ExcType::OpError.class()) {
                // TensorFlow's `OpError(node_def, op, message, ...)`: its message
                return self.str_value(&args[2]);
            }
            if inst.class.is_subclass_of(&ExcType::OSError.class()) {
                // CPython's `OSError_str`: `[Errno 2] No such file: 'a.txt'`.
                let field = |n: &str| inst.get_attr(n).filter(|v| !v.is_none());
                if let (Some(errno), Some(strerror)) = (field("errno"), field("strerror")) {
                    let mut out = format!(
                        "[Errno {}] {}",
                        self.str_value(&errno)?,
                        self.str_value(&strerror)?
                    );
                    if let Some(f) = field("filename") {
                        out.push_str(&format!(": {}", self.repr_value(&f)?));
                        if let Some(f2) = field("filename2") {
                            out.push_str(&format!(" -> {}", self.repr_value(&f2)?));
                        }
                    }
                    return Ok(out);
                }
            }
            return match args.len() {
                0 => Ok(String::new()),
                1 if inst.class.exception_type() == Some(ExcType::KeyError) => {
                    self.repr_value(&args[0])
                }
                1 => self.str_value(&args[0]),
                _ => self.repr_value(&Value::tuple(args)),
            };
        }
        self.repr_value(v)
    }

    fn call_str_method(&self, m: &Value, v: &Value, name: &str) -> PyResult<String> {
        match self.call_value(m, vec![v.clone()], Vec::new())? {
            Value::Str(s) => Ok(s.to_string()),
            other => Err(type_error(format!(
                "{} returned non-string (type {})",
                name,
                other.type_name()
            ))),
        }
    }

    fn enter_repr(&self, id: usize) -> PyResult<()> {
        self.check_stack()?;
        let depth = self.repr_guard.borrow().len() as u32 + self.depth.get();
        if depth >= self.recursion_limit.get() {
            return Err(PyErr::new(
                ExcType::RecursionError,
                "maximum recursion depth exceeded while getting the repr of an object",
            ));
        }
        self.repr_guard.borrow_mut().push(id);
        Ok(())
    }

    fn leave_repr(&self) {
        self.repr_guard.borrow_mut().pop();
    }

    fn container_repr(
        &self,
        v: &Value,
        open: &str,
        close: &str,
        items: &[Value],
        trailing_comma: bool,
    ) -> PyResult<String> {
        let id = v.id();
        if self.repr_guard.borrow().contains(&id) {
            return Ok(format!("{open}...{close}"));
        }
        self.enter_repr(id)?;
        let r = (|| {
            // Grown fallibly: the repr of `[s] * 1000` for a long `s` is a
            // MemoryError, not an abort.
            let mut s = String::from(open);
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    push_str(&mut s, ", ")?;
                }
                push_str(&mut s, &self.repr_value(x)?)?;
            }
            if trailing_comma {
                push_str(&mut s, ",")?;
            }
            push_str(&mut s, close)?;
            Ok(s)
        })();
        self.leave_repr();
        r
    }
}
