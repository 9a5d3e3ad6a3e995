//! Reading ahead: a long range read fetches its next batch while the caller
//! works on the one before, as FDB's own bindings prefetch.
//!
//! On FDB the fetch is a round trip to the storage servers; on the embedded
//! backend it is the copying out of a few thousand rows. Either way the
//! caller decodes and prints a batch in about the time the next takes to
//! arrive, so overlapping the two comes close to halving a long read.
//! A short read (most reads) stays on the caller's thread: a thread costs
//! more than it would save.
//!
//! A few batches are held at once (one being read, one waiting, one with
//! the caller, and those the caller is done with until the reader frees
//! them), so a read of any size still runs in constant memory.

use std::ops::ControlFlow;
use std::sync::mpsc;

use super::{Error, KeyValue, RangeCursor, Transaction};

/// Rows a read hands over on the caller's thread before it reads ahead.
const AHEAD_AFTER: usize = 1000;

/// What a range read hands its caller, batch by batch.
#[derive(Debug)]
pub enum Fetched {
    /// The next rows, in the read's order.
    Rows(Vec<KeyValue>),
    /// The read outlived its transaction and goes on in a new one, from
    /// the key after the last row handed over: what follows is a later
    /// snapshot.
    NewSnapshot,
}

impl RangeCursor {
    /// Pages through the rest of the range, handing each batch to `f` in
    /// order, until the range ends or `f` breaks. Past the first thousand
    /// rows, the next batch is read on a second thread while `f` works.
    ///
    /// With `split`, a read that outlives its transaction resets it and
    /// goes on ([`Fetched::NewSnapshot`]); otherwise that error, like any
    /// other, ends the read and the cursor points at the batch that failed.
    /// `f` cannot touch the transaction: a read that writes as it goes
    /// pages with [`fetch`](RangeCursor::fetch).
    pub fn read_ahead<E: From<Error>>(
        &mut self,
        tx: &mut dyn Transaction,
        split: bool,
        mut f: impl FnMut(&Fetched) -> Result<ControlFlow<()>, E>,
    ) -> Result<(), E> {
        if self.page(tx, split, AHEAD_AFTER, &mut f)?.is_break() {
            return Ok(());
        }
        match self.read_on_thread(tx, split, &mut f) {
            Some(outcome) => outcome,
            // No thread to be had: on, one batch at a time.
            None => self.page(tx, split, usize::MAX, &mut f).map(drop),
        }
    }

    /// Hands batches to `f` until `rows` rows have gone (`Continue`), or
    /// until the range ends or `f` breaks (`Break`).
    fn page<E: From<Error>>(
        &mut self,
        tx: &mut dyn Transaction,
        split: bool,
        rows: usize,
        f: &mut impl FnMut(&Fetched) -> Result<ControlFlow<()>, E>,
    ) -> Result<ControlFlow<()>, E> {
        let mut handed = 0;
        while handed < rows {
            let Some(fetched) = self.fetch(tx, split)? else {
                return Ok(ControlFlow::Break(()));
            };
            if let Fetched::Rows(batch) = &fetched {
                handed += batch.len();
            }
            if f(&fetched)?.is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// The rest of the read with the fetching on a second thread; `None`
    /// when no thread could be started, and nothing was read.
    fn read_on_thread<E: From<Error>>(
        &mut self,
        tx: &mut dyn Transaction,
        split: bool,
        f: &mut impl FnMut(&Fetched) -> Result<ControlFlow<()>, E>,
    ) -> Option<Result<(), E>> {
        std::thread::scope(|scope| {
            // One batch waits while the next is read. Batches go back to
            // the reader to be dropped: freeing memory another thread
            // allocated costs more than the rest of a row's handling.
            let (send, receive) = mpsc::sync_channel(1);
            let (done, dropped) = mpsc::channel::<Fetched>();
            let reader = std::thread::Builder::new()
                .name("fql-read-ahead".into())
                .spawn_scoped(scope, move || {
                    loop {
                        let next = self.fetch(tx, split);
                        let last = !matches!(next, Ok(Some(_)));
                        // The caller stopped, or the read is over.
                        if send.send(next).is_err() || last {
                            break;
                        }
                        dropped.try_iter().for_each(drop);
                    }
                });
            if reader.is_err() {
                return None;
            }
            // Leaving drops `receive`, which stops the reader at its next
            // batch.
            let outcome = (|| {
                for next in receive {
                    let Some(fetched) = next? else {
                        break;
                    };
                    let flow = f(&fetched)?;
                    // The reader may be gone, and the batch with it.
                    let _ = done.send(fetched);
                    if flow.is_break() {
                        break;
                    }
                }
                Ok(())
            })();
            Some(outcome)
        })
    }

    /// The next batch, as [`next_batch`](RangeCursor::next_batch) reads
    /// it, with `split` as for [`read_ahead`](RangeCursor::read_ahead).
    pub fn fetch(
        &mut self,
        tx: &mut dyn Transaction,
        split: bool,
    ) -> Result<Option<Fetched>, Error> {
        match self.next_batch(tx) {
            Ok(rows) => Ok(rows.map(Fetched::Rows)),
            Err(Error::TransactionTooOld) if split => {
                tx.reset();
                Ok(Some(Fetched::NewSnapshot))
            }
            Err(e) => Err(e),
        }
    }
}
