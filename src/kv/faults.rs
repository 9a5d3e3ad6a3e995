//! Fault injection: any [`Database`], with reads and commits that fail
//! with FoundationDB's errors at chosen rates, so that retry paths run
//! on a database that never fails by itself (the embedded store).
//!
//! A [`FaultPlan`] says which errors, where (reads or commits) and how
//! often; [`Faulty`] wraps a database with it. The plan comes from code
//! ([`FaultPlan::new`], [`FaultPlan::with`]) or from the `FQL_FAULTS`
//! environment variable ([`FaultPlan::from_env`]), which `fql` reads for
//! the embedded database:
//!
//! ```text
//! FQL_FAULTS=1020:0.1,1021-applied:0.05,1007@read:0.02;seed=7
//! ```
//!
//! Items are separated by `,` or `;`. A fault is `FAULT[@SITE]:RATE`:
//!
//! - `FAULT` is an FDB error code or its name: 1007
//!   `transaction_too_old`, 1009 `future_version`, 1020 `not_committed`,
//!   1021 `commit_unknown_result`, 1031 `transaction_timed_out`, 1037
//!   `process_behind`, 1078 `grv_proxy_memory_limit_exceeded`, 1213
//!   `tag_throttled`, 1235 `transaction_throttled_hot_shard`, 1242
//!   `transaction_rejected_range_locked`. `1021-applied` applies the
//!   commit and then reports 1021; `1021-unapplied` reports it without
//!   applying; a bare 1021 is each half the time. `1020-real` makes a
//!   real conflict: another transaction writes the last key the
//!   transaction read (its value unchanged) just before the commit, which
//!   then fails by itself, with the conflicting range the backend reports.
//! - `SITE` is `read` (a get, a range read, the read version) or `commit`
//!   (the commit of a transaction that wrote). Without it a fault happens
//!   where FDB gives it: 1007 and 1031 at both, 1009, 1037, 1078 and 1213
//!   at reads, the rest at commit.
//! - `RATE` is the probability, from 0 to 1, that an operation at the
//!   site fails with the fault. The rates at one site add up to at most 1.
//!
//! Settings: `seed=N` (a whole number, 0 by default) seeds the draws, so a
//! run repeats its faults: each transaction draws from the seed and its
//! number in the order the database created them, each operation from
//! the transaction's (so only a run that makes the same operations:
//! allocating a directory's prefix is random). `ids=off` makes the
//! database record no idempotency ids, as a backend that cannot tell
//! whether a commit reported as 1021 landed (FoundationDB, which fql runs
//! without them): the retry loop then leaves the check to its caller.
//!
//! A failed read or a commit that fails "not applied" leaves the wrapped
//! transaction untouched, so nothing is written; a transaction that wrote
//! nothing commits without faults, as FDB's read-only commits never reach
//! the cluster.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use super::{
    CommitStatus, Committed, ConflictRangeType, Database, Error, IdempotencyId, MutationType,
    RangeOption, RangeResult, Result, Transaction, TransactionOption, Watch, codes,
};

/// The environment variable that holds a fault plan.
pub const ENV: &str = "FQL_FAULTS";

/// What an operation does instead of succeeding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fault {
    /// Fails with this FDB error code; a commit applies nothing.
    Error(i32),
    /// The commit is applied, then reported as `commit_unknown_result`.
    UnknownApplied,
    /// The commit is not applied, and reported as `commit_unknown_result`.
    UnknownNotApplied,
    /// A real conflict: just before the commit, another transaction
    /// writes the last key this one read back as it was, so the commit
    /// fails with `not_committed` by itself, and the backend can tell
    /// which range conflicted.
    Conflict,
}

/// Where a fault happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Site {
    /// A get, a range read or the read version.
    Read,
    /// The commit of a transaction that wrote.
    Commit,
}

impl Site {
    fn name(self) -> &'static str {
        match self {
            Site::Read => "read",
            Site::Commit => "commit",
        }
    }
}

/// One fault of a plan: `fault` at `site` with probability `rate`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rule {
    /// What happens.
    pub fault: Fault,
    /// Where.
    pub site: Site,
    /// How often, from 0 to 1.
    pub rate: f64,
}

const BOTH: &[Site] = &[Site::Read, Site::Commit];
const READ: &[Site] = &[Site::Read];
const COMMIT: &[Site] = &[Site::Commit];

