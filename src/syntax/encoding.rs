//! Source bytes to source text, by CPython's rules (PEP 263 and its
//! tokenizer): a UTF-8 byte order mark is skipped; a `coding` comment on
//! line 1 or 2 names the encoding; without one the bytes must be UTF-8,
//! checked line by line. The encodings read are those scripts use (UTF-8,
//! Latin-1, ASCII, cp1252); any other encoding CPython knows is refused with
//! a message saying so, and a name CPython does not know gets CPython's
//! `encoding problem: NAME`. Every file dist reads as Python source (`dist
//! run`, stdin, the `.dist` files of `dist doctest`) goes through [`decode`].

/// Why source bytes could not be read as text: a `SyntaxError`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceError {
    /// The message (CPython's).
    pub message: String,
    /// Where CPython shows the offending line: the text decoded with
    /// replacement characters and the byte offset in it. `None` where
    /// CPython prints only the message.
    pub at: Option<(String, usize)>,
}

impl SourceError {
    fn plain(message: impl Into<String>) -> SourceError {
        SourceError {
            message: message.into(),
            at: None,
        }
    }
}

/// The encodings dist decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Codec {
    Utf8,
    Latin1,
    Ascii,
    Cp1252,
}

const BOM: &[u8] = b"\xef\xbb\xbf";

/// Decodes a source file's bytes; `name` is the file as CPython names it in
/// its messages (the path as given, `<stdin>`).
pub fn decode(bytes: &[u8], name: &str) -> Result<String, SourceError> {
    let (bom, body) = match bytes.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    // The declared encoding (as CPython spells it in messages) and whether
    // UTF-8 was declared by the exact name `utf-8` or the BOM: then no line
    // is checked up front and bad bytes surface where they are tokenized.
    let mut declared: Option<String> = bom.then(|| "utf-8".to_string());
    let mut checking_spec = true;
    let mut start = 0;
    for (i, line) in lines(body).take(2).enumerate() {
        if checking_spec {
            match coding_spec(line) {
                Spec::Found(cs) => {
                    checking_spec = false;
                    match &declared {
                        Some(bom_utf8) if *bom_utf8 != cs => {
                            return Err(SourceError::plain(format!(
                                "encoding problem: {cs} with BOM"
                            )))
                        }
                        Some(_) => {}
                        None => declared = Some(cs),
                    }
                }
                Spec::None { code } => checking_spec &= !code,
            }
        }
        if declared.is_none() {
            if let Err(e) = std::str::from_utf8(line) {
                let bad = line[e.valid_up_to()];
                return Err(SourceError::plain(format!(
                    "Non-UTF-8 code starting with '\\x{bad:02x}' in file {name} on line {}, but no encoding declared; see https://peps.python.org/pep-0263/ for details",
                    i + 1
                )));
            }
        }
        start += line.len();
    }
    let text = match declared {
        None => match std::str::from_utf8(&body[start..]) {
            Ok(_) => String::from_utf8(body.to_vec()).map_err(|_| unreachable_utf8())?,
            Err(e) => {
                let offset = start + e.valid_up_to();
                let line = 1 + body[..offset].iter().filter(|&&b| b == b'\n').count();
                return Err(SourceError::plain(format!(
                    "Non-UTF-8 code starting with '\\x{:02x}' in file {name} on line {line}, but no encoding declared; see https://peps.python.org/pep-0263/ for details",
                    body[offset]
                )));
            }
        },
        Some(cs) => match codec(&cs) {
            Some(Codec::Utf8) if cs == "utf-8" => utf8_declared(body)?,
            Some(c) => decode_with(c, body).ok_or_else(|| {
                SourceError::plain(format!("encoding problem: {cs}"))
            })?,
            None if CPYTHON_SOURCE_CODECS
                .split_whitespace()
                .any(|n| n == normalize(&cs)) =>
            {
                return Err(SourceError::plain(format!(
                    "encoding problem: {cs} is not supported by dist (it reads utf-8, latin-1, ascii and cp1252 sources)"
                )))
            }
            None => return Err(SourceError::plain(format!("encoding problem: {cs}"))),
        },
    };
    if let Some(nul) = text.find('\0') {
        return Err(SourceError {
            message: "source code cannot contain null bytes".into(),
            at: Some((text, nul)),
        });
    }
    Ok(text)
}

