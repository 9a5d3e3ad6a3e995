//! Named scripts shipped inside fql: `fql scripts` lists them, `fql run
//! NAME` runs one. Their sources are the `.fql` files under `src/scripts/`,
//! where readers find them; each starts with a comment line that says what
//! it does.

/// A named script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Script {
    /// `mutex/try-acquire`.
    pub name: &'static str,
    /// The FQL text.
    pub source: &'static str,
}

macro_rules! scripts {
    ($($name:literal),* $(,)?) => {
        /// Every named script, by name.
        pub const ALL: &[Script] = &[
            $(Script { name: $name, source: include_str!(concat!("scripts/", $name, ".fql")) }),*
        ];
    };
}

scripts![
    "mutex/answer",
    "mutex/break",
    "mutex/cancel",
    "mutex/compat/cancel",
    "mutex/compat/enqueue",
    "mutex/compat/grant-head",
    "mutex/compat/heartbeat",
    "mutex/compat/reap",
    "mutex/compat/release",
    "mutex/compat/try-acquire",
    "mutex/drop-entry",
    "mutex/drop-waiter",
    "mutex/enqueue",
    "mutex/grant-head",
    "mutex/heartbeat",
    "mutex/reap",
    "mutex/reap-silent",
    "mutex/release",
    "mutex/schema",
    "mutex/show",
    "mutex/try-acquire",
    "mutex/waiting",
    "rwlock/cancel",
    "rwlock/claim-permit",
    "rwlock/claim-read",
    "rwlock/claim-write",
    "rwlock/drop-waiter",
    "rwlock/enqueue",
    "rwlock/heartbeat",
    "rwlock/init",
    "rwlock/release",
    "rwlock/schema",
    "rwlock/show",
    "rwlock/takeover",
    "rwlock/try-permit",
    "rwlock/try-read",
    "rwlock/try-write",
    "rwlock/waiting",
    "task/slot",
    "task/take",
    "task/beat",
    "task/retake",
    "task/finish",
];

/// Names that scripts were shipped under before, and the script each is
/// now: [`find`] still resolves them, so that commands written with them
/// keep working, while `fql scripts` lists only the scripts' own names.
const FORMER: &[(&str, &str)] = &[
    ("lock/slot", "task/slot"),
    ("lock/take-task", "task/take"),
    ("lock/beat-task", "task/beat"),
    ("lock/retake-task", "task/retake"),
    ("lock/finish-task", "task/finish"),
];

impl Script {
    /// The first line of its leading comment.
    pub fn description(&self) -> &'static str {
        self.source
            .lines()
            .next()
            .and_then(|l| l.strip_prefix('%'))
            .map_or("", str::trim)
    }

    /// The parameters it needs: the names its references use that none
    /// of its statements binds, in order of first use.
    pub fn params(&self) -> Vec<String> {
        let script = crate::syntax::parse(self.source).expect("shipped scripts parse");
        let none = crate::plan::Params::new();
        let mut planner = crate::plan::Planner::new(&none);
        // Every reference is unbound here; the planner still notes them.
        let _ = planner.plan(&script);
        planner.wanted().to_vec()
    }
}

/// The script called `name`, or formerly called so.
pub fn find(name: &str) -> Option<&'static Script> {
    let name = FORMER
        .iter()
        .find(|(former, _)| *former == name)
        .map_or(name, |(_, now)| now);
    ALL.iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_script_loads_and_says_what_it_does() {
        for script in ALL {
            crate::check::load(script.source).unwrap_or_else(|e| panic!("{}: {e:?}", script.name));
            assert!(!script.description().is_empty(), "{}", script.name);
        }
        assert_eq!(find("mutex/release").unwrap().params(), ["dir", "name"]);
        assert_eq!(
            find("mutex/reap").unwrap().params(),
            ["dir", "owner", "seen"]
        );
    }

    #[test]
    fn former_names_find_the_renamed_scripts_and_are_not_listed() {
        for (former, now) in FORMER {
            let script = find(former).unwrap_or_else(|| panic!("{former}"));
            assert_eq!(script.name, *now);
            assert!(ALL.iter().all(|s| s.name != *former), "{former}");
        }
        assert_eq!(find("lock/take-task"), find("task/take"));
        assert_eq!(find("lock/nope"), None);
    }
}