/// The codes fql injects: where each may happen, and where it happens
/// when the plan does not say.
const INJECTABLE: &[(i32, &[Site], &[Site])] = &[
    (1007, BOTH, BOTH),
    (1009, READ, READ),
    (1020, COMMIT, COMMIT),
    (1021, COMMIT, COMMIT),
    (1031, BOTH, BOTH),
    (1037, READ, READ),
    (1078, BOTH, READ),
    (1213, BOTH, READ),
    (1235, COMMIT, COMMIT),
    (1242, COMMIT, COMMIT),
];

/// What is wrong with a fault plan.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FaultsError {
    /// `FQL_FAULTS` is not UTF-8.
    #[error("FQL_FAULTS is not valid UTF-8")]
    NotUnicode,
    /// The plan names no fault.
    #[error("the plan names no fault: write FAULT:RATE, such as 1020:0.1")]
    Empty,
    /// An item cannot be read.
    #[error("{item:?}: {why}")]
    Item {
        /// The item, as written.
        item: String,
        /// What is wrong with it.
        why: String,
    },
    /// The rates at one site add up to more than 1.
    #[error("the faults at {site} add up to a rate of {total}, but may add up to 1 at most")]
    TooLikely {
        /// `read` or `commit`.
        site: &'static str,
        /// Their sum.
        total: f64,
    },
    /// An error in `FQL_FAULTS`.
    #[error("{ENV}: {0}")]
    Env(Box<FaultsError>),
}

fn item_error(item: &str, why: impl Into<String>) -> FaultsError {
    FaultsError::Item {
        item: item.to_string(),
        why: why.into(),
    }
}

/// Which faults, where and how often, and the seed of the draws.
#[derive(Clone, Debug, PartialEq)]
pub struct FaultPlan {
    rules: Vec<Rule>,
    seed: u64,
    ids: bool,
}

impl FaultPlan {
    /// A plan with no faults yet, drawing from `seed`.
    pub fn new(seed: u64) -> FaultPlan {
        FaultPlan {
            rules: Vec::new(),
            seed,
            ids: true,
        }
    }

    /// This plan with `fault` at `site` with probability `rate`. Fails
    /// for a code fql does not inject, a site where the fault cannot
    /// happen, a rate outside 0 to 1, or rates at the site that then add
    /// up to more than 1.
    pub fn with(mut self, fault: Fault, site: Site, rate: f64) -> Result<FaultPlan, FaultsError> {
        let item = Rule { fault, site, rate }.to_string();
        let code = match fault {
            Fault::Error(1021) => {
                return Err(item_error(
                    &item,
                    "commit_unknown_result (1021) is Fault::UnknownApplied or Fault::UnknownNotApplied",
                ));
            }
            Fault::Error(code) => code,
            Fault::UnknownApplied | Fault::UnknownNotApplied => 1021,
            Fault::Conflict => 1020,
        };
        let (allowed, _) = injectable(code).ok_or_else(|| item_error(&item, not_injected(code)))?;
        if !allowed.contains(&site) {
            return Err(item_error(&item, wrong_site(code, allowed)));
        }
        if !(0.0..=1.0).contains(&rate) {
            return Err(item_error(
                &item,
                format!("the rate {rate} is not a probability from 0 to 1"),
            ));
        }
        self.rules.push(Rule { fault, site, rate });
        let total: f64 = self
            .rules
            .iter()
            .filter(|r| r.site == site)
            .map(|r| r.rate)
            .sum();
        if total > 1.0 + 1e-9 {
            return Err(FaultsError::TooLikely {
                site: site.name(),
                total,
            });
        }
        Ok(self)
    }

    /// This plan with no idempotency ids recorded (`ids=off`).
    pub fn without_ids(mut self) -> FaultPlan {
        self.ids = false;
        self
    }

    /// The plan in `FQL_FAULTS`; `None` when it is unset or empty.
    pub fn from_env() -> Result<Option<FaultPlan>, FaultsError> {
        let Some(value) = std::env::var_os(ENV) else {
            return Ok(None);
        };
        let value = value.into_string().map_err(|_| FaultsError::NotUnicode)?;
        if value.trim().is_empty() {
            return Ok(None);
        }
        FaultPlan::parse(&value)
            .map(Some)
            .map_err(|e| FaultsError::Env(Box::new(e)))
    }

