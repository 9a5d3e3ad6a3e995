//! Directory names for completion, read live from the database.
//!
//! Completion runs while the user waits at the prompt, so a listing gets a
//! short deadline; one that misses it finishes in the background and fills
//! the cache for the next Tab. Listings are cached for a few seconds, so
//! repeated Tabs cost nothing and names created meanwhile still appear.
//! The listing in the background is bounded by `--timeout`, as every
//! transaction of the shell is.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use fql::directory::DirectoryLayer;
use fql::kv::{Database, DatabaseExt, RetryOptions};

/// How long the prompt waits for a listing.
const DEADLINE: Duration = Duration::from_millis(300);
/// How long a listing is trusted.
const FRESH: Duration = Duration::from_secs(5);

type Cache = HashMap<Vec<String>, (Instant, Vec<String>)>;

pub struct Lister {
    db: Arc<dyn Database>,
    /// The bounds of the shell's transactions.
    retry: RetryOptions,
    cache: Arc<Mutex<Cache>>,
}

impl Lister {
    pub fn new(db: Arc<dyn Database>, retry: RetryOptions) -> Lister {
        Lister {
            db,
            retry,
            cache: Arc::default(),
        }
    }

    /// The names of `path`'s subdirectories; empty when it does not exist
    /// or the database is slow to say.
    pub fn children(&self, path: &[String]) -> Vec<String> {
        let stale = {
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            match cache.get(path) {
                Some((at, names)) if at.elapsed() < FRESH => return names.clone(),
                Some((_, names)) => names.clone(),
                None => Vec::new(),
            }
        };
        let (send, receive) = mpsc::channel();
        let db = self.db.clone();
        let cache = self.cache.clone();
        let path = path.to_vec();
        let retry = self.retry;
        std::thread::spawn(move || {
            let names = list(&*db, retry, &path).unwrap_or_default();
            cache
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(path, (Instant::now(), names.clone()));
            let _ = send.send(names);
        });
        receive.recv_timeout(DEADLINE).unwrap_or(stale)
    }
}

/// The names of `path`'s subdirectories, in one transaction that `retry`
/// bounds.
fn list(
    db: &dyn Database,
    retry: RetryOptions,
    path: &[String],
) -> Result<Vec<String>, fql::directory::Error> {
    let layer = DirectoryLayer::new();
    let (names, _) = db.run_with(retry, |tx, _| layer.list(tx, path))?;
    Ok(names)
}

#[cfg(test)]
#[path = "../../../../tests/support/hooked.rs"]
mod hooked;

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use fql::kv::embedded::Embedded;
    use fql::kv::{Database, RetryOptions};

    use super::hooked;

    /// A database that keeps answering with a retryable error: the
    /// listing gives up at the shell's deadline (`--timeout`), not at the
    /// default one ten seconds on.
    #[test]
    fn a_listing_gives_up_at_the_shells_deadline() {
        let db = hooked::hooked(
            Arc::new(Embedded::memory()) as Arc<dyn Database>,
            Arc::new(|_, _: &[u8]| Err(hooked::process_behind())),
        );
        let retry = RetryOptions::default().with_timeout(Duration::from_millis(300));
        let began = Instant::now();
        let listed = super::list(&*db, retry, &["a".to_string()]);
        let took = began.elapsed();
        assert!(
            matches!(&listed, Err(e) if fql::kv::AsKvError::as_kv(e) == Some(&fql::kv::Error::TransactionTimedOut)),
            "{listed:?}"
        );
        // The loop gives up no sooner than its deadline, so the default
        // one cannot have passed.
        assert!(took < fql::kv::DEFAULT_TIMEOUT, "gave up after {took:?}");
    }
}
