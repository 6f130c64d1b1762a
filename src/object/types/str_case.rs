//! Unicode case mappings that Rust's `char` lacks, for `str.casefold`,
//! `str.title`, `str.capitalize` and the case predicates: full case folding
//! where it differs from lowercasing (`'ß'` → `'ss'`), titlecase where it
//! differs from uppercasing (`'ǆ'` → `'ǅ'`, `'ﬁ'` → `'Fi'`), and the titlecase
//! letters (category Lt). Generated from Python 3.11's `str.casefold`,
//! `str.title` and `unicodedata.category` (Unicode 14.0.0), over every
//! code point, keeping the ones that differ from Rust's `to_lowercase` /
//! `to_uppercase`.

fn lookup(table: &[(u32, &'static str)], c: char) -> Option<&'static str> {
    table
        .binary_search_by_key(&(c as u32), |&(k, _)| k)
        .ok()
        .map(|i| table[i].1)
}

/// Appends the full case folding of `c`.
pub fn push_casefold(c: char, out: &mut String) {
    match lookup(CASEFOLD, c) {
        Some(s) => out.push_str(s),
        None => out.extend(c.to_lowercase()),
    }
}

/// Appends the titlecase of `c`.
pub fn push_title(c: char, out: &mut String) {
    match lookup(TITLE, c) {
        Some(s) => out.push_str(s),
        None => out.extend(c.to_uppercase()),
    }
}

/// Whether `c` is a titlecase letter (`'ǅ'`): neither upper nor lower case.
pub fn is_titlecase(c: char) -> bool {
    TITLECASE_LETTERS.binary_search(&(c as u32)).is_ok()
}

/// Whether `c` has case (Unicode's Cased: upper, lower or titlecase).
pub fn is_cased(c: char) -> bool {
    c.is_uppercase() || c.is_lowercase() || is_titlecase(c)
}

#[rustfmt::skip]
const CASEFOLD: &[(u32, &str)] = &[
    (0xB5, "\u{3bc}"), (0xDF, "\u{73}\u{73}"), (0x149, "\u{2bc}\u{6e}"),
    (0x17F, "\u{73}"), (0x1F0, "\u{6a}\u{30c}"), (0x345, "\u{3b9}"),
    (0x390, "\u{3b9}\u{308}\u{301}"), (0x3B0, "\u{3c5}\u{308}\u{301}"), (0x3C2, "\u{3c3}"),
    (0x3D0, "\u{3b2}"), (0x3D1, "\u{3b8}"), (0x3D5, "\u{3c6}"),
    (0x3D6, "\u{3c0}"), (0x3F0, "\u{3ba}"), (0x3F1, "\u{3c1}"),
    (0x3F5, "\u{3b5}"), (0x587, "\u{565}\u{582}"), (0x13A0, "\u{13a0}"),
    (0x13A1, "\u{13a1}"), (0x13A2, "\u{13a2}"), (0x13A3, "\u{13a3}"),
    (0x13A4, "\u{13a4}"), (0x13A5, "\u{13a5}"), (0x13A6, "\u{13a6}"),
    (0x13A7, "\u{13a7}"), (0x13A8, "\u{13a8}"), (0x13A9, "\u{13a9}"),
    (0x13AA, "\u{13aa}"), (0x13AB, "\u{13ab}"), (0x13AC, "\u{13ac}"),
    (0x13AD, "\u{13ad}"), (0x13AE, "\u{13ae}"), (0x13AF, "\u{13af}"),
    (0x13B0, "\u{13b0}"), (0x13B1, "\u{13b1}"), (0x13B2, "\u{13b2}"),
    (0x13B3, "\u{13b3}"), (0x13B4, "\u{13b4}"), (0x13B5, "\u{13b5}"),
    (0x13B6, "\u{13b6}"), (0x13B7, "\u{13b7}"), (0x13B8, "\u{13b8}"),
    (0x13B9, "\u{13b9}"), (0x13BA, "\u{13ba}"), (0x13BB, "\u{13bb}"),
    (0x13BC, "\u{13bc}"), (0x13BD, "\u{13bd}"), (0x13BE, "\u{13be}"),
    (0x13BF, "\u{13bf}"), (0x13C0, "\u{13c0}"), (0x13C1, "\u{13c1}"),
    (0x13C2, "\u{13c2}"), (0x13C3, "\u{13c3}"), (0x13C4, "\u{13c4}"),
    (0x13C5, "\u{13c5}"), (0x13C6, "\u{13c6}"), (0x13C7, "\u{13c7}"),
    (0x13C8, "\u{13c8}"), (0x13C9, "\u{13c9}"), (0x13CA, "\u{13ca}"),
    (0x13CB, "\u{13cb}"), (0x13CC, "\u{13cc}"), (0x13CD, "\u{13cd}"),
    (0x13CE, "\u{13ce}"), (0x13CF, "\u{13cf}"), (0x13D0, "\u{13d0}"),
    (0x13D1, "\u{13d1}"), (0x13D2, "\u{13d2}"), (0x13D3, "\u{13d3}"),
    (0x13D4, "\u{13d4}"), (0x13D5, "\u{13d5}"), (0x13D6, "\u{13d6}"),
    (0x13D7, "\u{13d7}"), (0x13D8, "\u{13d8}"), (0x13D9, "\u{13d9}"),
    (0x13DA, "\u{13da}"), (0x13DB, "\u{13db}"), (0x13DC, "\u{13dc}"),
    (0x13DD, "\u{13dd}"), (0x13DE, "\u{13de}"), (0x13DF, "\u{13df}"),
    (0x13E0, "\u{13e0}"), (0x13E1, "\u{13e1}"), (0x13E2, "\u{13e2}"),
    (0x13E3, "\u{13e3}"), (0x13E4, "\u{13e4}"), (0x13E5, "\u{13e5}"),
    (0x13E6, "\u{13e6}"), (0x13E7, "\u{13e7}"), (0x13E8, "\u{13e8}"),
    (0x13E9, "\u{13e9}"), (0x13EA, "\u{13ea}"), (0x13EB, "\u{13eb}"),
    (0x13EC, "\u{13ec}"), (0x13ED, "\u{13ed}"), (0x13EE, "\u{13ee}"),
    (0x13EF, "\u{13ef}"), (0x13F0, "\u{13f0}"), (0x13F1, "\u{13f1}"),
    (0x13F2, "\u{13f2}"), (0x13F3, "\u{13f3}"), (0x13F4, "\u{13f4}"),
    (0x13F5, "\u{13f5}"), (0x13F8, "\u{13f0}"), (0x13F9, "\u{13f1}"),
    (0x13FA, "\u{13f2}"), (0x13FB, "\u{13f3}"), (0x13FC, "\u{13f4}"),
    (0x13FD, "\u{13f5}"), (0x1C80, "\u{432}"), (0x1C81, "\u{434}"),
    (0x1C82, "\u{43e}"), (0x1C83, "\u{441}"), (0x1C84, "\u{442}"),
    (0x1C85, "\u{442}"), (0x1C86, "\u{44a}"), (0x1C87, "\u{463}"),
    (0x1C88, "\u{a64b}"), (0x1E96, "\u{68}\u{331}"), (0x1E97, "\u{74}\u{308}"),
    (0x1E98, "\u{77}\u{30a}"), (0x1E99, "\u{79}\u{30a}"), (0x1E9A, "\u{61}\u{2be}"),
    (0x1E9B, "\u{1e61}"), (0x1E9E, "\u{73}\u{73}"), (0x1F50, "\u{3c5}\u{313}"),
    (0x1F52, "\u{3c5}\u{313}\u{300}"), (0x1F54, "\u{3c5}\u{313}\u{301}"), (0x1F56, "\u{3c5}\u{313}\u{342}"),
    (0x1F80, "\u{1f00}\u{3b9}"), (0x1F81, "\u{1f01}\u{3b9}"), (0x1F82, "\u{1f02}\u{3b9}"),
    (0x1F83, "\u{1f03}\u{3b9}"), (0x1F84, "\u{1f04}\u{3b9}"), (0x1F85, "\u{1f05}\u{3b9}"),
    (0x1F86, "\u{1f06}\u{3b9}"), (0x1F87, "\u{1f07}\u{3b9}"), (0x1F88, "\u{1f00}\u{3b9}"),
    (0x1F89, "\u{1f01}\u{3b9}"), (0x1F8A, "\u{1f02}\u{3b9}"), (0x1F8B, "\u{1f03}\u{3b9}"),
    (0x1F8C, "\u{1f04}\u{3b9}"), (0x1F8D, "\u{1f05}\u{3b9}"), (0x1F8E, "\u{1f06}\u{3b9}"),
    (0x1F8F, "\u{1f07}\u{3b9}"), (0x1F90, "\u{1f20}\u{3b9}"), (0x1F91, "\u{1f21}\u{3b9}"),
    (0x1F92, "\u{1f22}\u{3b9}"), (0x1F93, "\u{1f23}\u{3b9}"), (0x1F94, "\u{1f24}\u{3b9}"),
    (0x1F95, "\u{1f25}\u{3b9}"), (0x1F96, "\u{1f26}\u{3b9}"), (0x1F97, "\u{1f27}\u{3b9}"),
    (0x1F98, "\u{1f20}\u{3b9}"), (0x1F99, "\u{1f21}\u{3b9}"), (0x1F9A, "\u{1f22}\u{3b9}"),
    (0x1F9B, "\u{1f23}\u{3b9}"), (0x1F9C, "\u{1f24}\u{3b9}"), (0x1F9D, "\u{1f25}\u{3b9}"),
    (0x1F9E, "\u{1f26}\u{3b9}"), (0x1F9F, "\u{1f27}\u{3b9}"), (0x1FA0, "\u{1f60}\u{3b9}"),
    (0x1FA1, "\u{1f61}\u{3b9}"), (0x1FA2, "\u{1f62}\u{3b9}"), (0x1FA3, "\u{1f63}\u{3b9}"),
    (0x1FA4, "\u{1f64}\u{3b9}"), (0x1FA5, "\u{1f65}\u{3b9}"), (0x1FA6, "\u{1f66}\u{3b9}"),
    (0x1FA7, "\u{1f67}\u{3b9}"), (0x1FA8, "\u{1f60}\u{3b9}"), (0x1FA9, "\u{1f61}\u{3b9}"),
    (0x1FAA, "\u{1f62}\u{3b9}"), (0x1FAB, "\u{1f63}\u{3b9}"), (0x1FAC, "\u{1f64}\u{3b9}"),
    (0x1FAD, "\u{1f65}\u{3b9}"), (0x1FAE, "\u{1f66}\u{3b9}"), (0x1FAF, "\u{1f67}\u{3b9}"),
    (0x1FB2, "\u{1f70}\u{3b9}"), (0x1FB3, "\u{3b1}\u{3b9}"), (0x1FB4, "\u{3ac}\u{3b9}"),
    (0x1FB6, "\u{3b1}\u{342}"), (0x1FB7, "\u{3b1}\u{342}\u{3b9}"), (0x1FBC, "\u{3b1}\u{3b9}"),
    (0x1FBE, "\u{3b9}"), (0x1FC2, "\u{1f74}\u{3b9}"), (0x1FC3, "\u{3b7}\u{3b9}"),
    (0x1FC4, "\u{3ae}\u{3b9}"), (0x1FC6, "\u{3b7}\u{342}"), (0x1FC7, "\u{3b7}\u{342}\u{3b9}"),
    (0x1FCC, "\u{3b7}\u{3b9}"), (0x1FD2, "\u{3b9}\u{308}\u{300}"), (0x1FD3, "\u{3b9}\u{308}\u{301}"),
    (0x1FD6, "\u{3b9}\u{342}"), (0x1FD7, "\u{3b9}\u{308}\u{342}"), (0x1FE2, "\u{3c5}\u{308}\u{300}"),
    (0x1FE3, "\u{3c5}\u{308}\u{301}"), (0x1FE4, "\u{3c1}\u{313}"), (0x1FE6, "\u{3c5}\u{342}"),
    (0x1FE7, "\u{3c5}\u{308}\u{342}"), (0x1FF2, "\u{1f7c}\u{3b9}"), (0x1FF3, "\u{3c9}\u{3b9}"),
    (0x1FF4, "\u{3ce}\u{3b9}"), (0x1FF6, "\u{3c9}\u{342}"), (0x1FF7, "\u{3c9}\u{342}\u{3b9}"),
    (0x1FFC, "\u{3c9}\u{3b9}"), (0xAB70, "\u{13a0}"), (0xAB71, "\u{13a1}"),
    (0xAB72, "\u{13a2}"), (0xAB73, "\u{13a3}"), (0xAB74, "\u{13a4}"),
    (0xAB75, "\u{13a5}"), (0xAB76, "\u{13a6}"), (0xAB77, "\u{13a7}"),
    (0xAB78, "\u{13a8}"), (0xAB79, "\u{13a9}"), (0xAB7A, "\u{13aa}"),
    (0xAB7B, "\u{13ab}"), (0xAB7C, "\u{13ac}"), (0xAB7D, "\u{13ad}"),
    (0xAB7E, "\u{13ae}"), (0xAB7F, "\u{13af}"), (0xAB80, "\u{13b0}"),
    (0xAB81, "\u{13b1}"), (0xAB82, "\u{13b2}"), (0xAB83, "\u{13b3}"),
    (0xAB84, "\u{13b4}"), (0xAB85, "\u{13b5}"), (0xAB86, "\u{13b6}"),
    (0xAB87, "\u{13b7}"), (0xAB88, "\u{13b8}"), (0xAB89, "\u{13b9}"),
    (0xAB8A, "\u{13ba}"), (0xAB8B, "\u{13bb}"), (0xAB8C, "\u{13bc}"),
    (0xAB8D, "\u{13bd}"), (0xAB8E, "\u{13be}"), (0xAB8F, "\u{13bf}"),
    (0xAB90, "\u{13c0}"), (0xAB91, "\u{13c1}"), (0xAB92, "\u{13c2}"),
    (0xAB93, "\u{13c3}"), (0xAB94, "\u{13c4}"), (0xAB95, "\u{13c5}"),
    (0xAB96, "\u{13c6}"), (0xAB97, "\u{13c7}"), (0xAB98, "\u{13c8}"),
    (0xAB99, "\u{13c9}"), (0xAB9A, "\u{13ca}"), (0xAB9B, "\u{13cb}"),
    (0xAB9C, "\u{13cc}"), (0xAB9D, "\u{13cd}"), (0xAB9E, "\u{13ce}"),
    (0xAB9F, "\u{13cf}"), (0xABA0, "\u{13d0}"), (0xABA1, "\u{13d1}"),
    (0xABA2, "\u{13d2}"), (0xABA3, "\u{13d3}"), (0xABA4, "\u{13d4}"),
    (0xABA5, "\u{13d5}"), (0xABA6, "\u{13d6}"), (0xABA7, "\u{13d7}"),
    (0xABA8, "\u{13d8}"), (0xABA9, "\u{13d9}"), (0xABAA, "\u{13da}"),
    (0xABAB, "\u{13db}"), (0xABAC, "\u{13dc}"), (0xABAD, "\u{13dd}"),
    (0xABAE, "\u{13de}"), (0xABAF, "\u{13df}"), (0xABB0, "\u{13e0}"),
    (0xABB1, "\u{13e1}"), (0xABB2, "\u{13e2}"), (0xABB3, "\u{13e3}"),
    (0xABB4, "\u{13e4}"), (0xABB5, "\u{13e5}"), (0xABB6, "\u{13e6}"),
    (0xABB7, "\u{13e7}"), (0xABB8, "\u{13e8}"), (0xABB9, "\u{13e9}"),
    (0xABBA, "\u{13ea}"), (0xABBB, "\u{13eb}"), (0xABBC, "\u{13ec}"),
    (0xABBD, "\u{13ed}"), (0xABBE, "\u{13ee}"), (0xABBF, "\u{13ef}"),
    (0xFB00, "\u{66}\u{66}"), (0xFB01, "\u{66}\u{69}"), (0xFB02, "\u{66}\u{6c}"),
    (0xFB03, "\u{66}\u{66}\u{69}"), (0xFB04, "\u{66}\u{66}\u{6c}"), (0xFB05, "\u{73}\u{74}"),
    (0xFB06, "\u{73}\u{74}"), (0xFB13, "\u{574}\u{576}"), (0xFB14, "\u{574}\u{565}"),
    (0xFB15, "\u{574}\u{56b}"), (0xFB16, "\u{57e}\u{576}"), (0xFB17, "\u{574}\u{56d}"),
];

#[rustfmt::skip]
const TITLE: &[(u32, &str)] = &[
    (0xDF, "\u{53}\u{73}"), (0x1C4, "\u{1c5}"), (0x1C5, "\u{1c5}"),
    (0x1C6, "\u{1c5}"), (0x1C7, "\u{1c8}"), (0x1C8, "\u{1c8}"),
    (0x1C9, "\u{1c8}"), (0x1CA, "\u{1cb}"), (0x1CB, "\u{1cb}"),
    (0x1CC, "\u{1cb}"), (0x1F1, "\u{1f2}"), (0x1F2, "\u{1f2}"),
    (0x1F3, "\u{1f2}"), (0x587, "\u{535}\u{582}"), (0x10D0, "\u{10d0}"),
    (0x10D1, "\u{10d1}"), (0x10D2, "\u{10d2}"), (0x10D3, "\u{10d3}"),
    (0x10D4, "\u{10d4}"), (0x10D5, "\u{10d5}"), (0x10D6, "\u{10d6}"),
    (0x10D7, "\u{10d7}"), (0x10D8, "\u{10d8}"), (0x10D9, "\u{10d9}"),
    (0x10DA, "\u{10da}"), (0x10DB, "\u{10db}"), (0x10DC, "\u{10dc}"),
    (0x10DD, "\u{10dd}"), (0x10DE, "\u{10de}"), (0x10DF, "\u{10df}"),
    (0x10E0, "\u{10e0}"), (0x10E1, "\u{10e1}"), (0x10E2, "\u{10e2}"),
    (0x10E3, "\u{10e3}"), (0x10E4, "\u{10e4}"), (0x10E5, "\u{10e5}"),
    (0x10E6, "\u{10e6}"), (0x10E7, "\u{10e7}"), (0x10E8, "\u{10e8}"),
    (0x10E9, "\u{10e9}"), (0x10EA, "\u{10ea}"), (0x10EB, "\u{10eb}"),
    (0x10EC, "\u{10ec}"), (0x10ED, "\u{10ed}"), (0x10EE, "\u{10ee}"),
    (0x10EF, "\u{10ef}"), (0x10F0, "\u{10f0}"), (0x10F1, "\u{10f1}"),
    (0x10F2, "\u{10f2}"), (0x10F3, "\u{10f3}"), (0x10F4, "\u{10f4}"),
    (0x10F5, "\u{10f5}"), (0x10F6, "\u{10f6}"), (0x10F7, "\u{10f7}"),
    (0x10F8, "\u{10f8}"), (0x10F9, "\u{10f9}"), (0x10FA, "\u{10fa}"),
    (0x10FD, "\u{10fd}"), (0x10FE, "\u{10fe}"), (0x10FF, "\u{10ff}"),
    (0x1F80, "\u{1f88}"), (0x1F81, "\u{1f89}"), (0x1F82, "\u{1f8a}"),
    (0x1F83, "\u{1f8b}"), (0x1F84, "\u{1f8c}"), (0x1F85, "\u{1f8d}"),
    (0x1F86, "\u{1f8e}"), (0x1F87, "\u{1f8f}"), (0x1F88, "\u{1f88}"),
    (0x1F89, "\u{1f89}"), (0x1F8A, "\u{1f8a}"), (0x1F8B, "\u{1f8b}"),
    (0x1F8C, "\u{1f8c}"), (0x1F8D, "\u{1f8d}"), (0x1F8E, "\u{1f8e}"),
    (0x1F8F, "\u{1f8f}"), (0x1F90, "\u{1f98}"), (0x1F91, "\u{1f99}"),
    (0x1F92, "\u{1f9a}"), (0x1F93, "\u{1f9b}"), (0x1F94, "\u{1f9c}"),
    (0x1F95, "\u{1f9d}"), (0x1F96, "\u{1f9e}"), (0x1F97, "\u{1f9f}"),
    (0x1F98, "\u{1f98}"), (0x1F99, "\u{1f99}"), (0x1F9A, "\u{1f9a}"),
    (0x1F9B, "\u{1f9b}"), (0x1F9C, "\u{1f9c}"), (0x1F9D, "\u{1f9d}"),
    (0x1F9E, "\u{1f9e}"), (0x1F9F, "\u{1f9f}"), (0x1FA0, "\u{1fa8}"),
    (0x1FA1, "\u{1fa9}"), (0x1FA2, "\u{1faa}"), (0x1FA3, "\u{1fab}"),
    (0x1FA4, "\u{1fac}"), (0x1FA5, "\u{1fad}"), (0x1FA6, "\u{1fae}"),
    (0x1FA7, "\u{1faf}"), (0x1FA8, "\u{1fa8}"), (0x1FA9, "\u{1fa9}"),
    (0x1FAA, "\u{1faa}"), (0x1FAB, "\u{1fab}"), (0x1FAC, "\u{1fac}"),
    (0x1FAD, "\u{1fad}"), (0x1FAE, "\u{1fae}"), (0x1FAF, "\u{1faf}"),
    (0x1FB2, "\u{1fba}\u{345}"), (0x1FB3, "\u{1fbc}"), (0x1FB4, "\u{386}\u{345}"),
    (0x1FB7, "\u{391}\u{342}\u{345}"), (0x1FBC, "\u{1fbc}"), (0x1FC2, "\u{1fca}\u{345}"),
    (0x1FC3, "\u{1fcc}"), (0x1FC4, "\u{389}\u{345}"), (0x1FC7, "\u{397}\u{342}\u{345}"),
    (0x1FCC, "\u{1fcc}"), (0x1FF2, "\u{1ffa}\u{345}"), (0x1FF3, "\u{1ffc}"),
    (0x1FF4, "\u{38f}\u{345}"), (0x1FF7, "\u{3a9}\u{342}\u{345}"), (0x1FFC, "\u{1ffc}"),
    (0xFB00, "\u{46}\u{66}"), (0xFB01, "\u{46}\u{69}"), (0xFB02, "\u{46}\u{6c}"),
    (0xFB03, "\u{46}\u{66}\u{69}"), (0xFB04, "\u{46}\u{66}\u{6c}"), (0xFB05, "\u{53}\u{74}"),
    (0xFB06, "\u{53}\u{74}"), (0xFB13, "\u{544}\u{576}"), (0xFB14, "\u{544}\u{565}"),
    (0xFB15, "\u{544}\u{56b}"), (0xFB16, "\u{54e}\u{576}"), (0xFB17, "\u{544}\u{56d}"),
];

#[rustfmt::skip]
const TITLECASE_LETTERS: &[u32] = &[
    0x1C5, 0x1C8, 0x1CB, 0x1F2, 0x1F88, 0x1F89, 0x1F8A, 0x1F8B, 0x1F8C, 0x1F8D, 0x1F8E, 0x1F8F, 0x1F98, 0x1F99, 0x1F9A, 0x1F9B, 0x1F9C, 0x1F9D, 0x1F9E, 0x1F9F, 0x1FA8, 0x1FA9, 0x1FAA, 0x1FAB, 0x1FAC, 0x1FAD, 0x1FAE, 0x1FAF, 0x1FBC, 0x1FCC, 0x1FFC,
];