#[cold]
fn unreachable_utf8() -> SourceError {
    SourceError::plain("internal error: UTF-8 checked twice with different results")
}

/// The lines of `bytes`, each with its `\n`.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split_inclusive(|&b| b == b'\n')
}

enum Spec {
    /// A coding spec, normalized as CPython's `get_normal_name` does.
    Found(String),
    /// None; `code` when the line holds more than a comment (line 2 is then
    /// not looked at).
    None { code: bool },
}

/// CPython's `get_coding_spec` and `check_coding_spec` for one line.
fn coding_spec(line: &[u8]) -> Spec {
    let ws = |b: u8| b == b' ' || b == b'\t' || b == b'\x0c';
    let first = line.iter().position(|&b| !ws(b));
    let comment = first.is_some_and(|i| line[i] == b'#');
    let code = !comment && first.is_some_and(|i| !matches!(line[i], b'\n' | b'\r'));
    if !comment || line.len() < 7 {
        return Spec::None { code };
    }
    let limit = line.len() - 6;
    for i in 0..limit {
        if &line[i..i + 6] != b"coding" {
            continue;
        }
        let mut t = i + 6;
        if !matches!(line.get(t), Some(b':' | b'=')) {
            continue;
        }
        t += 1;
        while matches!(line.get(t), Some(b' ' | b'\t')) {
            t += 1;
        }
        let begin = t;
        while line
            .get(t)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        {
            t += 1;
        }
        if begin < t {
            let cs = String::from_utf8_lossy(&line[begin..t]).into_owned();
            return Spec::Found(normal_name(cs));
        }
    }
    Spec::None { code }
}

