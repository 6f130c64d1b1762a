//! The one argument binder: [`Signature::bind`] matches positional and
//! keyword arguments to parameters, with CPython's messages for every
//! mistake, worded as a Python function's or, for a C builtin, as CPython's
//! C-level argument parsing words them. Signatures themselves (their
//! parsing and rendering) are in `mod.rs`.

use std::rc::Rc;

use super::{Args, BuiltinStyle, Param, ParamKind, Signature};
use crate::object::types::type_error;
use crate::value::dict::Dict;
use crate::value::error::{PyErr, PyResult};
use crate::value::value::Value;

/// C builtins that still parse their arguments with `PyArg_ParseTuple`,
/// whose count errors read "find() takes at least 1 argument (0 given)"
/// although they take no keywords.
const PARSE_TUPLE_STYLE: &[&str] = &[
    "str.startswith",
    "str.endswith",
    "str.find",
    "str.rfind",
    "str.index",
    "str.rindex",
    "str.count",
    "bytes.startswith",
    "bytes.endswith",
    "bytes.find",
    "bytes.rfind",
    "bytes.index",
    "bytes.rindex",
    "bytes.count",
];

impl Signature {
    /// A method of one of CPython's builtin types taking its receiver as
    /// `self` (`str.upper`): called through the class with no argument at
    /// all, CPython's method descriptor refuses it before binding anything.
    fn is_builtin_type_method(&self) -> bool {
        let Some((owner, _)) = self.name.split_once('.') else {
            return false;
        };
        matches!(
            owner,
            "str"
                | "bytes"
                | "bytearray"
                | "list"
                | "tuple"
                | "dict"
                | "set"
                | "frozenset"
                | "int"
                | "float"
                | "complex"
                | "bool"
                | "object"
                | "range"
        ) && self.params.first().is_some_and(|p| {
            &*p.name == "self"
                && matches!(
                    p.kind,
                    ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword
                )
        })
    }

