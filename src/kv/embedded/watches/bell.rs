//! How one process's commit to a database file wakes, at once rather
//! than at their next poll, the watches of the other processes on it that
//! watch a key it wrote, and only those.
//!
//! Beside the database is a private directory of [`COUNT`] empty files,
//! its bells (`<db>-bells/00` … `ff`), made by the first process that
//! listens to each; a key's bell is picked by a hash of the key ([`of`]).
//! A commit, once it has landed, touches the timestamps of the bells of
//! the keys it changed ([`ring`]); the kernel tells every process that
//! listens to them (inotify, on Linux), and so a commit wakes only the
//! processes watching a key whose bell it rang: another process's
//! heartbeat, on a key nobody watches, wakes nobody. The touch comes after
//! the commit is visible, and a listener arms the bells of every key it
//! watches before it reads them: so a commit that a poller's read missed
//! rings after the poller armed, and wakes it. Keys that share a bell wake
//! each other's watchers for nothing, which costs one read each.
//!
//! A commit that changed keys of more than [`MOST_RUNG`] bells touches
//! instead the general bell, the `-wal` beside the database, which every
//! listener also arms: one touch that wakes everyone, rather than many.
//! A cleared range rings the bells of the keys it removed (an absent key
//! that stays absent is no change a watch sees). SQLite's own writes to
//! the `-wal` do not ring: they change its contents, not the timestamps
//! listened to, and come before their commit is visible.
//!
//! One listener per process: inotify instances are few (128 a user by
//! default), so every database of a process shares one, read by one
//! thread that rings the databases listening to the file that changed.
//! The thread ends once nobody listens. Where the kernel cannot tell
//! (other systems, a bell that cannot be made or watched), [`listen`]
//! says so and the poller polls, as it also does, more slowly, for commits
//! that did not ring (other programs', or one whose process died right
//! after it).

use std::collections::BTreeSet;
use std::path::PathBuf;

/// How many bells a database has: enough that the few keys each waiting
/// process watches seldom share one with the keys others write, few enough
/// to arm them all for a database with thousands of watches.
pub(crate) const COUNT: u64 = 256;

/// The most bells one commit touches one by one; a commit that would ring
/// more rings the general bell.
pub(crate) const MOST_RUNG: usize = 16;

/// One bell of a database.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Bell {
    /// The `-wal`, which every listener arms.
    General,
    /// The bell of the keys [`of`] gives this number.
    Key(u8),
}

