//! Code objects: `f.__code__` of a Python function and `frame.f_code` of a
//! traceback's frame. dist runs the AST, so a code object holds only what
//! describes the function (names, file, first line, parameter counts and
//! local names), not bytecode; attributes about bytecode are missing
//! (AttributeError), never made up.

use std::rc::Rc;

use crate::object::ClassSpec;
use crate::syntax::ast::Slot;
use crate::value::{NativeObject, PyResult, Value, Vm};

/// What `co_*` attributes a code object answers.
pub struct Code {
    /// `co_name`.
    name: Rc<str>,
    /// `co_qualname`.
    qualname: Rc<str>,
    /// `co_filename`.
    filename: String,
    /// `co_firstlineno`, `co_argcount`, `co_posonlyargcount`,
    /// `co_kwonlyargcount` and `co_varnames`: known for functions only.
    function: Option<FunctionCode>,
}

/// The parts of a code object only a function definition gives.
struct FunctionCode {
    firstlineno: usize,
    argcount: usize,
    posonlyargcount: usize,
    kwonlyargcount: usize,
    varnames: Vec<Rc<str>>,
    /// `co_flags`: CPython's bits (optimized, new locals, `*args`,
    /// `**kwargs`, generator, coroutine).
    flags: usize,
}

impl Code {
    /// The code of a frame shown in a traceback: its name and file.
    pub fn named(name: &Rc<str>, filename: &str) -> Code {
        Code {
            name: name.clone(),
            qualname: name.clone(),
            filename: filename.to_string(),
            function: None,
        }
    }

    /// `f.__code__` of a Python function.
    pub fn of_function(fun: &crate::value::object::Function) -> Code {
        let def = &fun.def;
        let a = &def.args;
        // A decorated function's code starts at its first decorator.
        let start = def
            .decorators
            .first()
            .map_or(def.span.start, |d| d.span.start.min(def.span.start));
        let mut varnames: Vec<Rc<str>> = Vec::new();
        let params = a.posonlyargs.iter().chain(&a.args).chain(&a.kwonlyargs);
        for p in params.chain(&a.vararg).chain(&a.kwarg) {
            varnames.push(p.name.clone());
        }
        // Then the other plain locals (captured ones are `co_cellvars`).
        let scope = def.scope.borrow();
        for (n, slot) in &scope.local_slots {
            if matches!(slot, Slot::Local(_)) && !varnames.contains(n) {
                varnames.push(n.clone());
            }
        }
        Code {
            name: def.name.clone(),
            qualname: def.qualname.clone(),
            filename: fun.source.name.clone(),
            function: Some(FunctionCode {
                firstlineno: fun.source.line_of(start),
                argcount: a.posonlyargs.len() + a.args.len(),
                posonlyargcount: a.posonlyargs.len(),
                kwonlyargcount: a.kwonlyargs.len(),
                varnames,
                flags: 0x1
                    | 0x2
                    | if a.vararg.is_some() { 0x4 } else { 0 }
                    | if a.kwarg.is_some() { 0x8 } else { 0 }
                    | match (def.is_async, def.is_generator) {
                        (true, _) => 0x80,
                        (false, true) => 0x20,
                        _ => 0,
                    },
            }),
        }
    }
}

/// The class of code objects.
pub static CODE: ClassSpec = ClassSpec::plain("code", "builtins");

impl NativeObject for Code {
    fn class(&self) -> Option<std::rc::Rc<crate::value::Class>> {
        // Its attributes are its own (`getattr`), not its class's.
        Some(CODE.class())
    }

    fn type_name(&self) -> &str {
        "code"
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let line = self.function.as_ref().map_or(1, |f| f.firstlineno);
        Ok(format!(
            "<code object {} at {:#x}, file \"{}\", line {}>",
            self.name,
            this.id(),
            self.filename,
            line
        ))
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let int = |n: usize| Value::Int(n as i64);
        Ok(Some(match (name, &self.function) {
            ("co_name", _) => Value::str(&*self.name),
            ("co_qualname", _) => Value::str(&*self.qualname),
            ("co_filename", _) => Value::str(&self.filename),
            ("co_firstlineno", Some(f)) => int(f.firstlineno),
            ("co_argcount", Some(f)) => int(f.argcount),
            ("co_posonlyargcount", Some(f)) => int(f.posonlyargcount),
            ("co_kwonlyargcount", Some(f)) => int(f.kwonlyargcount),
            ("co_nlocals", Some(f)) => int(f.varnames.len()),
            ("co_flags", Some(f)) => int(f.flags),
            ("co_varnames", Some(f)) => {
                Value::tuple(f.varnames.iter().map(|n| Value::str(&**n)).collect())
            }
            _ => return Ok(None),
        }))
    }

    fn dir(&self) -> Vec<String> {
        let mut d = vec!["co_filename", "co_name", "co_qualname"];
        if self.function.is_some() {
            d.extend([
                "co_argcount",
                "co_firstlineno",
                "co_flags",
                "co_kwonlyargcount",
                "co_nlocals",
                "co_posonlyargcount",
                "co_varnames",
            ]);
        }
        d.sort();
        d.into_iter().map(String::from).collect()
    }
}