/// CPython's `get_normal_name`: the spellings of UTF-8 and Latin-1 it
/// recognises itself (on the first 12 characters, `_` read as `-`).
fn normal_name(cs: String) -> String {
    let buf: String = cs
        .chars()
        .take(12)
        .map(|c| {
            if c == '_' {
                '-'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    if buf == "utf-8" || buf.starts_with("utf-8-") {
        "utf-8".into()
    } else if ["latin-1", "iso-8859-1", "iso-latin-1"].contains(&buf.as_str())
        || ["latin-1-", "iso-8859-1-", "iso-latin-1-"]
            .iter()
            .any(|p| buf.starts_with(p))
    {
        "iso-8859-1".into()
    } else {
        cs
    }
}

/// Python's `encodings.normalize_encoding`, lowercased as the codec
/// registry looks names up.
fn normalize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// The codec a name stands for (CPython's aliases of the four).
fn codec(name: &str) -> Option<Codec> {
    Some(match normalize(name).as_str() {
        "utf_8" | "utf8" | "u8" | "utf" | "cp65001" | "utf8_ucs2" | "utf8_ucs4" => Codec::Utf8,
        "iso_8859_1" | "latin_1" | "latin1" | "latin" | "l1" | "8859" | "cp819" | "csisolatin1"
        | "ibm819" | "iso8859" | "iso8859_1" | "iso_8859_1_1987" | "iso_ir_100" => Codec::Latin1,
        "ascii" | "646" | "ansi_x3.4_1968" | "ansi_x3.4_1986" | "ansi_x3_4_1968" | "cp367"
        | "csascii" | "ibm367" | "iso646_us" | "iso_646.irv_1991" | "iso_ir_6" | "us"
        | "us_ascii" => Codec::Ascii,
        "cp1252" | "1252" | "windows_1252" => Codec::Cp1252,
        _ => return None,
    })
}

/// Decodes with a single-byte codec (or UTF-8); `None` on a byte it does
/// not map.
fn decode_with(codec: Codec, bytes: &[u8]) -> Option<String> {
    match codec {
        Codec::Utf8 => std::str::from_utf8(bytes).ok().map(str::to_string),
        Codec::Latin1 => Some(bytes.iter().map(|&b| char::from(b)).collect()),
        Codec::Ascii => bytes
            .is_ascii()
            .then(|| bytes.iter().map(|&b| char::from(b)).collect()),
        Codec::Cp1252 => bytes
            .iter()
            .map(|&b| match b {
                0x80..=0x9f => CP1252_HIGH[usize::from(b - 0x80)],
                _ => Some(char::from(b)),
            })
            .collect(),
    }
}

/// cp1252's 0x80..0x9F (Python's table: five bytes are undefined).
const CP1252_HIGH: [Option<char>; 32] = {
    const U: Option<char> = None;
    [
        Some('\u{20ac}'),
        U,
        Some('\u{201a}'),
        Some('\u{0192}'),
        Some('\u{201e}'),
        Some('\u{2026}'),
        Some('\u{2020}'),
        Some('\u{2021}'),
        Some('\u{02c6}'),
        Some('\u{2030}'),
        Some('\u{0160}'),
        Some('\u{2039}'),
        Some('\u{0152}'),
        U,
        Some('\u{017d}'),
        U,
        U,
        Some('\u{2018}'),
        Some('\u{2019}'),
        Some('\u{201c}'),
        Some('\u{201d}'),
        Some('\u{2022}'),
        Some('\u{2013}'),
        Some('\u{2014}'),
        Some('\u{02dc}'),
        Some('\u{2122}'),
        Some('\u{0161}'),
        Some('\u{203a}'),
        Some('\u{0153}'),
        U,
        Some('\u{017e}'),
        Some('\u{0178}'),
    ]
};

/// Declared UTF-8 (`utf-8` or a BOM): CPython does not check the lines, so a
/// bad byte in a comment is harmless, one in a string literal is the
/// literal's `(unicode error)`, and one in a bytes literal is "bytes can
/// only contain ASCII literal characters".
fn utf8_declared(bytes: &[u8]) -> Result<String, SourceError> {
    let mut text = String::with_capacity(bytes.len());
    let mut rest = bytes;
    let mut offset = 0;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                text.push_str(s);
                return Ok(text);
            }
            Err(e) => {
                let good = e.valid_up_to();
                let bad = offset + good;
                if !in_comment(bytes, bad) {
                    let message = literal_error(bytes, bad);
                    let lossy = String::from_utf8_lossy(bytes).into_owned();
                    let at = String::from_utf8_lossy(&bytes[..bad]).len();
                    return Err(SourceError {
                        message,
                        at: Some((lossy, at)),
                    });
                }
                // Safe: from_utf8 said these bytes are valid.
                text.push_str(&String::from_utf8_lossy(&rest[..good]));
                text.push('\u{fffd}');
                let skip = good + e.error_len().unwrap_or(rest.len() - good);
                offset += skip;
                rest = &rest[skip..];
            }
        }
    }
}

/// The start of the line holding byte `at`.
fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// Whether byte `at` is inside a `#` comment (quotes on its line tracked,
/// single-line strings only).
fn in_comment(bytes: &[u8], at: usize) -> bool {
    let mut quote: Option<u8> = None;
    let mut i = line_start(bytes, at);
    while i < at {
        let b = bytes[i];
        match quote {
            Some(_) if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'#' => return true,
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None => {}
        }
        i += 1;
    }
    false
}

/// CPython's message for a bad UTF-8 byte at `at` outside a comment: the
/// string literal holding it fails to decode (the position counts from the
/// literal's first character), a bytes literal refuses non-ASCII.
fn literal_error(bytes: &[u8], at: usize) -> String {
    let start = line_start(bytes, at);
    let end = bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i);
    let line = &bytes[start..end];
    let rel = at - start;
    // The literal's opening quote: the last quote before the byte.
    let open = line[..rel].iter().rposition(|&b| b == b'"' || b == b'\'');
    let (content, is_bytes) = match open {
        Some(q) => {
            let quote = line[q];
            let close = line[rel..]
                .iter()
                .position(|&b| b == quote)
                .map_or(line.len(), |i| rel + i);
            let prefix_bytes = line[..q]
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_alphabetic())
                .any(|b| matches!(b, b'b' | b'B'));
            (&line[q + 1..close], prefix_bytes)
        }
        None => (&line[rel..], false),
    };
    if is_bytes {
        return "bytes can only contain ASCII literal characters".into();
    }
    match std::str::from_utf8(content) {
        Ok(_) => "(unicode error) 'utf-8' codec can't decode bytes".into(),
        Err(e) => {
            let pos = e.valid_up_to();
            let byte = content[pos];
            let reason = utf8_reason(content, &e);
            format!("(unicode error) 'utf-8' codec can't decode byte 0x{byte:02x} in position {pos}: {reason}")
        }
    }
}