    /// Binds positional and keyword arguments to the parameters, with CPython's
    /// error messages. `positional` includes a bound receiver first.
    pub fn bind(&self, positional: Vec<Value>, keywords: Vec<(Rc<str>, Value)>) -> PyResult<Args> {
        // Fast path: exactly the positional parameters, nothing else to decide.
        if keywords.is_empty() && positional.len() == self.params.len() && self.all_positional() {
            return Ok(Args {
                values: positional,
                given: None,
            });
        }
        if positional.is_empty() && self.is_builtin_type_method() {
            // A slot wrapper (`object.__init__`) words it as a descriptor;
            // the dunders CPython defines as plain methods (`__format__`,
            // `list.__getitem__`) do not.
            let plain_method = |m: &str| {
                matches!(
                    m,
                    "__format__"
                        | "__sizeof__"
                        | "__reduce__"
                        | "__reduce_ex__"
                        | "__dir__"
                        | "__getstate__"
                        | "__getnewargs__"
                        | "__alloc__"
                        | "__round__"
                        | "__trunc__"
                        | "__floor__"
                        | "__ceil__"
                        | "__bytes__"
                        | "__complex__"
                        | "__reversed__"
                ) || matches!(
                    &*self.name,
                    "list.__getitem__"
                        | "dict.__getitem__"
                        | "dict.__contains__"
                        | "set.__contains__"
                        | "frozenset.__contains__"
                )
            };
            let msg = match self.name.split_once('.') {
                Some((owner, m))
                    if m.starts_with("__") && m.ends_with("__") && !plain_method(m) =>
                {
                    format!("descriptor '{m}' of '{owner}' object needs an argument")
                }
                _ => format!("unbound method {}() needs an argument", self.name),
            };
            return Err(type_error(msg));
        }
        if self.builtin != BuiltinStyle::Python {
            if let Some(e) = self.c_arity_error(positional.len(), &keywords) {
                return Err(e);
            }
        }
        let n = self.params.len();
        let mut values: Vec<Option<Value>> = vec![None; n];
        let mut given = vec![false; n];
        let npos_params = self
            .params
            .iter()
            .take_while(|p| {
                matches!(
                    p.kind,
                    ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword
                )
            })
            .count();
        let var_pos = self
            .params
            .iter()
            .position(|p| p.kind == ParamKind::VarPositional);
        let var_kw = self
            .params
            .iter()
            .position(|p| p.kind == ParamKind::VarKeyword);
        let npos_given = positional.len();
        let mut pos = positional.into_iter();
        for i in 0..npos_params.min(npos_given) {
            values[i] = pos.next();
            given[i] = true;
        }
        let extra: Vec<Value> = pos.collect();
        if !extra.is_empty() {
            match var_pos {
                Some(_) => {}
                None => return Err(self.too_many_positional(npos_params, npos_given, &keywords)),
            }
        }
        if let Some(vp) = var_pos {
            values[vp] = Some(Value::tuple(extra));
            given[vp] = true;
        }
        let mut kwargs = Dict::new();
        let mut posonly_as_kw = Vec::new();
        for (key, value) in keywords {
            let found = self.params.iter().position(|p| {
                *p.name == *key
                    && matches!(
                        p.kind,
                        ParamKind::PositionalOrKeyword | ParamKind::KeywordOnly
                    )
            });
            match found {
                Some(i) => {
                    if values[i].is_some() {
                        return Err(type_error(format!(
                            "{}() got multiple values for argument '{}'",
                            self.name, key
                        )));
                    }
                    values[i] = Some(value);
                    given[i] = true;
                }
                None => match var_kw {
                    Some(_) => {
                        if kwargs.get_str(&key).is_some() {
                            return Err(type_error(format!(
                                "{}() got multiple values for keyword argument '{}'",
                                self.name, key
                            )));
                        }
                        kwargs.insert_str(&key, value)?;
                    }
                    None => {
                        if self.builtin != BuiltinStyle::Python {
                            // CPython's C argument parser words both cases alike.
                            let short = self.name.rsplit('.').next().unwrap_or(&self.name);
                            return Err(type_error(format!(
                                "'{key}' is an invalid keyword argument for {short}()"
                            )));
                        }
                        if self
                            .params
                            .iter()
                            .any(|p| *p.name == *key && p.kind == ParamKind::PositionalOnly)
                        {
                            posonly_as_kw.push(key);
                            continue;
                        }
                        return Err(type_error(format!(
                            "{}() got an unexpected keyword argument '{}'",
                            self.name, key
                        )));
                    }
                },
            }
        }
        if !posonly_as_kw.is_empty() {
            let names: Vec<String> = posonly_as_kw.iter().map(|k| format!("'{k}'")).collect();
            return Err(type_error(format!(
                "{}() got some positional-only arguments passed as keyword arguments: {}",
                self.name,
                names.join(", ")
            )));
        }
        if let Some(vk) = var_kw {
            values[vk] = Some(Value::dict(kwargs));
            given[vk] = true;
        }
        // Defaults, then what is still missing.
        let mut missing_pos = Vec::new();
        let mut missing_kw = Vec::new();
        for (i, p) in self.params.iter().enumerate() {
            if values[i].is_none() {
                match &p.default {
                    Some(d) => values[i] = Some(d.clone()),
                    None => match p.kind {
                        ParamKind::KeywordOnly => missing_kw.push(p.name.clone()),
                        _ => missing_pos.push(p.name.clone()),
                    },
                }
            }
        }
        if !missing_pos.is_empty() {
            return Err(self.missing("positional", &missing_pos));
        }
        if !missing_kw.is_empty() {
            return Err(self.missing("keyword-only", &missing_kw));
        }
        Ok(Args {
            values: values
                .into_iter()
                .map(|v| v.unwrap_or(Value::None))
                .collect(),
            given: Some(given),
        })
    }

