//! Breaking a mutex, for operators: a fenced force-release
//! (`mutex/break`), one transaction.

use crate::exec::{Engine, Output, Part};
use crate::syntax::ast::ElemKind;

use super::{Error, State, Token, checks, settings::Expect};
use crate::lock::runner::{self, Outcome};

/// What a break did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    /// Who held the mutex; `None` if it was free.
    pub previous: Option<String>,
    /// The new fencing token: the previous holder's no longer fences.
    pub token: Token,
    /// The waiter it was handed to; `None` leaves it free.
    pub owner: Option<String>,
}

/// Breaks the mutex in `dir`: clears its owner, whoever that is, and
/// hands it to the longest-waiting client (or leaves it free) under a new
/// token, in one transaction. `None` when the directory does not exist:
/// there is no mutex to break, and none is made.
pub fn break_mutex(engine: &Engine, dir: &[String]) -> Result<Option<Broken>, Error> {
    if !State::read(engine, dir)?.exists {
        return Ok(None);
    }
    // Run once: with no guard to refuse a second break, a commit whose
    // outcome the database cannot tell is reported, not run again (which
    // would break the mutex of the waiter it was handed to). The script
    // has no guard, so it is never refused.
    let script = "mutex/break";
    let check = checks(dir, script, Expect::Nothing);
    let (rows, committed) = match runner::run_once(engine, script, dir, &[], check)? {
        Outcome::Ran(rows, committed) => (rows, committed),
        Outcome::Refused | Outcome::Settled => Default::default(),
    };
    let mut broken = Broken {
        previous: None,
        token: Token([0; 12]),
        owner: None,
    };
    if let Some(stamp) = committed.versionstamp {
        broken.token.0[..10].copy_from_slice(&stamp);
    }
    for row in rows {
        let Output::KeyValue(row) = row else { continue };
        let data: Vec<&ElemKind<'static>> = row.key.iter().filter_map(Part::data).collect();
        let value = row.value.as_ref().and_then(|(v, _)| v.data());
        match (data.as_slice(), value) {
            ([ElemKind::Str(k), ElemKind::Str(name)], _) if k == "owner" && !name.is_empty() => {
                broken.previous = Some(name.to_string())
            }
            ([ElemKind::Str(k), _], Some(ElemKind::Str(name))) if k == "queue" => {
                broken.owner = Some(name.to_string())
            }
            _ => {}
        }
    }
    Ok(Some(broken))
}