/// Python's reason for a UTF-8 decoding error of `bytes` (the end of
/// `UnicodeDecodeError`'s message).
pub fn utf8_reason(bytes: &[u8], e: &std::str::Utf8Error) -> &'static str {
    match e.error_len() {
        None => "unexpected end of data",
        Some(_) if matches!(bytes[e.valid_up_to()], 0x80..=0xc1 | 0xf5..=0xff) => {
            "invalid start byte"
        }
        Some(_) => "invalid continuation byte",
    }
}

/// The encoding names CPython 3.11 accepts in a coding line (aliases
/// included, normalized): a script naming one of them is valid Python that
/// dist declines to read, not a misspelt encoding.
const CPYTHON_SOURCE_CODECS: &str = include_str!("source_codecs.txt");

#[cfg(test)]
mod tests {
    use super::*;

    fn err(bytes: &[u8]) -> String {
        decode(bytes, "f.py").unwrap_err().message
    }

    #[test]
    fn bom_and_declarations() {
        assert_eq!(decode(b"\xef\xbb\xbfx = 1\r\n", "f").unwrap(), "x = 1\r\n");
        assert_eq!(
            decode(b"# -*- coding: latin-1 -*-\nx = '\xe9'\n", "f").unwrap(),
            "# -*- coding: latin-1 -*-\nx = '\u{e9}'\n"
        );
        assert_eq!(
            decode(b"#!/bin/sh\n# vim: fileencoding=cp1252\n'\x80'", "f").unwrap(),
            "#!/bin/sh\n# vim: fileencoding=cp1252\n'\u{20ac}'"
        );
        assert_eq!(err(b"# coding: xyz\n"), "encoding problem: xyz");
        assert_eq!(err(b"# coding: utf-16\n"), "encoding problem: utf-16");
        assert_eq!(
            err(b"\xef\xbb\xbf# coding: latin-1\n"),
            "encoding problem: iso-8859-1 with BOM"
        );
        assert_eq!(err(b"# coding: ascii\n# \xe9\n"), "encoding problem: ascii");
        assert_eq!(
            err(b"# coding: cp1252\n'\x81'\n"),
            "encoding problem: cp1252"
        );
        assert!(err(b"# coding: cp1251\n").contains("not supported by dist"));
    }

    #[test]
    fn undeclared_non_utf8() {
        assert_eq!(
            err(b"x = 1\ny = '\xff'\n"),
            "Non-UTF-8 code starting with '\\xff' in file f.py on line 2, but no encoding declared; see https://peps.python.org/pep-0263/ for details"
        );
        // Line 2 is not looked at after a line of code; line 1 is checked
        // before line 2's declaration is seen.
        assert!(err(b"print(1)\n# coding: latin-1\n'\xe9'\n").contains("on line 3"));
        assert!(err(b"# \xe9\n# coding: latin-1\n").contains("on line 1"));
    }

    #[test]
    fn declared_utf8() {
        assert_eq!(
            decode(b"# coding: utf-8\nx = 1 # \xff\n", "f").unwrap(),
            "# coding: utf-8\nx = 1 # \u{fffd}\n"
        );
        assert_eq!(
            err(b"# coding: utf-8\nx = \"ab\xe9cd\"\n"),
            "(unicode error) 'utf-8' codec can't decode byte 0xe9 in position 2: invalid continuation byte"
        );
        assert_eq!(
            err(b"# coding: utf-8\nx = \"ab\xe9\"\n"),
            "(unicode error) 'utf-8' codec can't decode byte 0xe9 in position 2: unexpected end of data"
        );
        assert_eq!(
            err(b"# coding: utf-8\nx = b'ab\xe9'\n"),
            "bytes can only contain ASCII literal characters"
        );
        assert_eq!(
            err(b"print(1)\0\n"),
            "source code cannot contain null bytes"
        );
    }
}