    /// CPython's argument-count errors for a C builtin, by the calling
    /// convention its signature implies: no parameters (`METH_NOARGS`: "takes
    /// no arguments (1 given)"), one positional-only parameter (`METH_O`:
    /// "takes exactly one argument (0 given)"), only positional-only
    /// parameters (Argument Clinic: "get expected at least 1 argument, got
    /// 0"), keyword-capable ones ("split() takes at most 2 arguments (3
    /// given)", "round() missing required argument 'number' (pos 1)"); keywords
    /// to a function that takes none. None: the count is fine (binding goes
    /// on as for any function).
    #[cold]
    fn c_arity_error(&self, given: usize, keywords: &[(Rc<str>, Value)]) -> Option<PyErr> {
        let ctor = self.builtin == BuiltinStyle::Constructor;
        let method = self.name.contains('.')
            && self
                .params
                .first()
                .is_some_and(|p| matches!(&*p.name, "self" | "cls"));
        let params = if method {
            &self.params[1..]
        } else {
            &self.params[..]
        };
        let n = if method {
            given.saturating_sub(1)
        } else {
            given
        };
        let short = self.name.rsplit('.').next().unwrap_or(&self.name);
        let positional: Vec<&Param> = params
            .iter()
            .take_while(|p| {
                matches!(
                    p.kind,
                    ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword
                )
            })
            .collect();
        let var = params.iter().any(|p| p.kind == ParamKind::VarPositional);
        let kwonly = params
            .iter()
            .filter(|p| p.kind == ParamKind::KeywordOnly)
            .count();
        let takes_keywords = params.iter().any(|p| {
            matches!(
                p.kind,
                ParamKind::PositionalOrKeyword | ParamKind::KeywordOnly | ParamKind::VarKeyword
            )
        });
        let err = |msg: String| Some(type_error(msg));
        if !keywords.is_empty() && !takes_keywords {
            return err(format!("{}() takes no keyword arguments", self.name));
        }
        let min = positional.iter().filter(|p| p.default.is_none()).count();
        let max = positional.len();
        // A required parameter past the positional arguments may come by
        // keyword (`round(number=2.5)`).
        let by_keyword = |p: &Param| keywords.iter().any(|(k, _)| **k == *p.name);
        let missing = |(i, p): &(usize, &&Param)| *i >= n && p.default.is_none() && !by_keyword(p);
        let complete = !positional.iter().enumerate().any(|e| missing(&e));
        if complete && (var || n <= max) {
            return None;
        }
        let s = |k: usize| if k == 1 { "" } else { "s" };
        if PARSE_TUPLE_STYLE.contains(&&*self.name) {
            return err(if n < min {
                format!(
                    "{short}() takes at least {min} argument{} ({n} given)",
                    s(min)
                )
            } else {
                format!(
                    "{short}() takes at most {max} argument{} ({n} given)",
                    s(max)
                )
            });
        }
        // Parameters before a C builtin's `*args` are positional-only there.
        let all_posonly = var
            || positional
                .iter()
                .all(|p| p.kind == ParamKind::PositionalOnly);
        if all_posonly && !(positional.is_empty() && kwonly > 0) {
            if !ctor && max == 0 && !var && params.is_empty() {
                return err(format!("{}() takes no arguments ({n} given)", self.name));
            }
            if !ctor && min == 1 && max == 1 && !var && params.len() == 1 {
                return err(format!(
                    "{}() takes exactly one argument ({n} given)",
                    self.name
                ));
            }
            return err(if min == max && !var {
                format!("{short} expected {min} argument{}, got {n}", s(min))
            } else if n < min {
                format!(
                    "{short} expected at least {min} argument{}, got {n}",
                    s(min)
                )
            } else {
                format!("{short} expected at most {max} argument{}, got {n}", s(max))
            });
        }
        if n > max {
            let total = max + kwonly;
            // CPython's _PyArg_UnpackKeywords: too many in all first, then
            // too many for the positional slots.
            return err(if n > total {
                format!(
                    "{short}() takes at most {total} argument{} ({n} given)",
                    s(total)
                )
            } else if max == 0 {
                format!("{short}() takes no positional arguments")
            } else {
                format!(
                    "{short}() takes {} {max} positional argument{} ({n} given)",
                    if min < max { "at most" } else { "exactly" },
                    s(max)
                )
            });
        }
        let (i, first_missing) = positional.iter().enumerate().find(missing)?;
        if first_missing.kind == ParamKind::PositionalOnly {
            let posonly_min = positional
                .iter()
                .filter(|p| p.kind == ParamKind::PositionalOnly && p.default.is_none())
                .count();
            return err(format!(
                "{short}() takes at least {posonly_min} positional argument{} ({n} given)",
                s(posonly_min)
            ));
        }
        err(if ctor {
            format!(
                "{short}() missing required argument '{}'",
                first_missing.name
            )
        } else {
            format!(
                "{short}() missing required argument '{}' (pos {})",
                first_missing.name,
                i + 1
            )
        })
    }

