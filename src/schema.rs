//! Schemas: FQL scripts whose read-shaped statements say which key-values
//! may be stored. [`validate`] checks stored data against one; [`infer`]
//! writes one from what is stored.

mod infer;
mod pattern;
mod validate;

pub use infer::{Shape, infer, infer_prefix};
pub use pattern::Pattern;
pub use validate::{Summary, Violation, patterns, validate, validate_in};

/// Why a schema could not be checked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The schema does not parse or fails a static check.
    #[error("the schema is not valid: {}", .0.first().map(ToString::to_string).unwrap_or_default())]
    Invalid(Vec<crate::check::Error>),
    /// It cannot be planned: a parameter is missing.
    #[error("the schema cannot be used: {}", .0.first().map(ToString::to_string).unwrap_or_default())]
    Plan(Vec<crate::plan::Error>),
    /// No statement reads key-values, so nothing is allowed and nothing
    /// is checked: an empty file, comments only, or writes and directory
    /// listings only.
    #[error(
        "the schema has no read patterns, so it would check nothing: write a read such as `/app/users(<int>)=<str>` for each shape of key-value a directory may hold"
    )]
    NoPatterns,
    /// A pattern's encoding options cannot hold.
    #[error(transparent)]
    Codec(#[from] crate::codec::Error),
    /// The database failed.
    #[error(transparent)]
    Run(#[from] crate::exec::Error),
}

impl From<crate::kv::Error> for Error {
    fn from(e: crate::kv::Error) -> Error {
        Error::Run(crate::exec::Error::Kv(e))
    }
}
