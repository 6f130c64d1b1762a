//! Comparing an example's expected output with what it printed: CPython's
//! `doctest.OutputChecker` (exact, `True` for `1`, `<BLANKLINE>`,
//! `NORMALIZE_WHITESPACE`, `ELLIPSIS`) and, with `--tf-checker`, the rules of
//! TensorFlow's doc tests (`tf_doctest_lib.TfDoctestOutputChecker`: addresses
//! wildcarded, a tensor compared by its `numpy=` part, floats compared with
//! rtol and atol 1e-3). Also the line diff a failure report shows.

use super::options::{Flag, Flags};

/// Which comparison rules apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Checker {
    /// CPython's `doctest`.
    #[default]
    Python,
    /// TensorFlow's doc-test rules on top of CPython's.
    Tf,
}

impl Checker {
    /// Whether `got` is acceptable for `want` under `flags`.
    pub fn check(self, want: &str, got: &str, flags: Flags) -> bool {
        match self {
            Checker::Python => check_output(want, got, flags),
            Checker::Tf => tf_check_output(want, got, flags),
        }
    }
}

/// Python's `str.isspace()` for one ASCII character.
fn is_py_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c' | '\x1c'..='\x1f'
    )
}

/// Removes `<BLANKLINE>` markers that fill a line (they stand for an empty line).
pub fn blank_markers(want: &str) -> String {
    want.split('\n')
        .map(|line| match line.strip_prefix("<BLANKLINE>") {
            Some(rest) if rest.chars().all(is_py_space) => "",
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Empties lines of `got` that hold only whitespace.
fn blank_space_lines(got: &str) -> String {
    got.split('\n')
        .map(|line| {
            if !line.is_empty() && line.chars().all(is_py_space) {
                ""
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn normalize_whitespace(s: &str) -> String {
    s.split(is_py_space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// CPython's `OutputChecker.check_output`.
pub fn check_output(want: &str, got: &str, flags: Flags) -> bool {
    let mut got = crate::value::format::ascii_escape(got);
    let mut want = crate::value::format::ascii_escape(want);
    if got == want {
        return true;
    }
    if !flags.contains(Flag::DontAcceptTrueFor1)
        && ((got == "True\n" && want == "1\n") || (got == "False\n" && want == "0\n"))
    {
        return true;
    }
    if !flags.contains(Flag::DontAcceptBlankline) {
        want = blank_markers(&want);
        got = blank_space_lines(&got);
        if got == want {
            return true;
        }
    }
    if flags.contains(Flag::NormalizeWhitespace) {
        got = normalize_whitespace(&got);
        want = normalize_whitespace(&want);
        if got == want {
            return true;
        }
    }
    flags.contains(Flag::Ellipsis) && ellipsis_match(&want, &got)
}

/// Whether `got` matches `want`, in which each `...` matches any text
/// (CPython's `_ellipsis_match`: exact ends, leftmost pieces in between).
pub fn ellipsis_match(want: &str, got: &str) -> bool {
    if !want.contains("...") {
        return want == got;
    }
    let mut pieces: Vec<&str> = want.split("...").collect();
    let (mut start, mut end) = (0, got.len());
    let first = pieces[0];
    if !first.is_empty() {
        if !got.starts_with(first) {
            return false;
        }
        start = first.len();
        pieces.remove(0);
    }
    let last = pieces[pieces.len() - 1];
    if !last.is_empty() {
        if !got.ends_with(last) {
            return false;
        }
        end -= last.len();
        pieces.pop();
    }
    if start > end {
        return false;
    }
    for piece in pieces {
        match got[start..end].find(piece) {
            Some(at) => start += at + piece.len(),
            None => return false,
        }
    }
    true
}

/// The message an expected exception is compared by under
/// `IGNORE_EXCEPTION_DETAIL`: the class name without its module
/// (`a.b.MyError: detail` → `MyError`).
pub fn strip_exception_details(msg: &str) -> &str {
    let mut end = msg.find('\n').unwrap_or(msg.len());
    if let Some(colon) = msg[..end].find(':') {
        end = colon;
    }
    let start = msg[..end].rfind('.').map_or(0, |dot| dot + 1);
    &msg[start..end]
}

/// TensorFlow's `TfDoctestOutputChecker.check_output`.
pub fn tf_check_output(want: &str, got: &str, flags: Flags) -> bool {
    // An example that shows no output accepts any.
    if !got.is_empty() && want.is_empty() {
        return true;
    }
    if want == got {
        return true;
    }
    let want = wildcard_addresses(want);
    let (want, tensors) = tensor_numpy_part(&want);
    let got = if tensors {
        tensor_numpy_part(got).0
    } else {
        got.to_string()
    };
    let (want_parts, want_floats) = extract_floats(&want);
    let mut wild = want_parts
        .iter()
        .map(|p| p.trim_matches(' '))
        .collect::<Vec<_>>()
        .join("...");
    while wild.contains("....") {
        wild = wild.replace("....", "...");
    }
    let (_, got_floats) = extract_floats(&got);
    if !check_output(&wild, &got, flags) {
        return false;
    }
    if want_floats.is_empty() {
        return true;
    }
    want_floats.len() == got_floats.len()
        && want_floats
            .iter()
            .zip(&got_floats)
            .all(|(&w, &g)| all_close(w, g))
}

/// `numpy.isclose(want, got, rtol=1e-3, atol=1e-3)`.
fn all_close(want: f64, got: f64) -> bool {
    if want.is_infinite() || got.is_infinite() {
        return want == got;
    }
    (want - got).abs() <= 1e-3 + 1e-3 * got.abs()
}

/// `at 0x7f…>` becomes `at ...>` (TensorFlow's `_ADDRESS_RE`).
fn wildcard_addresses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("at 0x") {
        let word_before = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let after = &rest[at + 5..];
        let hex = after
            .find(|c: char| !matches!(c, '0'..='9' | 'a'..='f'))
            .unwrap_or(after.len());
        if !word_before && after[hex..].starts_with('>') {
            out.push_str(&rest[..at]);
            out.push_str("at ...>");
            rest = &after[hex + 1..];
        } else {
            out.push_str(&rest[..at + 5]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Replaces each `<tf.Tensor … numpy=VALUE>` by `VALUE`; whether any was replaced.
fn tensor_numpy_part(text: &str) -> (String, bool) {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(at) = rest.find("<tf") {
        let head = &rest[at + 3..];
        let matched = head.chars().next().and_then(|c| {
            let after = &head[c.len_utf8()..];
            let after = after.strip_prefix("Tensor")?;
            let numpy = after.find("numpy=")?;
            let value = &after[numpy + 6..];
            let close = value.find('>')?;
            Some((&value[..close], &value[close + 1..]))
        });
        match matched {
            Some((value, tail)) => {
                out.push_str(&rest[..at]);
                out.push_str(value);
                rest = tail;
                changed = true;
            }
            None => {
                out.push_str(&rest[..at + 3]);
                rest = head;
            }
        }
    }
    out.push_str(rest);
    (out, changed)
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text between the floats of `text`, and the floats (TensorFlow's
/// `_FloatExtractor`: `1.0`, `1.`, `.5`, `1e3`, signs, `300j`; not a number
/// inside a word or after a `.`).
pub fn extract_floats(text: &str) -> (Vec<String>, Vec<f64>) {
    let chars: Vec<char> = text.chars().collect();
    let mut parts = Vec::new();
    let mut floats = Vec::new();
    let mut part = String::new();
    let mut i = 0;
    while i < chars.len() {
        if let Some((end, consumed)) = float_at(&chars, i) {
            let number: String = chars[i..end].iter().collect();
            if let Ok(v) = number.parse::<f64>() {
                parts.push(std::mem::take(&mut part));
                floats.push(v);
                i = consumed;
                continue;
            }
        }
        part.push(chars[i]);
        i += 1;
    }
    parts.push(part);
    (parts, floats)
}

/// A float starting at `i`: the end of its text and of what it consumes
/// (a trailing `j`).
fn float_at(s: &[char], i: usize) -> Option<(usize, usize)> {
    let signed = matches!(s[i], '+' | '-');
    let start = if signed { i + 1 } else { i };
    if !signed && i > 0 && (is_word(s[i - 1]) || s[i - 1] == '.') {
        return None;
    }
    let digits = |from: usize| {
        let mut j = from;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let exponent = |from: usize| -> Option<usize> {
        if from < s.len() && matches!(s[from], 'e' | 'E') {
            let mut j = from + 1;
            if j < s.len() && matches!(s[j], '+' | '-') {
                j += 1;
            }
            let end = digits(j);
            (end > j).then_some(end)
        } else {
            None
        }
    };
    let tail_ok = |end: usize| -> Option<(usize, usize)> {
        let consumed = if end < s.len() && s[end] == 'j' {
            end + 1
        } else {
            end
        };
        let ok = consumed == s.len() || !(is_word(s[consumed]) || s[consumed] == '.');
        ok.then_some((end, consumed))
    };
    let int_end = digits(start);
    // `1.5`, `1.`, `1.5e3`
    if int_end > start && int_end < s.len() && s[int_end] == '.' {
        let frac_end = digits(int_end + 1);
        let end = exponent(frac_end).unwrap_or(frac_end);
        if let Some(m) = tail_ok(end) {
            return Some(m);
        }
    }
    // `.5`, `.5e3`
    if int_end == start && start < s.len() && s[start] == '.' {
        let frac_end = digits(start + 1);
        if frac_end > start + 1 {
            let end = exponent(frac_end).unwrap_or(frac_end);
            if let Some(m) = tail_ok(end) {
                return Some(m);
            }
        }
    }
    if int_end > start {
        // `1e3`
        if let Some(end) = exponent(int_end) {
            if let Some(m) = tail_ok(end) {
                return Some(m);
            }
        }
        // `300j`
        if int_end < s.len() && s[int_end] == 'j' {
            return tail_ok(int_end);
        }
    }
    None
}

/// A line diff of `want` against `got`: each line prefixed with `-`
/// (expected only), `+` (got only) or a space (both). With `mark_blank`, an
/// empty line is shown as `<BLANKLINE>`, as an expected output would write it.
pub fn diff(want: &str, got: &str, mark_blank: bool) -> Vec<String> {
    let a: Vec<&str> = want.lines().collect();
    let b: Vec<&str> = got.lines().collect();
    let line = |sign: char, l: &str| {
        if mark_blank && l.is_empty() {
            format!("{sign} <BLANKLINE>")
        } else {
            format!("{sign} {l}")
        }
    };
    if a.len().saturating_mul(b.len()) > 1 << 22 {
        // Too big for the table: every expected line, then every line got.
        let minus = a.iter().map(|l| line('-', l));
        return minus.chain(b.iter().map(|l| line('+', l))).collect();
    }
    // Longest common subsequence table, from the ends.
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push(line(' ', a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(line('-', a[i]));
            i += 1;
        } else {
            out.push(line('+', b[j]));
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(list: &[Flag]) -> Flags {
        let mut f = Flags::empty();
        for &flag in list {
            f.insert(flag);
        }
        f
    }

    #[test]
    fn python_rules() {
        let none = Flags::empty();
        assert!(check_output("1\n", "True\n", none));
        assert!(!check_output(
            "1\n",
            "True\n",
            flags(&[Flag::DontAcceptTrueFor1])
        ));
        assert!(check_output("a\n<BLANKLINE>\nb\n", "a\n  \nb\n", none));
        assert!(!check_output("a  b\n", "a b\n", none));
        assert!(check_output(
            "a  b\n",
            "a\nb\n",
            flags(&[Flag::NormalizeWhitespace])
        ));
        assert!(check_output("é\n", "\\xe9\n", none));
    }

    #[test]
    fn ellipsis() {
        assert!(ellipsis_match("...", "anything"));
        assert!(ellipsis_match("a...z", "abcz"));
        assert!(!ellipsis_match("aa...aa", "aaa"));
        assert!(ellipsis_match("a...b...c", "axxbyyc"));
        assert!(!ellipsis_match("a...c...b", "axxbyyc"));
    }

    #[test]
    fn exception_details() {
        assert_eq!(
            strip_exception_details("a.b.MyError: la di da\n"),
            "MyError"
        );
        assert_eq!(strip_exception_details("abc.def\n"), "def");
        assert_eq!(strip_exception_details("ValueError\n"), "ValueError");
    }

    #[test]
    fn tf_floats() {
        let (parts, floats) = extract_floats("Text 1.0 Text");
        assert_eq!(parts, ["Text ", " Text"]);
        assert_eq!(floats, [1.0]);
        for (text, want) in [
            ("result = 1", vec![]),
            ("text 1. text", vec![1.0]),
            ("text .1 text", vec![0.1]),
            ("text 1e3 text", vec![1000.0]),
            ("text -1E3 text", vec![-1000.0]),
            ("text +1e-3 text", vec![0.001]),
            ("x1.0 1.0.1 1.0x", vec![]),
            ("(1.0j)", vec![1.0]),
            ("300j", vec![300.0]),
            ("[1.5,-2.5]", vec![1.5, -2.5]),
        ] {
            assert_eq!(extract_floats(text).1, want, "{text}");
        }
        let f = flags(&[Flag::Ellipsis, Flag::NormalizeWhitespace]);
        assert!(tf_check_output("[1.0001, 2.0]\n", "[1.0, 2.0]\n", f));
        assert!(!tf_check_output("[1.1, 2.0]\n", "[1.0, 2.0]\n", f));
        assert!(tf_check_output("", "anything\n", f));
        assert!(tf_check_output("<A at 0x1f>\n", "<A at 0x7fab>\n", f));
        assert!(tf_check_output(
            "<tf.Tensor: shape=(), dtype=float32, numpy=1.0>\n",
            "<tf.Tensor: shape=(), dtype=float32, numpy=1.0001>\n",
            f
        ));
    }

    #[test]
    fn line_diff() {
        assert_eq!(diff("a\nb\n", "a\nc\n", true), ["  a", "- b", "+ c"]);
        assert_eq!(diff("a\n", "a\n\n", true), ["  a", "+ <BLANKLINE>"]);
        assert_eq!(diff("a\n", "a\n\n", false), ["  a", "+ "]);
    }
}