    #[cold]
    fn missing(&self, what: &str, names: &[Rc<str>]) -> PyErr {
        let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
        let list = match quoted.len() {
            1 => quoted[0].clone(),
            2 => format!("{} and {}", quoted[0], quoted[1]),
            _ => format!(
                "{}, and {}",
                quoted[..quoted.len() - 1].join(", "),
                quoted[quoted.len() - 1]
            ),
        };
        let plural = if names.len() == 1 {
            "argument"
        } else {
            "arguments"
        };
        type_error(format!(
            "{}() missing {} required {} {}: {}",
            self.name,
            names.len(),
            what,
            plural,
            list
        ))
    }

    #[cold]
    fn too_many_positional(
        &self,
        npos_params: usize,
        given: usize,
        keywords: &[(Rc<str>, Value)],
    ) -> PyErr {
        let required = self.params[..npos_params]
            .iter()
            .filter(|p| p.default.is_none())
            .count();
        let takes = if required == npos_params {
            format!(
                "{} positional argument{}",
                npos_params,
                if npos_params == 1 { "" } else { "s" }
            )
        } else {
            format!("from {} to {} positional arguments", required, npos_params)
        };
        let kwonly_given = keywords
            .iter()
            .filter(|(k, _)| {
                self.params
                    .iter()
                    .any(|p| *p.name == **k && p.kind == ParamKind::KeywordOnly)
            })
            .count();
        let was = if given == 1 { "was" } else { "were" };
        if kwonly_given > 0 {
            return type_error(format!(
                "{}() takes {} but {} positional argument{} (and {} keyword-only argument{}) were given",
                self.name,
                takes,
                given,
                if given == 1 { "" } else { "s" },
                kwonly_given,
                if kwonly_given == 1 { "" } else { "s" }
            ));
        }
        type_error(format!(
            "{}() takes {} but {} {} given",
            self.name, takes, given, was
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(sig: &str, pos: usize, kw: &[&str]) -> String {
        let s = Signature::parse(sig);
        let args = (0..pos).map(|i| Value::Int(i as i64)).collect();
        let kws = kw.iter().map(|k| (Rc::from(*k), Value::None)).collect();
        match s.bind(args, kws) {
            Ok(_) => "ok".into(),
            Err(e) => match &e.args()[0] {
                Value::Str(s) => s.to_string(),
                _ => "?".into(),
            },
        }
    }

    #[test]
    fn cpython_messages() {
        assert_eq!(
            err("fn(x)", 0, &[]),
            "fn() missing 1 required positional argument: 'x'"
        );
        assert_eq!(
            err("f(a, b, c)", 0, &[]),
            "f() missing 3 required positional arguments: 'a', 'b', and 'c'"
        );
        assert_eq!(
            err("f(a, b)", 0, &[]),
            "f() missing 2 required positional arguments: 'a' and 'b'"
        );
        assert_eq!(
            err("f(a, b=1)", 3, &[]),
            "f() takes from 1 to 2 positional arguments but 3 were given"
        );
        assert_eq!(
            err("f()", 1, &[]),
            "f() takes 0 positional arguments but 1 was given"
        );
        assert_eq!(
            err("f(a)", 1, &["z"]),
            "f() got an unexpected keyword argument 'z'"
        );
        assert_eq!(
            err("f(a)", 1, &["a"]),
            "f() got multiple values for argument 'a'"
        );
        assert_eq!(
            err("f(*, k)", 0, &[]),
            "f() missing 1 required keyword-only argument: 'k'"
        );
        assert_eq!(
            err("f(a, /)", 0, &["a"]),
            "f() got some positional-only arguments passed as keyword arguments: 'a'"
        );
        assert_eq!(
            err("OneDeviceStrategy.__init__(self, device)", 1, &[]),
            "OneDeviceStrategy.__init__() missing 1 required positional argument: 'device'"
        );
        assert_eq!(err("f(a, *args, k=1, **kw)", 5, &["k", "z"]), "ok");
    }
}