    /// Reads a plan written as `FQL_FAULTS` takes it (see the module).
    pub fn parse(text: &str) -> Result<FaultPlan, FaultsError> {
        let mut plan = FaultPlan::new(0);
        let mut faults = Vec::new();
        for item in text.split([',', ';']).map(str::trim) {
            if item.is_empty() {
                continue;
            }
            match item.split_once('=') {
                Some((name, value)) => plan.setting(item, name.trim(), value.trim())?,
                None => faults.push(item),
            }
        }
        if faults.is_empty() {
            return Err(FaultsError::Empty);
        }
        for item in faults {
            for (fault, site, rate) in parse_fault(item)? {
                plan = plan.with(fault, site, rate)?;
            }
        }
        Ok(plan)
    }

    fn setting(&mut self, item: &str, name: &str, value: &str) -> Result<(), FaultsError> {
        match name {
            "seed" => {
                self.seed = value.parse().map_err(|_| {
                    item_error(
                        item,
                        format!("the seed is a whole number from 0 to {}", u64::MAX),
                    )
                })?
            }
            "ids" => {
                self.ids = match value {
                    "on" => true,
                    "off" => false,
                    _ => return Err(item_error(item, "ids is on or off")),
                }
            }
            _ => {
                return Err(item_error(
                    item,
                    format!("no setting {name:?}: the settings are seed=N and ids=off"),
                ));
            }
        }
        Ok(())
    }

    /// The faults.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The seed of the draws.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether the wrapped database records idempotency ids.
    pub fn records_ids(&self) -> bool {
        self.ids
    }

    /// The fault, if any, of draw `u` (uniform in `[0, 1)`) at `site`.
    fn pick(&self, site: Site, u: f64) -> Option<Fault> {
        let mut sum = 0.0;
        self.rules.iter().filter(|r| r.site == site).find_map(|r| {
            sum += r.rate;
            (u < sum).then_some(r.fault)
        })
    }
}

/// The plan as `FQL_FAULTS` takes it, every site spelled out:
/// `1020@commit:0.1;seed=7`.
impl std::fmt::Display for FaultPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (n, rule) in self.rules.iter().enumerate() {
            if n > 0 {
                f.write_str(",")?;
            }
            write!(f, "{rule}")?;
        }
        write!(f, ";seed={}", self.seed)?;
        if !self.ids {
            f.write_str(";ids=off")?;
        }
        Ok(())
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.fault {
            Fault::Error(code) => write!(f, "{code}")?,
            Fault::UnknownApplied => f.write_str("1021-applied")?,
            Fault::UnknownNotApplied => f.write_str("1021-unapplied")?,
            Fault::Conflict => f.write_str("1020-real")?,
        }
        write!(f, "@{}:{}", self.site.name(), self.rate)
    }
}

fn injectable(code: i32) -> Option<(&'static [Site], &'static [Site])> {
    INJECTABLE
        .iter()
        .find(|(c, ..)| *c == code)
        .map(|(_, allowed, default)| (*allowed, *default))
}

/// `not_committed (1020)`.
fn named(code: i32) -> String {
    format!(
        "{} ({code})",
        codes::error_name(code).unwrap_or("unknown_error")
    )
}

fn not_injected(code: i32) -> String {
    format!("{} is not a fault fql injects; {}", named(code), injects())
}

/// What fql injects, in words.
fn injects() -> String {
    let list: Vec<String> = INJECTABLE.iter().map(|(c, ..)| c.to_string()).collect();
    format!(
        "it injects {} (and 1021-applied, 1021-unapplied, 1020-real), by code or by name",
        list.join(", ")
    )
}

fn wrong_site(code: i32, allowed: &[Site]) -> String {
    match allowed {
        [Site::Read] => format!("{} happens only at reads (@read)", named(code)),
        _ => format!("{} happens only at commit (@commit)", named(code)),
    }
}

