//! The one diagnostic model: what every error (syntax or runtime) becomes
//! before it is rendered. `render.rs` draws it with ariadne for the terminal.

use std::rc::Rc;

use crate::syntax::{SourceFile, Span};

/// A location in a source file.
#[derive(Clone, Debug)]
pub struct Location {
    /// The file.
    pub source: Rc<SourceFile>,
    /// The span.
    pub span: Span,
}

/// One traceback frame: where a call was made (outermost first).
#[derive(Clone, Debug)]
pub struct Frame {
    /// Where.
    pub location: Location,
    /// The function that was running there (`<module>` at top level).
    pub func: Rc<str>,
}

/// An uncaught Python exception (or syntax error), ready to render.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The exception class name (`TypeError`, `InvalidArgumentError` …).
    pub class: String,
    /// The message (`str(exception)`); may be empty.
    pub message: String,
    /// The chain of frames, outermost first; the last one is where it was raised.
    pub frames: Vec<Frame>,
    /// Help lines (where we can say more than Python/TensorFlow).
    pub help: Vec<String>,
    /// Notes (e.g. the cause chain: "The above exception was the direct cause …").
    pub notes: Vec<String>,
    /// For `SystemExit` (`sys.exit(status)`): the process exit status; no
    /// traceback is shown, only a non-int status's text (as CPython does).
    pub exit_status: Option<i32>,
}

impl Diagnostic {
    /// The last line CPython would print: `TypeError: message` (or just the class).
    pub fn headline(&self) -> String {
        if self.message.is_empty() {
            self.class.clone()
        } else {
            format!("{}: {}", self.class, self.message)
        }
    }
}

/// The diagnostic of a syntax error.
pub fn from_syntax_error(source: &Rc<SourceFile>, e: &crate::syntax::SyntaxError) -> Diagnostic {
    Diagnostic {
        class: e.kind.class_name().to_string(),
        message: e.message.clone(),
        frames: vec![Frame {
            location: Location {
                source: source.clone(),
                span: e.span,
            },
            func: "<module>".into(),
        }],
        help: e.help.iter().cloned().collect(),
        notes: Vec::new(),
        exit_status: None,
    }
}

/// The `SyntaxError` of source bytes that could not be read as text
/// (`name` is the file): with the offending line where CPython shows it.
pub fn from_source_error(name: &str, e: &crate::syntax::encoding::SourceError) -> Diagnostic {
    let frames = match &e.at {
        Some((text, at)) => {
            let end = text[*at..]
                .chars()
                .next()
                .map_or(*at, |c| at + c.len_utf8());
            vec![Frame {
                location: Location {
                    source: SourceFile::new(name, text.clone()),
                    span: Span::new(*at, end),
                },
                func: "<module>".into(),
            }]
        }
        None => Vec::new(),
    };
    Diagnostic {
        class: "SyntaxError".into(),
        message: e.message.clone(),
        frames,
        help: Vec::new(),
        notes: Vec::new(),
        exit_status: None,
    }
}

/// The diagnostic of an uncaught exception (`str(exc)` is the message; the
/// traceback runs outermost first; `__cause__`/`__context__` become notes).
pub fn from_exception(vm: &dyn crate::value::Vm, e: crate::value::PyErr) -> Diagnostic {
    // CPython names classes by qualified name (`Client.Error`), outside
    // builtins/__main__ with their module (`json.decoder.JSONDecodeError`); TensorFlow's errors are shown by
    // name, as the reference oracle prints them.
    let cls = e.class();
    let class = match &*cls.module {
        "builtins" | "__main__" => cls.qualname.to_string(),
        m if m.starts_with("tensorflow") => cls.name.to_string(),
        m => format!("{}.{}", m, cls.qualname),
    };
    let mut message = vm.str(e.value()).unwrap_or_default();
    // Notes (`add_note`) follow the message, one a line, as CPython prints them.
    if let crate::value::Value::Instance(inst) = e.value() {
        if let Some(crate::value::Value::List(notes)) = inst.get_attr("__notes__") {
            for n in notes.borrow().iter() {
                message.push('\n');
                message.push_str(&vm.str(n).unwrap_or_default());
            }
        }
    }
    for line in super::group::sub_exception_lines(vm, e.value()) {
        message.push('\n');
        message.push_str(&line);
    }
    let exit_status = e.is(crate::value::ExcType::SystemExit).then(|| {
        let arg = match e.value() {
            crate::value::Value::Instance(i) => match i.get_attr("args") {
                Some(crate::value::Value::Tuple(t)) => t.first().cloned(),
                _ => None,
            },
            _ => None,
        };
        match arg {
            None | Some(crate::value::Value::None) => 0,
            Some(crate::value::Value::Int(n)) => n as i32,
            Some(crate::value::Value::Bool(b)) => b as i32,
            Some(_) => 1,
        }
    });
    let frames =
        e.0.traceback
            .iter()
            .rev()
            .map(|t| Frame {
                location: Location {
                    source: t.source.clone(),
                    span: t.span,
                },
                func: t.func.clone(),
            })
            .collect();
    let mut notes = Vec::new();
    if let crate::value::Value::Instance(inst) = e.value() {
        for (attr, text) in [
            (
                "__cause__",
                "The above exception was the direct cause of this one",
            ),
            (
                "__context__",
                "This was raised while handling another exception",
            ),
        ] {
            // `raise ... from None` (or from a cause) hides the context.
            let suppressed = matches!(
                inst.get_attr("__suppress_context__"),
                Some(crate::value::Value::Bool(true))
            );
            if attr == "__context__" && suppressed {
                break;
            }
            if let Some(v) = inst.get_attr(attr) {
                if !v.is_none() {
                    let t = vm.type_of(&v);
                    let name = match &t {
                        crate::value::Value::Class(c) => c.name.to_string(),
                        _ => String::new(),
                    };
                    let msg = vm.str(&v).unwrap_or_default();
                    notes.push(format!("{text}: {name}: {msg}"));
                    break;
                }
            }
        }
    }
    Diagnostic {
        class,
        message,
        frames,
        help: e.0.help.clone(),
        notes,
        exit_status,
    }
}
