//! Splitting text into doctest examples, with the semantics of CPython's
//! `doctest.DocTestParser`: tabs expanded, the common indentation removed, a
//! `>>>` line and its `...` continuation lines are the source, the non-blank
//! lines after them (up to a blank line or the next `>>>`) the expected
//! output; a `Traceback (most recent call last):` block expects an exception;
//! `# doctest: +FLAG` comments set option flags. Markdown fences are handled
//! by the caller (`blank_fences`), which turns fence lines into blank lines
//! so that a closing fence ends an example's output.

use super::options::{flag_by_name, Flags};

/// One `>>>` example.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    /// The source, prompts removed, ending in a newline.
    pub source: String,
    /// The expected output, indentation removed, ending in a newline unless empty.
    pub want: String,
    /// The expected exception line(s) (`ValueError: msg\n`), if `want` is a traceback.
    pub exc_msg: Option<String>,
    /// 0-based line of the `>>>` line within the parsed text.
    pub lineno: usize,
    /// The column of `>>>` after the common indentation was removed.
    pub indent: usize,
    /// Flags this example turns on (`+FLAG`).
    pub set: Flags,
    /// Flags this example turns off (`-FLAG`).
    pub unset: Flags,
}

/// A malformed example (CPython raises `ValueError` for the whole docstring).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// CPython's message (`line 3 of the docstring for x lacks blank after >>>: '>>>1'`).
    pub message: String,
}

/// Replaces Markdown fence lines (```` ``` ```` or `~~~`, any indentation)
/// with blank lines, so that a fence ends an example's expected output and
/// line numbers stay those of the file.
pub fn blank_fences(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let t = line.trim_start();
        if !(t.starts_with("```") || t.starts_with("~~~")) {
            out.push_str(line);
        }
    }
    out
}

/// `str.expandtabs()` with tab stops every 8 columns.
fn expand_tabs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut col = 0;
    for c in text.chars() {
        match c {
            '\t' => {
                let n = 8 - col % 8;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            '\n' | '\r' => {
                out.push(c);
                col = 0;
            }
            _ => {
                out.push(c);
                col += 1;
            }
        }
    }
    out
}

fn leading_spaces(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Whether `line` is blank in the sense of `[ ]*$`.
fn is_blank(line: &str) -> bool {
    line.bytes().all(|b| b == b' ')
}

/// Whether `line` is `[ ]*>>>…`.
fn is_ps1(line: &str) -> bool {
    line.trim_start_matches(' ').starts_with(">>>")
}

/// Whether `line` is `[ ]*\.\.\.…`.
fn is_ps2(line: &str) -> bool {
    line.trim_start_matches(' ').starts_with("...")
}

/// Parses `text` (a docstring or a whole text file) named `name` (for
/// messages) into its examples.
pub fn parse(text: &str, name: &str) -> Result<Vec<Example>, ParseError> {
    let text = expand_tabs(text);
    let min_indent = text
        .split('\n')
        .filter(|l| !l.trim_start_matches(' ').is_empty())
        .filter(|l| !l.trim_start_matches(' ').starts_with(char::is_whitespace))
        .map(leading_spaces)
        .min()
        .unwrap_or(0);
    // Python's `l[min_indent:]` counts characters; these are spaces or shorter lines.
    let lines: Vec<String> = text
        .split('\n')
        .map(|l| l.chars().skip(min_indent).collect())
        .collect();
    let mut examples = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !is_ps1(&lines[i]) {
            i += 1;
            continue;
        }
        let lineno = i;
        let indent = leading_spaces(&lines[i]);
        let mut source_lines = vec![lines[i].as_str()];
        i += 1;
        while i < lines.len() && is_ps2(&lines[i]) {
            source_lines.push(&lines[i]);
            i += 1;
        }
        let mut want_lines = Vec::new();
        while i < lines.len() && !is_blank(&lines[i]) && !is_ps1(&lines[i]) {
            want_lines.push(lines[i].as_str());
            i += 1;
        }
        let ex = example(&source_lines, &want_lines, indent, lineno, name)?;
        // CPython drops an example whose source is blank or only a comment.
        if !blank_or_comment(ex.source.trim_end_matches('\n')) {
            examples.push(ex);
        }
    }
    Ok(examples)
}

fn example(
    source_lines: &[&str],
    want_lines: &[&str],
    indent: usize,
    lineno: usize,
    name: &str,
) -> Result<Example, ParseError> {
    let err = |message: String| Err(ParseError { message });
    for (k, line) in source_lines.iter().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        if chars.len() >= indent + 4 && chars[indent + 3] != ' ' {
            let prompt: String = chars[indent..indent + 3].iter().collect();
            return err(format!(
                "line {} of the docstring for {name} lacks blank after {prompt}: {}",
                lineno + k + 1,
                py_repr(line)
            ));
        }
    }
    let ps2_prefix = format!("{}.", " ".repeat(indent));
    for (k, line) in source_lines.iter().enumerate().skip(1) {
        if !line.is_empty() && !line.starts_with(&ps2_prefix) {
            return err(inconsistent(lineno + k + 1, name, line));
        }
    }
    let prefix = " ".repeat(indent);
    for (k, line) in want_lines.iter().enumerate() {
        if !line.is_empty() && !line.starts_with(&prefix) {
            return err(inconsistent(
                lineno + source_lines.len() + k + 1,
                name,
                line,
            ));
        }
    }
    let strip = |l: &str, n: usize| l.chars().skip(n).collect::<String>();
    let mut source = source_lines
        .iter()
        .map(|l| strip(l, indent + 4))
        .collect::<Vec<_>>()
        .join("\n");
    let mut want = want_lines
        .iter()
        .map(|l| strip(l, indent))
        .collect::<Vec<_>>()
        .join("\n");
    let exc_msg = exception_message(&want);
    let (set, unset) = directives(&source, lineno, name)?;
    if !source.ends_with('\n') {
        source.push('\n');
    }
    if !want.is_empty() && !want.ends_with('\n') {
        want.push('\n');
    }
    Ok(Example {
        source,
        want,
        exc_msg: exc_msg.map(|m| {
            if m.ends_with('\n') {
                m
            } else {
                format!("{m}\n")
            }
        }),
        lineno,
        indent,
        set,
        unset,
    })
}