/// The bell of `key`: a hash every process computes alike (FNV-1a, its
/// bits mixed once more so the high half depends on all of them).
pub(crate) fn of(key: &[u8]) -> Bell {
    let hash = key.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    Bell::Key(((hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % COUNT) as u8)
}

/// Where a database's bells are.
pub(crate) struct Place {
    general: PathBuf,
    dir: PathBuf,
}

impl Place {
    /// The bells of a database: `general` (its `-wal`) and the files in
    /// `dir`.
    pub(crate) fn new(general: PathBuf, dir: PathBuf) -> Place {
        Place { general, dir }
    }

    fn path(&self, bell: Bell) -> PathBuf {
        match bell {
            Bell::General => self.general.clone(),
            Bell::Key(n) => self.dir.join(format!("{n:02x}")),
        }
    }
}

/// The bells a commit rings, gathered as it writes.
#[derive(Default)]
pub(crate) struct Rung {
    bells: BTreeSet<u8>,
    general: bool,
}

impl Rung {
    /// `key` was set or removed.
    pub(crate) fn key(&mut self, key: &[u8]) {
        if self.general {
            return;
        }
        if let Bell::Key(n) = of(key) {
            self.bells.insert(n);
        }
        if self.bells.len() > MOST_RUNG {
            self.general = true;
            self.bells.clear();
        }
    }

    /// The bells to touch: none for a commit that changed no key.
    fn bells(&self) -> Vec<Bell> {
        if self.general {
            return vec![Bell::General];
        }
        self.bells.iter().map(|&n| Bell::Key(n)).collect()
    }
}

/// Where a database listens: what [`listen`] armed, kept by its poller.
#[derive(Default)]
pub(crate) struct Listening {
    #[cfg(target_os = "linux")]
    armed: std::collections::HashMap<Bell, nix::sys::inotify::WatchDescriptor>,
}

#[cfg(target_os = "linux")]
pub(crate) use linux::{leave, listen, ring};

#[cfg(not(target_os = "linux"))]
pub(crate) use elsewhere::{leave, listen, ring};

#[cfg(not(target_os = "linux"))]
mod elsewhere {
    use std::collections::BTreeSet;
    use std::sync::Weak;

    use super::super::super::Shared;
    use super::{Bell, Listening, Place, Rung};

    /// No kernel notice here: the poller polls.
    pub(crate) fn listen(
        _: &Place,
        _: &BTreeSet<Bell>,
        _: &Weak<Shared>,
        _: &mut Listening,
    ) -> bool {
        false
    }

    pub(crate) fn leave(_: &Weak<Shared>, _: &mut Listening) {}

    pub(crate) fn ring(_: &Place, _: &Rung) {}
}

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::{BTreeSet, HashMap, HashSet};
    use std::fs::{DirBuilder, OpenOptions};
    use std::os::fd::AsFd;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    use std::path::Path;
    use std::sync::{Arc, Mutex, Weak};

    use nix::errno::Errno;
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify, InotifyEvent, WatchDescriptor};
    use nix::sys::stat::{UtimensatFlags, utimensat};
    use nix::sys::time::TimeSpec;

    use super::super::super::Shared;
    use super::{Bell, Listening, Place, Rung};
    use crate::kv::lock;

    /// What rings: a commit's touch, and the file going away or being
    /// replaced (the listeners then arm again, on the new file).
    const EVENTS: AddWatchFlags = AddWatchFlags::IN_ATTRIB
        .union(AddWatchFlags::IN_DELETE_SELF)
        .union(AddWatchFlags::IN_MOVE_SELF);

    /// How long the reading thread waits for an event before it looks
    /// whether anyone still listens, in milliseconds.
    const IDLE_MS: u16 = 500;

    /// The process's listener, while any database listens.
    static BELLS: Mutex<Option<Bells>> = Mutex::new(None);

    struct Bells {
        inotify: Arc<Inotify>,
        /// The databases listening to each watched file.
        by_watch: HashMap<WatchDescriptor, Vec<Weak<Shared>>>,
    }

    impl Bells {
        /// A new listener and the thread that reads it.
        fn start() -> Option<Bells> {
            let inotify =
                Arc::new(Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC).ok()?);
            let reader = inotify.clone();
            std::thread::Builder::new()
                .name("fql-bells".into())
                .spawn(move || read(&reader))
                .ok()?;
            Some(Bells {
                inotify,
                by_watch: HashMap::new(),
            })
        }

        /// Takes `who` off the listeners of `watch`; the last one to go
        /// stops the watch.
        fn leave(&mut self, watch: WatchDescriptor, who: &Weak<Shared>) {
            if let Some(list) = self.by_watch.get_mut(&watch) {
                list.retain(|w| !w.ptr_eq(who) && w.strong_count() > 0);
                if list.is_empty() {
                    self.by_watch.remove(&watch);
                    let _ = self.inotify.rm_watch(watch);
                }
            }
        }

        /// The databases `events` ring, each once.
        fn rung(&mut self, events: &[InotifyEvent]) -> Vec<Arc<Shared>> {
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for event in events {
                let gone = event.mask.contains(AddWatchFlags::IN_IGNORED);
                let list = if gone {
                    self.by_watch.remove(&event.wd).unwrap_or_default()
                } else {
                    self.by_watch.get(&event.wd).cloned().unwrap_or_default()
                };
                for shared in list.iter().filter_map(Weak::upgrade) {
                    if seen.insert(Arc::as_ptr(&shared) as usize) {
                        out.push(shared);
                    }
                }
            }
            out
        }
    }

    /// Reads the kernel's events and rings the databases they concern,
    /// until nobody listens.
    fn read(inotify: &Arc<Inotify>) {
        loop {
            let mut fds = [PollFd::new(inotify.as_fd(), PollFlags::POLLIN)];
            if let Err(e) = poll(&mut fds, PollTimeout::from(IDLE_MS))
                && e != Errno::EINTR
            {
                std::thread::sleep(std::time::Duration::from_millis(u64::from(IDLE_MS)));
            }
            let mut events = Vec::new();
            while let Ok(batch) = inotify.read_events() {
                events.extend(batch);
            }
            let mut bells = lock(&BELLS);
            let Some(ours) = bells.as_mut().filter(|b| Arc::ptr_eq(&b.inotify, inotify)) else {
                return;
            };
            let rung = ours.rung(&events);
            if ours.by_watch.is_empty() {
                *bells = None;
            }
            let done = bells.is_none();
            drop(bells);
            for shared in rung {
                shared.watches.notify();
            }
            if done {
                return;
            }
        }
    }

    /// Arms `who`'s notice of commits that ring the general bell or one
    /// of `wanted` (again: a bell may have been replaced since), making
    /// the bells that are missing. False if the kernel cannot tell of
    /// every one, so the caller must poll.
    pub(crate) fn listen(
        place: &Place,
        wanted: &BTreeSet<Bell>,
        who: &Weak<Shared>,
        at: &mut Listening,
    ) -> bool {
        let mut bells = lock(&BELLS);
        if bells.is_none() {
            *bells = Bells::start();
        }
        let Some(ours) = bells.as_mut() else {
            return false;
        };
        let mut now = HashMap::new();
        let mut every = true;
        for &bell in std::iter::once(&Bell::General).chain(wanted) {
            match arm(&ours.inotify, place, bell) {
                Some(watch) => drop(now.insert(bell, watch)),
                None => every = false,
            }
        }
        let kept: HashSet<WatchDescriptor> = now.values().copied().collect();
        for (_, old) in at.armed.drain() {
            if !kept.contains(&old) {
                ours.leave(old, who);
            }
        }
        for &watch in &kept {
            let list = ours.by_watch.entry(watch).or_default();
            if !list.iter().any(|w| w.ptr_eq(who)) {
                list.push(who.clone());
            }
        }
        at.armed = now;
        every
    }

    /// Watches `bell`, making it first if it is a key's and missing: the
    /// directory private to this user (0700), the file too (0600).
    fn arm(inotify: &Inotify, place: &Place, bell: Bell) -> Option<WatchDescriptor> {
        let path = place.path(bell);
        match inotify.add_watch(&path, EVENTS) {
            Ok(watch) => Some(watch),
            Err(Errno::ENOENT) if bell != Bell::General => {
                make(&place.dir, &path).ok()?;
                inotify.add_watch(&path, EVENTS).ok()
            }
            Err(_) => None,
        }
    }

    fn make(dir: &Path, path: &Path) -> std::io::Result<()> {
        match DirBuilder::new().mode(0o700).create(dir) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)
            .map(drop)
    }

    /// Stops `who`'s notice; its poller ends.
    pub(crate) fn leave(who: &Weak<Shared>, at: &mut Listening) {
        if let Some(ours) = lock(&BELLS).as_mut() {
            for (_, old) in at.armed.drain() {
                ours.leave(old, who);
            }
        }
    }

    /// Tells the processes listening to the bells `rung` names that a
    /// commit landed: one system call a bell, which changes no byte SQLite
    /// reads. A bell that is missing has no listener (listeners make it
    /// before they arm it); a failure rings nobody, and their polls find
    /// the commit.
    pub(crate) fn ring(place: &Place, rung: &Rung) {
        for bell in rung.bells() {
            let _ = utimensat(
                nix::fcntl::AT_FDCWD,
                &place.path(bell),
                &TimeSpec::UTIME_NOW,
                &TimeSpec::UTIME_NOW,
                UtimensatFlags::FollowSymlink,
            );
        }
    }
}
