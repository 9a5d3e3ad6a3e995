//! How one process's commit to a database file wakes the watches of every
//! other process on it at once, rather than at their next poll.
//!
//! A commit to the file, once it has landed, touches the timestamps of
//! the file's `-wal` ([`ring`]); the kernel tells every process that
//! listens to it (inotify, on Linux). The touch comes after the commit is
//! visible, and a listener arms before it reads: so a commit that a
//! poller's read missed rings after the poller armed, and wakes it. The
//! `-wal` is the file to listen to because SQLite's own writes to it come
//! too early (before its commit is visible) and no file of fql's own is
//! needed; the timestamps are the part of it SQLite does not read.
//!
//! One listener per process: inotify instances are few (128 a user by
//! default), so every database of a process shares one, read by one
//! thread that rings the databases listening to the file that changed.
//! The thread ends once nobody listens. Where the kernel cannot tell
//! (other systems, a file that cannot be watched), [`listen`] says so and
//! the poller polls, as it also does, more slowly, for commits that did
//! not ring (other programs', or one whose process died right after it).

#[cfg(target_os = "linux")]
pub(crate) use linux::{leave, listen, ring};

#[cfg(not(target_os = "linux"))]
pub(crate) use elsewhere::{leave, listen, ring};

/// Where a database listens: what [`listen`] arms, kept by its poller.
#[derive(Default)]
pub(crate) struct Listening {
    #[cfg(target_os = "linux")]
    watch: Option<nix::sys::inotify::WatchDescriptor>,
}

#[cfg(not(target_os = "linux"))]
mod elsewhere {
    use std::path::Path;
    use std::sync::Weak;

    use super::super::super::Shared;
    use super::Listening;

    /// No kernel notice here: the poller polls.
    pub(crate) fn listen(_: &Path, _: &Weak<Shared>, _: &mut Listening) -> bool {
        false
    }

    pub(crate) fn leave(_: &Weak<Shared>, _: &mut Listening) {}

    pub(crate) fn ring(_: &Path) {}
}

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::{HashMap, HashSet};
    use std::os::fd::AsFd;
    use std::path::Path;
    use std::sync::{Arc, Mutex, Weak};

    use nix::errno::Errno;
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify, InotifyEvent, WatchDescriptor};
    use nix::sys::stat::{UtimensatFlags, utimensat};
    use nix::sys::time::TimeSpec;

    use super::super::super::Shared;
    use super::Listening;
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

    /// Arms `who`'s notice of commits to `path` (again: the file may have
    /// been replaced since). False if the kernel cannot tell, so the
    /// caller must poll.
    pub(crate) fn listen(path: &Path, who: &Weak<Shared>, at: &mut Listening) -> bool {
        let mut bells = lock(&BELLS);
        if bells.is_none() {
            *bells = Bells::start();
        }
        let Some(ours) = bells.as_mut() else {
            return false;
        };
        let armed = ours.inotify.add_watch(path, EVENTS);
        let now = armed.as_ref().ok().copied();
        if let Some(old) = at.watch.take_if(|old| Some(*old) != now) {
            ours.leave(old, who);
        }
        let Some(watch) = now else {
            return false;
        };
        let list = ours.by_watch.entry(watch).or_default();
        if !list.iter().any(|w| w.ptr_eq(who)) {
            list.push(who.clone());
        }
        at.watch = Some(watch);
        true
    }

    /// Stops `who`'s notice; its poller ends.
    pub(crate) fn leave(who: &Weak<Shared>, at: &mut Listening) {
        if let Some(old) = at.watch.take()
            && let Some(ours) = lock(&BELLS).as_mut()
        {
            ours.leave(old, who);
        }
    }

    /// Tells the processes listening to `path` that a commit landed: one
    /// system call, which changes no byte SQLite reads. A failure (the
    /// file gone) rings nobody, and their polls find the commit.
    pub(crate) fn ring(path: &Path) {
        let _ = utimensat(
            nix::fcntl::AT_FDCWD,
            path,
            &TimeSpec::UTIME_NOW,
            &TimeSpec::UTIME_NOW,
            UtimensatFlags::FollowSymlink,
        );
    }
}
