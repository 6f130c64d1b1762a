//! Draws a [`Diagnostic`] for the terminal: a CPython-style traceback of the
//! call chain (outermost first), an ariadne snippet at the exact span of the
//! innermost frame with help lines and notes, and last of all the line CPython
//! itself ends with (`TypeError: message`), so goldens can compare that line
//! with CPython's. The model lives in `diagnostic.rs`; this file only draws it.

use std::fmt::Write as _;
use std::ops::Range;

use ariadne::{Color, Config, Label, Report, ReportKind, Source};

use super::{Diagnostic, Frame};
use crate::syntax::SourceFile;

/// Classes CPython reports without a traceback header and without `in func`.
const SYNTAX_CLASSES: [&str; 3] = ["SyntaxError", "IndentationError", "TabError"];

/// Marks a continuation line of a multi-line help or note; replaced by the
/// report's margin after ariadne has drawn it (ariadne 0.4 prints a newline in
/// a help as a bare line break, outside the report's frame).
const CONTINUATION: char = '\u{1}';

/// Renders a diagnostic as text ending in a newline (no colour when `color`
/// is false). The last line is always exactly [`Diagnostic::headline`].
pub fn render(d: &Diagnostic, color: bool) -> String {
    let mut out = String::new();
    let syntax = SYNTAX_CLASSES.contains(&d.class.as_str());
    if !d.frames.is_empty() && !syntax {
        out.push_str("Traceback (most recent call last):\n");
    }
    let last = d.frames.len().saturating_sub(1);
    // CPython shows the first RECURSIVE_CUTOFF frames of a run of identical
    // ones (same file, line and function), then "[Previous line repeated N
    // more times]"; the innermost frame is always drawn (by the snippet).
    const RECURSIVE_CUTOFF: usize = 3;
    let repeated = |out: &mut String, count: usize| {
        if count > RECURSIVE_CUTOFF {
            let n = count - RECURSIVE_CUTOFF;
            let _ = writeln!(
                out,
                "  [Previous line repeated {n} more time{}]",
                if n == 1 { "" } else { "s" }
            );
        }
    };
    let mut run: Option<(&str, usize, &str)> = None;
    let mut count = 0;
    for (i, frame) in d.frames.iter().enumerate() {
        let source = &frame.location.source;
        let line = source.line_of(clamp(source, frame.location.span.range()).start as u32);
        let key = (source.name.as_str(), line, &*frame.func);
        if run == Some(key) {
            count += 1;
        } else {
            repeated(&mut out, count);
            run = Some(key);
            count = 1;
        }
        if i == last {
            repeated(&mut out, count);
        } else if count > RECURSIVE_CUTOFF {
            continue;
        }
        let _ = write!(out, "  File \"{}\", line {}", source.name, line);
        if !syntax {
            let _ = write!(out, ", in {}", frame.func);
        }
        out.push('\n');
        if i < last {
            // The innermost frame's line is drawn by the snippet below instead.
            let text = source.line_text(line).trim();
            if !text.is_empty() {
                let _ = writeln!(out, "    {text}");
            }
        }
    }
    match d.frames.last() {
        Some(frame) => out.push_str(&snippet(d, frame, color)),
        None => {
            for help in &d.help {
                let _ = writeln!(out, "help: {help}");
            }
            for note in &d.notes {
                let _ = writeln!(out, "note: {note}");
            }
        }
    }
    let mut text = tidy(&out, color);
    text.push_str(&d.headline());
    text.push('\n');
    text
}

/// The ariadne report for the innermost frame, without ariadne's header line
/// (the `File …` line above it is the header).
fn snippet(d: &Diagnostic, frame: &Frame, color: bool) -> String {
    let source = &frame.location.source;
    let span = char_range(source, clamp(source, frame.location.span.range()));
    let id = source.name.as_str();
    // A multi-line message would break the snippet's frame; its first line
    // marks the span and the whole message ends the output.
    let label_text = match d.message.lines().next() {
        Some(first) if !first.trim().is_empty() => first,
        _ => d.class.as_str(),
    };
    let mut report = Report::build(ReportKind::Custom(&d.class, Color::Red), id, span.start)
        .with_config(Config::default().with_color(color))
        .with_label(
            Label::new((id, span))
                .with_message(label_text)
                .with_color(Color::Red),
        );
    if !d.help.is_empty() {
        report = report.with_help(join_continued(&d.help));
    }
    if !d.notes.is_empty() {
        report = report.with_note(join_continued(&d.notes));
    }
    let mut bytes = Vec::new();
    if report
        .finish()
        .write((id, Source::from(&*source.text)), &mut bytes)
        .is_err()
    {
        return String::new();
    }
    let drawn = String::from_utf8_lossy(&bytes);
    let body = drawn.split_once('\n').map_or("", |(_, rest)| rest);
    indent_continuations(body)
}

/// Joins lines so that every line after the first carries [`CONTINUATION`].
fn join_continued(lines: &[String]) -> String {
    let mut joined = String::new();
    for (i, line) in lines.iter().flat_map(|l| l.split('\n')).enumerate() {
        if i > 0 {
            joined.push('\n');
            joined.push(CONTINUATION);
        }
        joined.push_str(line);
    }
    joined
}

/// Gives continuation lines the margin of the `Help:`/`Note:` line they follow,
/// aligned under its text.
fn indent_continuations(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut prefix = String::new();
    for line in body.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix(CONTINUATION) {
            out.push_str(&prefix);
            out.push_str(rest);
            continue;
        }
        for tag in ["Help", "Note"] {
            if let Some(at) = line.find(tag) {
                // Everything before the tag is the (possibly coloured) margin;
                // the text starts after "Help: ".
                prefix = format!("{}{}", &line[..at], " ".repeat(tag.len() + 2));
                break;
            }
        }
        out.push_str(line);
    }
    out
}

