//! The engine for async callers: a script in, a stream of typed results
//! out, with the database work on tokio's blocking threads.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use std::sync::Arc;
//! use fql::exec::{Engine, Output};
//! use fql::kv::embedded::Embedded;
//!
//! let engine = Arc::new(Engine::new(Arc::new(Embedded::memory())));
//! let params = [("id".to_string(), fql::plan::parse_param("42").unwrap())].into();
//! let mut rows = engine.query("/users(:id)=\"ann\"\n@commit\n/users(<int>)", params);
//! while let Some(row) = rows.next().await {
//!     let Output::KeyValue(kv) = row.unwrap() else { unreachable!() };
//!     assert_eq!(kv.to_string(), r#"/users(42)="ann""#);
//! }
//! # }
//! ```

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_core::Stream;

use tokio::sync::mpsc;

use super::{Engine, Error, Output, Sink};

/// Why a script did not run, or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// It does not parse or fails a static check; nothing ran.
    #[error("the script is not valid: {}", .0.first().map(ToString::to_string).unwrap_or_default())]
    Invalid(Vec<crate::check::Error>),
    /// It cannot be planned (a missing parameter, ...); nothing ran.
    #[error("the script cannot run: {}", .0.first().map(ToString::to_string).unwrap_or_default())]
    Plan(Vec<crate::plan::Error>),
    /// It stopped while running; transactions before the failed one are
    /// committed.
    #[error(transparent)]
    Run(#[from] Error),
}

/// Results as they come, read with [`Results::next`], or as a
/// [`Stream`] by any code that takes one (a combinator library's
/// `StreamExt`, a web framework's streaming body).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use std::pin::Pin;
/// use std::sync::Arc;
/// use futures_core::Stream;
/// use fql::exec::{Engine, Output, QueryError};
/// use fql::kv::embedded::Embedded;
///
/// /// The results' text, from any stream of them.
/// async fn texts(
///     mut rows: impl Stream<Item = Result<Output, QueryError>> + Unpin,
/// ) -> Result<Vec<String>, QueryError> {
///     let mut texts = Vec::new();
///     while let Some(row) = std::future::poll_fn(|cx| Pin::new(&mut rows).poll_next(cx)).await {
///         texts.push(row?.to_string());
///     }
///     Ok(texts)
/// }
///
/// let engine = Arc::new(Engine::new(Arc::new(Embedded::memory())));
/// let rows = engine.query("/n(1)=\"a\"\n/n(2)=\"b\"\n@commit\n/n(<int>)", Default::default());
/// assert_eq!(texts(rows).await.unwrap(), ["/n(1)=\"a\"", "/n(2)=\"b\""]);
///
/// // An error ends the stream.
/// let rows = engine.query("/n(:missing)", Default::default());
/// assert!(matches!(texts(rows).await, Err(QueryError::Plan(_))));
/// # }
/// ```
pub struct Results {
    rx: mpsc::Receiver<Result<Output, QueryError>>,
}

/// How many results may wait for a slow reader before the engine waits.
const BUFFER: usize = 1024;

impl Results {
    /// The next result, `None` at the end. An error ends the stream.
    pub async fn next(&mut self) -> Option<Result<Output, QueryError>> {
        self.rx.recv().await
    }
}

/// The same results as [`Results::next`], for code written against the
/// trait.
impl Stream for Results {
    type Item = Result<Output, QueryError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx)
    }

    /// At least the results already waiting; the rest are not known until
    /// the script has run.
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.rx.len(), None)
    }
}

impl Engine {
    /// Parses, checks, plans and runs `script` with `params` on a blocking
    /// thread of the current tokio runtime. Dropping the [`Results`] stops
    /// the run at its next result (an open transaction is not committed).
    pub fn query(
        self: &Arc<Self>,
        script: impl Into<String>,
        params: crate::plan::Params,
    ) -> Results {
        let (tx, rx) = mpsc::channel(BUFFER);
        let engine = self.clone();
        let script = script.into();
        tokio::task::spawn_blocking(move || {
            let outcome = engine.run_text(&script, &params, &mut |row: Output| {
                // The reader is gone: stop.
                tx.blocking_send(Ok(row))
                    .map_err(|_| Error::Kv(crate::kv::Error::TransactionCancelled))
            });
            if let Err(e) = outcome {
                let _ = tx.blocking_send(Err(e));
            }
        });
        Results { rx }
    }

    /// Parses, checks, plans and runs `script`, handing results to `sink`.
    pub fn run_text(
        &self,
        script: &str,
        params: &crate::plan::Params,
        sink: &mut dyn Sink,
    ) -> Result<(), QueryError> {
        let script = crate::check::load(script).map_err(QueryError::Invalid)?;
        let plan = crate::plan::plan_in(&script, params, &self.root).map_err(QueryError::Plan)?;
        self.run(&plan, sink)?;
        Ok(())
    }
}
