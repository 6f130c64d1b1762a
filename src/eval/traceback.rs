//! Traceback objects: what `e.__traceback__` and `sys.exc_info()[2]` hold
//! once an exception reaches a handler. They are built from the entries a
//! [`PyErr`] collects while it unwinds (one per frame, at the expression or
//! statement that was running), outermost first as CPython links them
//! (`tb_next` goes inward). The `traceback` module (stdlib/traceback.dist)
//! renders them; the positions it needs come from `_dist_position`, since
//! dist has no code objects with `co_positions()`.

use std::rc::Rc;

use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::syntax::ast::{ExprKind, StmtKind};
use crate::syntax::SourceFile;
use crate::value::error::TraceEntry;
use crate::value::{NativeObject, PyErr, Value};

/// One link of a traceback: entry `index` of the shared chain.
pub struct Traceback {
    /// The chain's entries, outermost first.
    entries: Rc<[TraceEntry]>,
    /// Which entry this link is.
    index: usize,
}

impl Traceback {
    /// The traceback object of an exception that has unwound to a handler
    /// (None when it has no entries).
    pub fn of(err: &PyErr) -> Value {
        if err.0.traceback.is_empty() {
            return Value::None;
        }
        let entries: Rc<[TraceEntry]> = err.0.traceback.iter().rev().cloned().collect();
        Value::native(Traceback { entries, index: 0 })
    }

    fn entry(&self) -> &TraceEntry {
        &self.entries[self.index]
    }
}

/// Where an entry's span lies: (lineno, end_lineno, colno, end_colno), the
/// columns in characters from the start of their lines.
fn position(src: &SourceFile, entry: &TraceEntry) -> (usize, usize, usize, usize) {
    let text = &src.text;
    let start = (entry.span.start as usize).min(text.len());
    let mut end = (entry.span.end as usize).clamp(start, text.len());
    // A statement's span may take in the newline that ends it.
    while end > start && text.as_bytes()[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
    let (ls, le) = (line_start(start), line_start(end));
    (
        src.line_of(start as u32),
        src.line_of(end as u32),
        text[ls..start].chars().count(),
        text[le..end].chars().count(),
    )
}

/// CPython's caret anchors for a one-line segment that is a binary
/// operation (`~~^~~`: the operator) or a subscript (`~^^^`: the index), as
/// character offsets into the segment; None for any other segment.
fn anchors(segment: &str) -> Option<(usize, usize)> {
    let module = crate::syntax::parse_module(segment).ok()?;
    let [stmt] = module.body.as_slice() else {
        return None;
    };
    let StmtKind::Expr(expr) = &stmt.kind else {
        return None;
    };
    let bytes = segment.as_bytes();
    let chars = |b: usize| segment[..b.min(segment.len())].chars().count();
    match &expr.kind {
        ExprKind::BinOp { left, right, .. } => {
            let op_str = segment.get(left.span.end as usize..right.span.start as usize)?;
            let op_offset = op_str.len() - op_str.trim_start().len();
            let mut left_anchor = left.span.end as usize + op_offset;
            let mut right_anchor = left_anchor + 1;
            if op_offset + 1 < op_str.len()
                && !op_str.as_bytes()[op_offset + 1].is_ascii_whitespace()
            {
                right_anchor += 1;
            }
            while left_anchor < bytes.len()
                && (bytes[left_anchor].is_ascii_whitespace() || b")#".contains(&bytes[left_anchor]))
            {
                left_anchor += 1;
                right_anchor += 1;
            }
            Some((chars(left_anchor), chars(right_anchor)))
        }
        ExprKind::Subscript { value, slice } => {
            let mut left_anchor = value.span.end as usize;
            let mut right_anchor = slice.span.end as usize + 1;
            while left_anchor < bytes.len() && bytes[left_anchor] != b'[' {
                left_anchor += 1;
            }
            while right_anchor < bytes.len() && bytes[right_anchor] != b']' {
                right_anchor += 1;
            }
            if right_anchor < bytes.len() {
                right_anchor += 1;
            }
            Some((chars(left_anchor), chars(right_anchor)))
        }
        _ => None,
    }
}

impl NativeObject for Traceback {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&TRACEBACK)
    }

    fn dir(&self) -> Vec<String> {
        ["tb_frame", "tb_lineno", "tb_next"]
            .map(String::from)
            .to_vec()
    }
}

/// The class `traceback`.
static TRACEBACK: ClassSpec = ClassSpec {
    name: "traceback",
    module: "builtins",
    bases: &[],
    members: &[
        Member::Getter(tb_next::DEF),
        Member::Getter(tb_lineno::DEF),
        Member::Getter(tb_frame::DEF),
        Member::Getter(dist_position::DEF),
    ],
};

