//! Byte-offset spans into one source file. Line and column are computed only
//! when a diagnostic is rendered, never while parsing or evaluating.

use std::rc::Rc;

use dist_macros::Codec;

/// A half-open byte range `[start, end)` into one [`SourceFile`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Codec)]
pub struct Span {
    /// First byte of the range.
    pub start: u32,
    /// One past the last byte of the range.
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end` (byte offsets).
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The span from this one's start to `end`.
    pub fn with_end(self, end: u32) -> Span {
        Span {
            start: self.start,
            end,
        }
    }

    /// The byte range, for slicing the source text.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A source text and the name it is shown under (a path, `<stdin>`, `<string>`).
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics and tracebacks.
    pub name: String,
    /// The full text (borrowed for a stdlib module's embedded source: a
    /// copy of it per import cost a tenth of a Keras script's run).
    pub text: std::borrow::Cow<'static, str>,
}

impl SourceFile {
    /// A shared source file.
    pub fn new(
        name: impl Into<String>,
        text: impl Into<std::borrow::Cow<'static, str>>,
    ) -> Rc<SourceFile> {
        Rc::new(SourceFile {
            name: name.into(),
            text: text.into(),
        })
    }

    /// The `__module__` of what this file defines: a `stdlib/` module's
    /// name (its file is shown as `<stdlib NAME>`), else `__main__`.
    pub fn module_name(&self) -> &str {
        self.name
            .strip_prefix("<stdlib ")
            .and_then(|n| n.strip_suffix('>'))
            .unwrap_or("__main__")
    }

    /// 1-based line number of a byte offset.
    pub fn line_of(&self, offset: u32) -> usize {
        let off = (offset as usize).min(self.text.len());
        self.text.as_bytes()[..off]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    /// The text of the given 1-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        self.text.lines().nth(line.saturating_sub(1)).unwrap_or("")
    }
}
