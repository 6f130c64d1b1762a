//! The `str.is…` predicates (`isdigit`, `isalpha`, `isupper`, `istitle` …).

use super::str::{case, is_space};
use crate::object::{native, Member};

/// The predicates, registered on `str` with `str_more`'s methods.
pub static MEMBERS: &[Member] = &[
    Member::Method(isdigit::DEF),
    Member::Method(isdecimal::DEF),
    Member::Method(isnumeric::DEF),
    Member::Method(isalpha::DEF),
    Member::Method(isalnum::DEF),
    Member::Method(isspace::DEF),
    Member::Method(isupper::DEF),
    Member::Method(islower::DEF),
    Member::Method(isascii::DEF),
    Member::Method(isidentifier::DEF),
    Member::Method(istitle::DEF),
];

/// Whether `s` is not empty and `f` holds for each of its characters.
fn all_chars(s: &str, f: impl Fn(char) -> bool) -> bool {
    !s.is_empty() && s.chars().all(f)
}

fn is_decimal(c: char) -> bool {
    c.is_ascii_digit()
        || (c.to_digit(10).is_none()
            && c.is_numeric()
            && (c as u32) >= 0x660
            && !('\u{2150}'..='\u{218f}').contains(&c))
}

/// True if all characters are digits (and there is one).
#[native("str.isdigit(self)", c)]
fn isdigit(this: &str) -> bool {
    all_chars(this, |c| {
        is_decimal(c) || matches!(c, '\u{b2}' | '\u{b3}' | '\u{b9}')
    })
}

/// True if all characters are decimal digits.
#[native("str.isdecimal(self)", c)]
fn isdecimal(this: &str) -> bool {
    all_chars(this, is_decimal)
}

/// True if all characters are numeric.
#[native("str.isnumeric(self)", c)]
fn isnumeric(this: &str) -> bool {
    all_chars(this, char::is_numeric)
}

/// True if all characters are letters.
#[native("str.isalpha(self)", c)]
fn isalpha(this: &str) -> bool {
    all_chars(this, char::is_alphabetic)
}

/// True if all characters are letters or digits.
#[native("str.isalnum(self)", c)]
fn isalnum(this: &str) -> bool {
    all_chars(this, char::is_alphanumeric)
}

/// True if all characters are whitespace.
#[native("str.isspace(self)", c)]
fn isspace(this: &str) -> bool {
    all_chars(this, is_space)
}

/// True if all characters are ASCII.
#[native("str.isascii(self)", c)]
fn isascii(this: &str) -> bool {
    this.is_ascii()
}

/// CPython's `isupper` (`upper`) / `islower`: no character of the other
/// case nor titlecase, and at least one of this case.
fn cased(s: &str, upper: bool) -> bool {
    let mut any = false;
    for c in s.chars() {
        let (this_case, other) = if upper {
            (c.is_uppercase(), c.is_lowercase())
        } else {
            (c.is_lowercase(), c.is_uppercase())
        };
        if other || case::is_titlecase(c) {
            return false;
        }
        any |= this_case;
    }
    any
}

/// True if all cased characters are upper case (and there is one).
#[native("str.isupper(self)", c)]
fn isupper(this: &str) -> bool {
    cased(this, true)
}

/// True if all cased characters are lower case (and there is one).
#[native("str.islower(self)", c)]
fn islower(this: &str) -> bool {
    cased(this, false)
}

/// True if the string is a valid identifier.
#[native("str.isidentifier(self)", c)]
fn isidentifier(this: &str) -> bool {
    let mut cs = this.chars();
    cs.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && cs.all(|c| c == '_' || c.is_alphanumeric())
}

/// True if the string is title-cased.
#[native("str.istitle(self)", c)]
fn istitle(this: &str) -> bool {
    let (mut prev_cased, mut any) = (false, false);
    for c in this.chars() {
        if c.is_uppercase() || case::is_titlecase(c) {
            if prev_cased {
                return false;
            }
            prev_cased = true;
            any = true;
        } else if c.is_lowercase() {
            if !prev_cased {
                return false;
            }
            prev_cased = true;
            any = true;
        } else {
            prev_cased = false;
        }
    }
    any
}