impl NativeClass for Traceback {
    const SPEC: &'static ClassSpec = &TRACEBACK;
}

/// The next link, inward (None at the innermost frame).
#[native("traceback.tb_next(self)")]
fn tb_next(this: &Traceback) -> Option<Value> {
    (this.index + 1 < this.entries.len()).then(|| {
        Value::native(Traceback {
            entries: this.entries.clone(),
            index: this.index + 1,
        })
    })
}

/// The line that was running.
#[native("traceback.tb_lineno(self)")]
fn tb_lineno(this: &Traceback) -> usize {
    let e = this.entry();
    e.source.line_of(e.span.start)
}

/// The frame.
#[native("traceback.tb_frame(self)")]
fn tb_frame(this: &Traceback) -> Value {
    Value::native(FrameInfo {
        stack: Rc::new([this.entry().clone()]),
        index: 0,
    })
}

/// (filename, lineno, end_lineno, colno, end_colno, name, line, anchors):
/// what traceback.FrameSummary holds.
#[native("traceback._dist_position(self)")]
fn dist_position(this: &Traceback) -> Value {
    position_tuple(this.entry())
}

/// What `_dist_position` gives for a traceback entry or a live frame.
fn position_tuple(e: &TraceEntry) -> Value {
    let (lineno, end_lineno, colno, end_colno) = position(&e.source, e);
    let line = e.source.line_text(lineno);
    let anchors = if lineno == end_lineno {
        let seg: String = line
            .chars()
            .skip(colno)
            .take(end_colno.saturating_sub(colno))
            .collect();
        anchors(&seg).map(|(l, r)| Value::tuple(vec![Value::Int(l as i64), Value::Int(r as i64)]))
    } else {
        None
    };
    Value::tuple(vec![
        Value::str(&e.source.name),
        Value::Int(lineno as i64),
        Value::Int(end_lineno as i64),
        Value::Int(colno as i64),
        Value::Int(end_colno as i64),
        Value::str(&*e.func),
        // As linecache gives it: with its newline.
        Value::str(format!("{line}\n")),
        anchors.unwrap_or(Value::None),
    ])
}

/// A frame object (`tb.tb_frame`, `sys._getframe()`): the little of a
/// frame dist keeps (its code's name and file, the line that was running)
/// and, for a live frame, the frames out from it (`f_back`).
pub struct FrameInfo {
    /// This frame, then the frames out from it (empty for a traceback's
    /// frame, whose `f_back` dist does not keep).
    stack: Rc<[TraceEntry]>,
    /// Which entry this frame is.
    index: usize,
}

impl FrameInfo {
    /// Frame `index` of `stack` (innermost first).
    pub fn live(stack: Rc<[TraceEntry]>, index: usize) -> Value {
        Value::native(FrameInfo { stack, index })
    }

    fn entry(&self) -> &TraceEntry {
        &self.stack[self.index]
    }
}

impl NativeObject for FrameInfo {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&FRAME)
    }
}

/// The class `frame`.
static FRAME: ClassSpec = ClassSpec {
    name: "frame",
    module: "builtins",
    bases: &[],
    members: &[
        Member::Getter(f_lineno::DEF),
        Member::Getter(f_code::DEF),
        Member::Getter(f_back::DEF),
        Member::Getter(frame_position::DEF),
        Member::Getter(frame_module::DEF),
    ],
};

impl NativeClass for FrameInfo {
    const SPEC: &'static ClassSpec = &FRAME;
}

/// The line that was running.
#[native("frame.f_lineno(self)")]
fn f_lineno(this: &FrameInfo) -> usize {
    let e = this.entry();
    e.source.line_of(e.span.start)
}

/// The code object (its name and file).
#[native("frame.f_code(self)")]
fn f_code(this: &FrameInfo) -> Value {
    let e = this.entry();
    Value::native(super::code::Code::named(&e.func, &e.source.name))
}

/// The frame that called this one (None at the outermost, and for a
/// traceback's frame).
#[native("frame.f_back(self)")]
fn f_back(this: &FrameInfo) -> Option<Value> {
    (this.index + 1 < this.stack.len()).then(|| FrameInfo::live(this.stack.clone(), this.index + 1))
}

/// As the traceback's `_dist_position`, for `traceback.extract_stack`.
#[native("frame._dist_position(self)")]
fn frame_position(this: &FrameInfo) -> Value {
    position_tuple(this.entry())
}

/// The name of the module the frame's code is in (what CPython reads from
/// `f_globals['__name__']`): `__main__` for the script.
#[native("frame._dist_module(self)")]
fn frame_module(this: &FrameInfo) -> String {
    this.entry().source.module_name().to_string()
}
