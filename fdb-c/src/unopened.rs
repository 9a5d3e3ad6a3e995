//! A database that could not be opened: its cluster file is missing or
//! names no database of this library, or the database file cannot be
//! opened.
//!
//! FDB's `fdb_create_database` does not fail for these: it returns a
//! database whose every transaction fails its operations with the error
//! (`no_cluster_file_found`, `connection_string_invalid` ...), which
//! clients such as FDB's C API tester rely on. This database makes
//! transactions that do exactly that.

use std::time::SystemTime;

use fql::kv::{
    CommitStatus, Committed, ConflictRangeType, Database, Error, IdempotencyId, MutationType,
    RangeOption, RangeResult, Result, Transaction, TransactionOption, Watch,
};

use crate::errors::Code;

/// The database in place of one that could not be opened, and why.
pub struct Unopened {
    code: Code,
    why: String,
}

impl Unopened {
    pub fn new(code: Code, why: String) -> Unopened {
        Unopened { code, why }
    }

    /// The error every operation fails with.
    pub fn code(&self) -> Code {
        self.code
    }
}

impl Database for Unopened {
    fn create_trx(&self) -> Result<Box<dyn Transaction>> {
        Ok(Box::new(Failing(Error::from_code(self.code))))
    }

    fn describe(&self) -> String {
        format!("not opened: {}", self.why)
    }
}

/// A transaction each of whose operations fails with one error.
struct Failing(Error);

impl Failing {
    fn fail<T>(&self) -> Result<T> {
        Err(self.0.clone())
    }
}

impl Transaction for Failing {
    fn read_version(&mut self) -> Result<u64> {
        self.fail()
    }

    fn version_now(&mut self) -> Result<u64> {
        self.fail()
    }

    /// Taken, as an option is: the reads that would use it fail.
    fn set_read_version(&mut self, _: u64) -> Result<()> {
        Ok(())
    }

    fn get(&mut self, _: &[u8], _: bool) -> Result<Option<Vec<u8>>> {
        self.fail()
    }

    fn get_range(&mut self, _: &RangeOption, _: usize, _: bool) -> Result<RangeResult> {
        self.fail()
    }

    fn estimated_range_size(&mut self, _: &[u8], _: &[u8]) -> Result<u64> {
        self.fail()
    }

    fn set(&mut self, _: &[u8], _: &[u8]) -> Result<()> {
        self.fail()
    }

    fn clear(&mut self, _: &[u8]) -> Result<()> {
        self.fail()
    }

    fn clear_range(&mut self, _: &[u8], _: &[u8]) -> Result<()> {
        self.fail()
    }

    fn atomic_op(&mut self, _: &[u8], _: &[u8], _: MutationType) -> Result<()> {
        self.fail()
    }

    fn add_conflict_range(&mut self, _: &[u8], _: &[u8], _: ConflictRangeType) -> Result<()> {
        self.fail()
    }

    /// Options are taken, as FDB's are on such a database; what they
    /// would change never happens.
    fn set_option(&mut self, _: TransactionOption) -> Result<()> {
        Ok(())
    }

    fn watch(&mut self, _: &[u8]) -> Result<Watch> {
        self.fail()
    }

    fn commit(&mut self) -> Result<Committed> {
        self.fail()
    }

    fn on_error(&mut self, error: Error) -> Result<()> {
        Err(error)
    }

    fn reset(&mut self) {}

    fn commit_status(&mut self, _: &IdempotencyId, _: SystemTime) -> Result<CommitStatus> {
        Ok(CommitStatus::Unknown)
    }
}