/// `FAULT[@SITE]:RATE` as the rules it stands for.
fn parse_fault(item: &str) -> Result<Vec<(Fault, Site, f64)>, FaultsError> {
    let Some((what, rate)) = item.rsplit_once(':') else {
        return Err(item_error(
            item,
            format!("no rate: write {item}:RATE, with RATE from 0 to 1, such as {item}:0.1"),
        ));
    };
    let rate: f64 = rate
        .trim()
        .parse()
        .ok()
        .filter(|r: &f64| (0.0..=1.0).contains(r))
        .ok_or_else(|| {
            item_error(
                item,
                format!(
                    "{:?} is not a rate: give a probability from 0 to 1, such as 0.05",
                    rate.trim()
                ),
            )
        })?;
    let (fault, site) = match what.split_once('@') {
        Some((fault, site)) => (fault.trim(), Some(site.trim())),
        None => (what.trim(), None),
    };
    let (code, kind) = match fault.rsplit_once('-') {
        Some((code, kind @ ("applied" | "unapplied" | "real"))) => (code, Some(kind)),
        _ => (fault, None),
    };
    let code = fault_code(code).ok_or_else(|| {
        item_error(
            item,
            format!("{code:?} is not a fault fql injects; {}", injects()),
        )
    })?;
    let (allowed, default) =
        injectable(code).ok_or_else(|| item_error(item, not_injected(code)))?;
    let sites = match site {
        None => default.to_vec(),
        Some("read") => vec![Site::Read],
        Some("commit") => vec![Site::Commit],
        Some(other) => {
            return Err(item_error(
                item,
                format!("no site {other:?}: use @read or @commit"),
            ));
        }
    };
    if sites.iter().any(|s| !allowed.contains(s)) {
        return Err(item_error(item, wrong_site(code, allowed)));
    }
    let faults = match (code, kind) {
        (1021, Some("applied")) => vec![(Fault::UnknownApplied, rate)],
        (1021, Some("unapplied")) => vec![(Fault::UnknownNotApplied, rate)],
        (1020, Some("real")) => vec![(Fault::Conflict, rate)],
        (1021, None) => vec![
            (Fault::UnknownApplied, rate / 2.0),
            (Fault::UnknownNotApplied, rate / 2.0),
        ],
        (_, Some(_)) => {
            return Err(item_error(
                item,
                "only commit_unknown_result (1021) has kinds (-applied, -unapplied), and not_committed (1020) one (-real)",
            ));
        }
        (code, None) => vec![(Fault::Error(code), rate)],
    };
    Ok(sites
        .iter()
        .flat_map(|site| faults.iter().map(|(f, r)| (*f, *site, *r)))
        .collect())
}

/// The code of a fault written as a code or as FDB's name.
fn fault_code(text: &str) -> Option<i32> {
    text.parse().ok().or_else(|| {
        INJECTABLE
            .iter()
            .map(|(c, ..)| *c)
            .find(|c| codes::error_name(*c) == Some(text))
    })
}

/// `inner`, with the faults of a plan.
pub struct Faulty<D> {
    inner: Arc<D>,
    plan: Arc<FaultPlan>,
    transactions: AtomicU64,
}

impl<D: Database> Faulty<D> {
    /// `inner`, failing as `plan` says.
    pub fn new(inner: D, plan: FaultPlan) -> Faulty<D> {
        Faulty {
            inner: Arc::new(inner),
            plan: Arc::new(plan),
            transactions: AtomicU64::new(0),
        }
    }

    /// The plan.
    pub fn plan(&self) -> &FaultPlan {
        &self.plan
    }

    /// The database without the faults.
    pub fn inner(&self) -> &D {
        &self.inner
    }
}

impl<D: Database + 'static> Database for Faulty<D> {
    fn create_trx(&self) -> Result<Box<dyn Transaction>> {
        Ok(Box::new(FaultyTx {
            inner: self.inner.create_trx()?,
            db: self.inner.clone(),
            last_read: None,
            plan: self.plan.clone(),
            number: self.transactions.fetch_add(1, Ordering::Relaxed),
            draws: 0,
            wrote: false,
        }))
    }

    fn describe(&self) -> String {
        format!(
            "{}, with injected faults {}",
            self.inner.describe(),
            self.plan
        )
    }

    fn window(&self) -> std::time::Duration {
        self.inner.window()
    }
}

struct FaultyTx {
    inner: Box<dyn Transaction>,
    /// The database, for the other transaction of a real conflict.
    db: Arc<dyn Database>,
    /// The last key read with a conflict, the one a real conflict writes.
    last_read: Option<Vec<u8>>,
    plan: Arc<FaultPlan>,
    /// Which transaction of its database this is, from 0.
    number: u64,
    /// Draws made so far.
    draws: u64,
    /// Whether anything was written since the last reset: only such a
    /// commit reaches FDB's proxies, and can fail there.
    wrote: bool,
}

