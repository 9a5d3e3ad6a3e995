//! Directory names for completion, read live from the database.
//!
//! Completion runs while the user waits at the prompt, so a listing gets a
//! short deadline; one that misses it finishes in the background and fills
//! the cache for the next Tab. Listings are cached for a few seconds, so
//! repeated Tabs cost nothing and names created meanwhile still appear.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use fql::directory::DirectoryLayer;
use fql::kv::{Database, DatabaseExt};

/// How long the prompt waits for a listing.
const DEADLINE: Duration = Duration::from_millis(300);
/// How long a listing is trusted.
const FRESH: Duration = Duration::from_secs(5);

type Cache = HashMap<Vec<String>, (Instant, Vec<String>)>;

pub struct Lister {
    db: Arc<dyn Database>,
    cache: Arc<Mutex<Cache>>,
}

impl Lister {
    pub fn new(db: Arc<dyn Database>) -> Lister {
        Lister {
            db,
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
        std::thread::spawn(move || {
            let layer = DirectoryLayer::new();
            let names = db.run(|tx, _| layer.list(tx, &path)).unwrap_or_default();
            cache
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(path, (Instant::now(), names.clone()));
            let _ = send.send(names);
        });
        receive.recv_timeout(DEADLINE).unwrap_or(stale)
    }
}
