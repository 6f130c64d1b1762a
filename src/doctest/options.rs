//! Doctest option flags (`# doctest: +ELLIPSIS`), named as CPython names them.

/// One option flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    /// `True`/`False` output does not match expected `1`/`0`.
    DontAcceptTrueFor1 = 1,
    /// `<BLANKLINE>` is not special.
    DontAcceptBlankline = 2,
    /// Runs of whitespace compare equal.
    NormalizeWhitespace = 4,
    /// `...` in the expected output matches any text.
    Ellipsis = 8,
    /// The example is not run.
    Skip = 16,
    /// An expected exception matches by its class name only.
    IgnoreExceptionDetail = 32,
    /// Failures are always reported as a diff (ours always are).
    ReportUdiff = 64,
    /// As `REPORT_UDIFF` (ours are always unified diffs).
    ReportCdiff = 128,
    /// As `REPORT_UDIFF` (ours are always unified diffs).
    ReportNdiff = 256,
    /// Only the first failure of each docstring or file is shown.
    ReportOnlyFirstFailure = 512,
    /// The rest of a docstring or file is not run after its first failure.
    FailFast = 1024,
}

/// Every flag with its name.
pub const FLAG_NAMES: [(&str, Flag); 11] = [
    ("DONT_ACCEPT_TRUE_FOR_1", Flag::DontAcceptTrueFor1),
    ("DONT_ACCEPT_BLANKLINE", Flag::DontAcceptBlankline),
    ("NORMALIZE_WHITESPACE", Flag::NormalizeWhitespace),
    ("ELLIPSIS", Flag::Ellipsis),
    ("SKIP", Flag::Skip),
    ("IGNORE_EXCEPTION_DETAIL", Flag::IgnoreExceptionDetail),
    ("REPORT_UDIFF", Flag::ReportUdiff),
    ("REPORT_CDIFF", Flag::ReportCdiff),
    ("REPORT_NDIFF", Flag::ReportNdiff),
    ("REPORT_ONLY_FIRST_FAILURE", Flag::ReportOnlyFirstFailure),
    ("FAIL_FAST", Flag::FailFast),
];

/// The flag called `name`, if any.
pub fn flag_by_name(name: &str) -> Option<Flag> {
    FLAG_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, flag)| flag)
}

/// A set of flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags(u32);

impl Flags {
    /// No flags.
    pub fn empty() -> Flags {
        Flags(0)
    }

    /// Whether `flag` is in the set.
    pub fn contains(self, flag: Flag) -> bool {
        self.0 & flag as u32 != 0
    }

    /// Adds `flag`.
    pub fn insert(&mut self, flag: Flag) {
        self.0 |= flag as u32;
    }

    /// Removes `flag`.
    pub fn remove(&mut self, flag: Flag) {
        self.0 &= !(flag as u32);
    }

    /// These flags with `set` added and `unset` removed.
    pub fn with(self, set: Flags, unset: Flags) -> Flags {
        Flags((self.0 | set.0) & !unset.0)
    }
}