/// SplitMix64's finalizer: a well-mixed 64-bit value of `z`.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FaultyTx {
    /// The fault of the next operation at `site`, if any: a draw from the
    /// seed, this transaction's number and the operation's, so that a
    /// run repeats its faults whatever threads do meanwhile.
    fn draw(&mut self, site: Site) -> Option<Fault> {
        let bits = mix(mix(mix(self.plan.seed) ^ self.number) ^ self.draws);
        self.draws += 1;
        let u = (bits >> 11) as f64 / (1u64 << 53) as f64;
        self.plan.pick(site, u)
    }

    fn read(&mut self) -> Result<()> {
        match self.draw(Site::Read) {
            Some(Fault::Error(code)) => Err(Error::from_code(code)),
            _ => Ok(()),
        }
    }

    /// Keeps `key` as the last read with a conflict; the system and
    /// special keys, which another transaction could not write, are left.
    fn note_read(&mut self, key: &[u8], snapshot: bool) {
        if !snapshot && key < b"\xff".as_slice() {
            self.last_read = Some(key.to_vec());
        }
    }

    /// Another transaction writes the last key read, its value as it is.
    fn conflict(&mut self) -> Result<()> {
        let Some(key) = self.last_read.clone() else {
            return Ok(());
        };
        let mut other = self.db.create_trx()?;
        match other.get(&key, true)? {
            Some(value) => other.set(&key, &value)?,
            None => other.clear(&key)?,
        }
        other.commit().map(drop)
    }

    fn wrote<T>(&mut self, result: Result<T>) -> Result<T> {
        self.wrote |= result.is_ok();
        result
    }
}

impl Transaction for FaultyTx {
    fn read_version(&mut self) -> Result<u64> {
        self.read()?;
        self.inner.read_version()
    }

    fn version_now(&mut self) -> Result<u64> {
        self.read()?;
        self.inner.version_now()
    }

    fn get(&mut self, key: &[u8], snapshot: bool) -> Result<Option<Vec<u8>>> {
        self.read()?;
        let value = self.inner.get(key, snapshot)?;
        self.note_read(key, snapshot);
        Ok(value)
    }