fn inconsistent(line: usize, name: &str, text: &str) -> String {
    format!(
        "line {line} of the docstring for {name} has inconsistent leading whitespace: {}",
        py_repr(text)
    )
}

/// The exception part of an expected traceback: from the first line after
/// the `Traceback (most recent call last):` header that starts with a word
/// character to the end (CPython's `_EXCEPTION_RE`).
fn exception_message(want: &str) -> Option<String> {
    let (header, rest) = want.split_once('\n').unwrap_or((want, ""));
    let header = header.trim_end();
    if header != "Traceback (most recent call last):" && header != "Traceback (innermost last):" {
        return None;
    }
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
            return Some(rest[offset..].to_string());
        }
        offset += line.len();
    }
    None
}

/// The `# doctest: +FLAG, -FLAG` directives of an example's source.
fn directives(source: &str, lineno: usize, name: &str) -> Result<(Flags, Flags), ParseError> {
    let mut set = Flags::empty();
    let mut unset = Flags::empty();
    let mut any = false;
    for line in source.split('\n') {
        let Some(options) = directive_text(line) else {
            continue;
        };
        for option in options.replace(',', " ").split_whitespace() {
            let flag = option
                .strip_prefix(['+', '-'])
                .and_then(flag_by_name)
                .ok_or_else(|| ParseError {
                    message: format!(
                        "line {} of the doctest for {name} has an invalid option: {}",
                        lineno + 1,
                        py_repr(option)
                    ),
                })?;
            any = true;
            if option.starts_with('+') {
                set.insert(flag);
                unset.remove(flag);
            } else {
                unset.insert(flag);
                set.remove(flag);
            }
        }
    }
    if any && blank_or_comment(source) {
        return Err(ParseError {
            message: format!(
                "line {} of the doctest for {name} has an option directive on a line with no example: {}",
                lineno + 1,
                py_repr(source)
            ),
        });
    }
    Ok((set, unset))
}

/// Whether a source is one blank or comment line (CPython's `^[ ]*(#.*)?$`).
fn blank_or_comment(source: &str) -> bool {
    !source.contains('\n') && {
        let t = source.trim_start_matches(' ');
        t.is_empty() || t.starts_with('#')
    }
}

/// The text after `# doctest:` on this line (`#\s*doctest:\s*([^\n'"]*)$`).
fn directive_text(line: &str) -> Option<&str> {
    for (at, _) in line.match_indices('#') {
        let rest = line[at + 1..].trim_start();
        if let Some(options) = rest.strip_prefix("doctest:") {
            let options = options.trim_start();
            if !options.contains(['\'', '"']) {
                return Some(options);
            }
        }
    }
    None
}

/// Python's `repr` of a str (for messages).
fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctest::options::Flag;

    #[test]
    fn source_want_and_lines() {
        let ex = parse(
            "Intro\n\n  >>> x = 1\n  >>> for i in [1]:\n  ...     print(i)\n  1\n\nEnd\n",
            "t",
        )
        .unwrap();
        assert_eq!(ex.len(), 2);
        assert_eq!(ex[0].source, "x = 1\n");
        assert_eq!(ex[0].want, "");
        assert_eq!(ex[0].lineno, 2);
        assert_eq!(ex[1].source, "for i in [1]:\n    print(i)\n");
        assert_eq!(ex[1].want, "1\n");
        assert_eq!(ex[1].lineno, 3);
    }

    #[test]
    fn traceback_and_directives() {
        let ex = parse(
            ">>> f()  # doctest: +ELLIPSIS, -NORMALIZE_WHITESPACE\nTraceback (most recent call last):\n  ...\nValueError: bad\n  more\n",
            "t",
        )
        .unwrap();
        assert_eq!(ex[0].exc_msg.as_deref(), Some("ValueError: bad\n  more\n"));
        assert!(ex[0].set.contains(Flag::Ellipsis));
        assert!(ex[0].unset.contains(Flag::NormalizeWhitespace));
    }

    #[test]
    fn errors() {
        assert!(parse(">>>x\n", "t")
            .unwrap_err()
            .message
            .contains("lacks blank"));
        assert!(parse("  >>> x\n ...\n", "t")
            .unwrap_err()
            .message
            .contains("inconsistent"));
        assert!(parse(">>> x  # doctest: +BOGUS\n", "t")
            .unwrap_err()
            .message
            .contains("invalid option: '+BOGUS'"));
        assert!(parse(">>> # doctest: +SKIP\n", "t")
            .unwrap_err()
            .message
            .contains("no example"));
    }

    #[test]
    fn fences_end_output() {
        let text = blank_fences("```python\n>>> 1\n1\n```\n");
        let ex = parse(&text, "t").unwrap();
        assert_eq!(ex[0].want, "1\n");
        assert_eq!(ex[0].lineno, 1);
    }
}
