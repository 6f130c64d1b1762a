//! A small, forgiving Python tokenizer for the REPL: it colours keywords,
//! strings, numbers and comments, and tells the validator whether input is
//! still open (a bracket, a triple-quoted string, a trailing backslash) and
//! whether it is a block. It never fails; the real parser judges the code.

use std::ops::Range;

use crate::syntax::KEYWORDS;

/// What a token is, as far as the REPL cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A Python keyword (`def`, `if`, `None` …).
    Keyword,
    /// Any other identifier.
    Name,
    /// A number literal.
    Number,
    /// A string literal, prefix and quotes included (possibly unterminated).
    Str,
    /// `# …` to the end of the line.
    Comment,
    /// An opening bracket `(`, `[`, `{`.
    Open,
    /// A closing bracket `)`, `]`, `}`.
    Close,
    /// `:` (block openers, slices, dict entries, lambdas, annotations).
    Colon,
    /// `@` (decorators, matrix multiplication).
    At,
    /// A line break.
    Newline,
    /// A `\` line continuation.
    Backslash,
    /// Spaces and tabs.
    Space,
    /// Any other operator or punctuation.
    Other,
}

/// One token: its kind and byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The kind.
    pub kind: Kind,
    /// Where, in bytes.
    pub span: Range<usize>,
}

/// Splits `text` into tokens. The second value is true when the text ends
/// inside an unterminated triple-quoted string.
pub fn tokenize(text: &str) -> (Vec<Token>, bool) {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut open_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let c = text[i..].chars().next().unwrap_or(' ');
        let kind = match c {
            ' ' | '\t' | '\x0c' => {
                while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\x0c') {
                    i += 1;
                }
                Kind::Space
            }
            '\n' | '\r' => {
                i += 1;
                Kind::Newline
            }
            '#' => {
                i = text[i..].find(['\n', '\r']).map_or(bytes.len(), |n| i + n);
                Kind::Comment
            }
            '\\' => {
                i += 1;
                Kind::Backslash
            }
            '(' | '[' | '{' => {
                i += 1;
                Kind::Open
            }
            ')' | ']' | '}' => {
                i += 1;
                Kind::Close
            }
            ':' => {
                i += 1;
                Kind::Colon
            }
            '@' => {
                i += 1;
                Kind::At
            }
            '\'' | '"' => {
                let (end, closed) = string_end(text, i);
                open_string = !closed && is_triple(text, i);
                i = end;
                Kind::Str
            }
            '0'..='9' => {
                i = number_end(text, i);
                Kind::Number
            }
            '.' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                i = number_end(text, i);
                Kind::Number
            }
            c if c == '_' || c.is_alphabetic() => {
                let end = text[i..]
                    .find(|c: char| !(c == '_' || c.is_alphanumeric()))
                    .map_or(bytes.len(), |n| i + n);
                let word = &text[i..end];
                if is_string_prefix(word) && matches!(bytes.get(end), Some(b'\'' | b'"')) {
                    let (send, closed) = string_end(text, end);
                    open_string = !closed && is_triple(text, end);
                    i = send;
                    Kind::Str
                } else {
                    i = end;
                    if KEYWORDS.contains(&word) {
                        Kind::Keyword
                    } else {
                        Kind::Name
                    }
                }
            }
            c => {
                i += c.len_utf8();
                Kind::Other
            }
        };
        tokens.push(Token {
            kind,
            span: start..i,
        });
    }
    (tokens, open_string)
}

fn is_string_prefix(word: &str) -> bool {
    word.len() <= 2
        && word
            .chars()
            .all(|c| matches!(c.to_ascii_lowercase(), 'r' | 'b' | 'u' | 'f'))
}

fn is_triple(text: &str, quote_at: usize) -> bool {
    let q = &text[quote_at..quote_at + 1];
    text[quote_at..].starts_with(&q.repeat(3))
}

/// The end of the string whose opening quote is at `at`, and whether it was
/// closed. A one-line string ends at the end of its line, closed or not.
fn string_end(text: &str, at: usize) -> (usize, bool) {
    let bytes = text.as_bytes();
    let quote = bytes[at];
    let triple = is_triple(text, at);
    let mut i = at + if triple { 3 } else { 1 };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' | b'\r' if !triple => return (i, false),
            b if b == quote => {
                if !triple {
                    return (i + 1, true);
                }
                if bytes[i..].starts_with(&[quote; 3]) {
                    return (i + 3, true);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    (bytes.len(), false)
}

fn number_end(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = at;
    while i < bytes.len() {
        let b = bytes[i];
        let exponent_sign = matches!(b, b'+' | b'-')
            && i > at
            && matches!(bytes[i - 1], b'e' | b'E')
            && !text[at..i].starts_with("0x")
            && !text[at..i].starts_with("0X");
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || exponent_sign {
            i += 1;
        } else {
            break;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, &str)> {
        tokenize(text)
            .0
            .into_iter()
            .filter(|t| t.kind != Kind::Space)
            .map(|t| (t.kind, &text[t.span]))
            .collect()
    }

    #[test]
    fn tokens() {
        use Kind::*;
        assert_eq!(
            kinds("def f(x=1.5e-3): return rb'a\\'b' # hi"),
            vec![
                (Keyword, "def"),
                (Name, "f"),
                (Open, "("),
                (Name, "x"),
                (Other, "="),
                (Number, "1.5e-3"),
                (Close, ")"),
                (Colon, ":"),
                (Keyword, "return"),
                (Str, "rb'a\\'b'"),
                (Comment, "# hi"),
            ]
        );
        assert_eq!(kinds("x é"), vec![(Name, "x"), (Name, "é")]);
        assert_eq!(
            kinds("0x1f-2"),
            vec![(Number, "0x1f"), (Other, "-"), (Number, "2")]
        );
    }

    #[test]
    fn open_strings() {
        assert!(tokenize("s = \"\"\"abc\n").1);
        assert!(!tokenize("s = \"\"\"abc\"\"\"\n").1);
        assert!(!tokenize("s = 'abc\n").1);
        assert!(tokenize("f'''{x}").1);
    }
}