    fn get_range(
        &mut self,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> Result<RangeResult> {
        // FDB's client answers the conflicting keys itself, from the
        // failed commit's reply: no server is asked, so nothing can fail.
        let local = super::CONFLICTING_KEYS <= range.begin.as_slice()
            && range.end.as_slice() <= super::CONFLICTING_KEYS_END;
        if !local {
            self.read()?;
        }
        let batch = self.inner.get_range(range, iteration, snapshot)?;
        let last = batch.kvs.last().map(|kv| kv.key.clone());
        if let Some(key) = last.or_else(|| (range.begin < range.end).then(|| range.begin.clone())) {
            self.note_read(&key, snapshot);
        }
        Ok(batch)
    }

    fn estimated_range_size(&mut self, begin: &[u8], end: &[u8]) -> Result<u64> {
        self.read()?;
        self.inner.estimated_range_size(begin, end)
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let r = self.inner.set(key, value);
        self.wrote(r)
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        let r = self.inner.clear(key);
        self.wrote(r)
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        let r = self.inner.clear_range(begin, end);
        self.wrote(r)
    }

    fn atomic_op(&mut self, key: &[u8], param: &[u8], op: MutationType) -> Result<()> {
        let r = self.inner.atomic_op(key, param, op);
        self.wrote(r)
    }

    fn add_conflict_range(
        &mut self,
        begin: &[u8],
        end: &[u8],
        ty: ConflictRangeType,
    ) -> Result<()> {
        let r = self.inner.add_conflict_range(begin, end, ty);
        match ty {
            ConflictRangeType::Write => self.wrote(r),
            ConflictRangeType::Read => r,
        }
    }

    fn set_option(&mut self, option: TransactionOption) -> Result<()> {
        match option {
            TransactionOption::IdempotencyId(_) if !self.plan.ids => Ok(()),
            option => self.inner.set_option(option),
        }
    }

    fn watch(&mut self, key: &[u8]) -> Result<Watch> {
        self.inner.watch(key)
    }

    fn commit(&mut self) -> Result<Committed> {
        if !self.wrote {
            return self.inner.commit();
        }
        match self.draw(Site::Commit) {
            None => self.inner.commit(),
            Some(Fault::Error(code)) => Err(Error::from_code(code)),
            Some(Fault::UnknownNotApplied) => Err(Error::CommitUnknownResult),
            Some(Fault::UnknownApplied) => {
                self.inner.commit()?;
                Err(Error::CommitUnknownResult)
            }
            Some(Fault::Conflict) => {
                self.conflict()?;
                self.inner.commit()
            }
        }
    }

    fn on_error(&mut self, error: Error) -> Result<()> {
        self.inner.on_error(error)?;
        self.wrote = false;
        self.last_read = None;
        Ok(())
    }

    fn reset(&mut self) {
        self.inner.reset();
        self.wrote = false;
        self.last_read = None;
    }

    fn commit_status(&mut self, id: &IdempotencyId, since: SystemTime) -> Result<CommitStatus> {
        if !self.plan.ids {
            return Ok(CommitStatus::Unknown);
        }
        self.inner.commit_status(id, since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(fault: Fault, site: Site, rate: f64) -> Rule {
        Rule { fault, site, rate }
    }

    fn why(text: &str) -> String {
        match FaultPlan::parse(text) {
            Err(FaultsError::Item { why, .. }) => why,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn a_plan_reads_as_documented() {
        let plan = FaultPlan::parse("1020:0.1,1021-applied:0.05,1007@read:0.02;seed=7").unwrap();
        assert_eq!(plan.seed(), 7);
        assert!(plan.records_ids());
        assert_eq!(
            plan.rules(),
            [
                rule(Fault::Error(1020), Site::Commit, 0.1),
                rule(Fault::UnknownApplied, Site::Commit, 0.05),
                rule(Fault::Error(1007), Site::Read, 0.02),
            ]
        );
        assert_eq!(
            plan.to_string(),
            "1020@commit:0.1,1021-applied@commit:0.05,1007@read:0.02;seed=7"
        );
    }

    /// Without a site a fault happens where FDB gives it; a bare 1021 is
    /// each kind half the time; names stand for codes; spaces and either
    /// separator are fine; the seed is 0 unless set.
    #[test]
    fn defaults_and_spellings() {
        let plan =
            FaultPlan::parse(" 1007 : 0.2 ; 1021:0.5, process_behind:0.1 ; ids=off").unwrap();
        assert_eq!(plan.seed(), 0);
        assert!(!plan.records_ids());
        assert_eq!(
            plan.rules(),
            [
                rule(Fault::Error(1007), Site::Read, 0.2),
                rule(Fault::Error(1007), Site::Commit, 0.2),
                rule(Fault::UnknownApplied, Site::Commit, 0.25),
                rule(Fault::UnknownNotApplied, Site::Commit, 0.25),
                rule(Fault::Error(1037), Site::Read, 0.1),
            ]
        );
        for (text, site) in [
            ("1009:1", Site::Read),
            ("1078:1", Site::Read),
            ("1213:1", Site::Read),
            ("1020:1", Site::Commit),
            ("1235:1", Site::Commit),
            ("transaction_rejected_range_locked:1", Site::Commit),
            ("1078@commit:1", Site::Commit),
            ("commit_unknown_result-unapplied:1", Site::Commit),
        ] {
            let plan = FaultPlan::parse(text).unwrap();
            assert!(plan.rules().iter().all(|r| r.site == site), "{text}");
        }
        // What it prints reads back as the same plan.
        for text in [
            "1031:0.3;seed=18446744073709551615",
            "1021:0.4,1242:0.1;ids=off",
        ] {
            let plan = FaultPlan::parse(text).unwrap();
            assert_eq!(FaultPlan::parse(&plan.to_string()).unwrap(), plan, "{text}");
        }
    }

    /// Every mistake says what is wrong with which item.
    #[test]
    fn mistakes_are_named() {
        assert!(
            why("1025:0.1").contains("transaction_cancelled (1025) is not a fault fql injects")
        );
        assert!(
            why("1025:0.1").contains("1007, 1009, 1020, 1021, 1031, 1037, 1078, 1213, 1235, 1242")
        );
        assert!(why("nonsense:0.1").contains("\"nonsense\" is not a fault fql injects"));
        assert_eq!(
            why("1020@read:0.1"),
            "not_committed (1020) happens only at commit (@commit)"
        );
        assert_eq!(
            why("1021@read:0.1"),
            "commit_unknown_result (1021) happens only at commit (@commit)"
        );
        assert_eq!(
            why("1037@commit:0.1"),
            "process_behind (1037) happens only at reads (@read)"
        );
        assert_eq!(
            why("1020@write:0.1"),
            "no site \"write\": use @read or @commit"
        );
        assert!(why("1020").starts_with("no rate: write 1020:RATE"));
        for rate in ["x", "1.5", "-0.1", "NaN", ""] {
            assert!(
                why(&format!("1020:{rate}")).contains("is not a rate"),
                "{rate}"
            );
        }
        assert!(why("1020-applied:0.1").starts_with("only commit_unknown_result (1021) has kinds"));
        assert!(why("1020:0.1;seed=x").starts_with("the seed is a whole number"));
        assert!(why("1020:0.1;seed=-1").starts_with("the seed is a whole number"));
        assert_eq!(why("1020:0.1;ids=maybe"), "ids is on or off");
        assert!(why("1020:0.1;color=red").starts_with("no setting \"color\""));
        assert_eq!(FaultPlan::parse(""), Err(FaultsError::Empty));
        assert_eq!(FaultPlan::parse("seed=3"), Err(FaultsError::Empty));
        assert!(matches!(
            FaultPlan::parse("1020:0.6,1235:0.5"),
            Err(FaultsError::TooLikely { site: "commit", .. })
        ));
        // Rates at different sites do not add up.
        assert!(FaultPlan::parse("1007@read:0.9,1020:0.9").is_ok());
        // The item is quoted, control characters escaped.
        let e = FaultPlan::parse("10\x1b[2J20:0.1").unwrap_err().to_string();
        assert!(!e.contains('\x1b') && e.contains("\\u{1b}"), "{e}");
    }

    #[test]
    fn plans_from_code_are_checked_alike() {
        let plan = FaultPlan::new(3)
            .with(Fault::Error(1020), Site::Commit, 0.5)
            .and_then(|p| p.with(Fault::UnknownApplied, Site::Commit, 0.5))
            .unwrap();
        assert_eq!(
            plan.to_string(),
            "1020@commit:0.5,1021-applied@commit:0.5;seed=3"
        );
        let bad = [
            FaultPlan::new(0).with(Fault::Error(1021), Site::Commit, 0.1),
            FaultPlan::new(0).with(Fault::Error(1020), Site::Read, 0.1),
            FaultPlan::new(0).with(Fault::Error(2000), Site::Read, 0.1),
            FaultPlan::new(0).with(Fault::Error(1020), Site::Commit, 1.1),
            plan.with(Fault::Error(1235), Site::Commit, 0.1),
        ];
        for b in bad {
            assert!(b.is_err(), "{b:?}");
        }
    }

    /// The same seed makes the same faults; another seed others; each
    /// fault comes about as often as its rate says.
    #[test]
    fn draws_repeat_with_their_seed() {
        let draws = |seed: u64| {
            let plan = FaultPlan::parse(&format!("1020:0.3,1235:0.2;seed={seed}")).unwrap();
            let db = Arc::new(crate::kv::embedded::Embedded::memory());
            let mut tx = FaultyTx {
                inner: db.create_trx().unwrap(),
                db,
                last_read: None,
                plan: Arc::new(plan),
                number: 4,
                draws: 0,
                wrote: false,
            };
            (0..10_000)
                .map(|_| tx.draw(Site::Commit))
                .collect::<Vec<_>>()
        };
        let a = draws(7);
        assert_eq!(a, draws(7));
        assert_ne!(a, draws(8));
        let count = |f: Fault| a.iter().filter(|d| **d == Some(f)).count();
        assert!(
            (2700..3300).contains(&count(Fault::Error(1020))),
            "{}",
            count(Fault::Error(1020))
        );
        assert!(
            (1700..2300).contains(&count(Fault::Error(1235))),
            "{}",
            count(Fault::Error(1235))
        );
        assert!(
            a.iter()
                .all(|d| matches!(d, None | Some(Fault::Error(1020 | 1235))))
        );
    }
}