/// A byte range clamped to the text and to char boundaries. An empty span at
/// the very end of a text that ends in a newline moves onto that newline, so
/// "unexpected end of input" points just after the last line, not below it.
fn clamp(source: &SourceFile, bytes: Range<usize>) -> Range<usize> {
    let text = &*source.text;
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(bytes.start);
    let end = floor(bytes.end).max(start);
    if start == text.len() && end == start && text.ends_with('\n') {
        return start - 1..start - 1;
    }
    start..end
}

/// A (clamped) byte range into `source.text` as the char range ariadne 0.4 wants.
fn char_range(source: &SourceFile, bytes: Range<usize>) -> Range<usize> {
    let text = &*source.text;
    let (start, end) = (bytes.start, bytes.end);
    let start_chars = text[..start].chars().count();
    start_chars..start_chars + text[start..end].chars().count()
}

/// Trims trailing blanks from every line (ariadne pads some) and removes ANSI
/// escapes when colour is off (ariadne colours a custom report kind regardless).
fn tidy(text: &str, color: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = if color {
            line.to_string()
        } else {
            strip_ansi(line)
        };
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Removes `ESC [ … letter` sequences.
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::diag::Location;
    use crate::syntax::Span;

    fn frame(source: &Rc<SourceFile>, needle: &str, func: &str) -> Frame {
        let start = source.text.find(needle).expect("needle in source");
        Frame {
            location: Location {
                source: source.clone(),
                span: Span::new(start, start + needle.len()),
            },
            func: func.into(),
        }
    }

    fn diagnostic(class: &str, message: &str, frames: Vec<Frame>) -> Diagnostic {
        Diagnostic {
            class: class.into(),
            message: message.into(),
            frames,
            help: Vec::new(),
            notes: Vec::new(),
            exit_status: None,
        }
    }

    #[test]
    fn traceback_then_snippet_then_headline() {
        let src = SourceFile::new("t.dist", "def f():\n    return 1 + \"a\"\n\nf()\n");
        let mut d = diagnostic(
            "TypeError",
            "unsupported operand type(s) for +: 'int' and 'str'",
            vec![
                frame(&src, "f()\n", "<module>"),
                frame(&src, "1 + \"a\"", "f"),
            ],
        );
        d.frames[0].location.span.end -= 1;
        d.help.push("convert with str(1)".into());
        d.help.push("or int(\"a\")".into());
        d.notes.push("a note".into());
        let text = render(&d, false);
        let expected = "\
Traceback (most recent call last):
  File \"t.dist\", line 4, in <module>
    f()
  File \"t.dist\", line 2, in f
   ╭─[t.dist:2:12]
   │
 2 │     return 1 + \"a\"
   │            ───┬───
   │               ╰───── unsupported operand type(s) for +: 'int' and 'str'
   │
   │ Help: convert with str(1)
   │       or int(\"a\")
   │
   │ Note: a note
───╯
TypeError: unsupported operand type(s) for +: 'int' and 'str'
";
        assert_eq!(text, expected);
    }

    #[test]
    fn syntax_error_has_no_traceback_header() {
        let src = SourceFile::new("s.dist", "x = (1,\n");
        let mut f = frame(&src, "(", "<module>");
        f.location.span = Span::new(src.text.len(), src.text.len());
        let text = render(
            &diagnostic("SyntaxError", "'(' was never closed", vec![f]),
            false,
        );
        assert!(text.starts_with("  File \"s.dist\", line 1\n"), "{text}");
        assert!(!text.contains("Traceback"));
        assert!(text.contains("'(' was never closed\n"));
        assert_eq!(
            text.lines().last(),
            Some("SyntaxError: '(' was never closed")
        );
    }

    #[test]
    fn no_frames_prints_help_and_headline() {
        let mut d = diagnostic("KeyboardInterrupt", "", Vec::new());
        d.help.push("press Ctrl-C twice to quit".into());
        assert_eq!(
            render(&d, false),
            "help: press Ctrl-C twice to quit\nKeyboardInterrupt\n"
        );
    }

    #[test]
    fn empty_span_non_ascii_and_tabs() {
        let src = SourceFile::new("u.dist", "s = \"é\"\n\tif s +  1:\n");
        let plus = src.text.find('+').unwrap();
        let mut f = frame(&src, "+", "<module>");
        f.location.span = Span::new(plus, plus);
        let text = render(&diagnostic("TypeError", "bad", vec![f]), false);
        assert!(text.contains("[u.dist:2:"), "{text}");
        assert!(text.ends_with("TypeError: bad\n"));
        assert!(!text.contains('\u{1b}'));
        // Spans past the end or inside a char are clamped, never a panic.
        let mut f = frame(&src, "é", "<module>");
        f.location.span = Span::new(f.location.span.start as usize + 1, 10_000);
        let text = render(&diagnostic("ValueError", "x", vec![f]), false);
        assert!(text.ends_with("ValueError: x\n"));
        let empty = SourceFile::new("e.dist", "");
        let f = Frame {
            location: Location {
                source: empty,
                span: Span::new(0, 0),
            },
            func: "<module>".into(),
        };
        let text = render(
            &diagnostic("NameError", "name 'x' is not defined", vec![f]),
            false,
        );
        assert_eq!(
            text.lines().last(),
            Some("NameError: name 'x' is not defined")
        );
    }

    #[test]
    fn colour_only_when_asked() {
        let src = SourceFile::new("c.dist", "x\n");
        let d = diagnostic(
            "NameError",
            "name 'x' is not defined",
            vec![frame(&src, "x", "<module>")],
        );
        assert!(render(&d, true).contains('\u{1b}'));
        assert!(!render(&d, false).contains('\u{1b}'));
    }
}
