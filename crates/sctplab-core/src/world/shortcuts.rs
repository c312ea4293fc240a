//! The shortcuts a wireless run may take, a run option (`RunOptions::shortcuts`, the
//! CLI's `--shortcuts`, the Python API's `shortcuts=`). Each must leave every result
//! as it is: summary.json is the same with any set of them, but for `events`, which
//! counts the queue's pops, and these shortcuts exist to pop fewer. They are on by
//! default; turning them off is a checking tool (the plain model runs every MAC timer
//! and every reception as an event of the queue, as ns-2.35 does), and the tests
//! compare runs with each of them off on random networks (world/wireless/tests.rs,
//! world/manet_equivalence.rs).

/// Which shortcuts a run takes (see `Shortcuts::NAMES`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shortcuts {
    /// Quiet MACs' timer events and receptions kept out of the queue and run in key
    /// order just before the MAC's next input (`Fast::deferred_mac_timers`). The
    /// others act only within this one.
    pub defer_quiet_mac_timers: bool,
    /// A MAC that waits with its backoff paused counts as quiet
    /// (`Fast::wait_quietly`).
    pub wait_quietly: bool,
    /// An overheard frame's reception and its end in one step
    /// (`Fast::fuse_overheard`).
    pub fuse_overheard: bool,
    /// The same at a waiting MAC (`Fast::fuse_waiting`).
    pub fuse_waiting: bool,
    /// A waiting MAC's timer events through `Mac::waiting_timeout`
    /// (`Fast::waiting_quiet`).
    pub waiting_quiet: bool,
    /// Broadcast frames through the air log (`Fast::log_broadcasts`).
    pub log_broadcasts: bool,
    /// Repeated route requests delivered quietly (`Fast::quiet_duplicates`).
    pub quiet_duplicates: bool,
}

impl Shortcuts {
    pub const ALL: Shortcuts = Shortcuts {
        defer_quiet_mac_timers: true,
        wait_quietly: true,
        fuse_overheard: true,
        fuse_waiting: true,
        waiting_quiet: true,
        log_broadcasts: true,
        quiet_duplicates: true,
    };

    /// None: every MAC timer and reception an event of the queue (the plain model the
    /// equivalence tests compare with).
    pub const NONE: Shortcuts = Shortcuts {
        defer_quiet_mac_timers: false,
        wait_quietly: false,
        fuse_overheard: false,
        fuse_waiting: false,
        waiting_quiet: false,
        log_broadcasts: false,
        quiet_duplicates: false,
    };

    /// The names `parse` takes, in the order of the fields.
    pub const NAMES: [&'static str; 7] = [
        "defer_quiet_mac_timers",
        "wait_quietly",
        "fuse_overheard",
        "fuse_waiting",
        "waiting_quiet",
        "log_broadcasts",
        "quiet_duplicates",
    ];

    fn flag(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "defer_quiet_mac_timers" => &mut self.defer_quiet_mac_timers,
            "wait_quietly" => &mut self.wait_quietly,
            "fuse_overheard" => &mut self.fuse_overheard,
            "fuse_waiting" => &mut self.fuse_waiting,
            "waiting_quiet" => &mut self.waiting_quiet,
            "log_broadcasts" => &mut self.log_broadcasts,
            "quiet_duplicates" => &mut self.quiet_duplicates,
            _ => return None,
        })
    }

    /// `all`, `none`, or a comma list of the shortcuts to take (`NAMES`), the others
    /// off; the error names what was expected.
    pub fn parse(text: &str) -> Result<Shortcuts, String> {
        match text.trim() {
            "all" => return Ok(Shortcuts::ALL),
            "none" => return Ok(Shortcuts::NONE),
            _ => {}
        }
        let mut s = Shortcuts::NONE;
        for name in text.split(',').map(str::trim) {
            match s.flag(name) {
                Some(f) => *f = true,
                None => {
                    return Err(format!(
                        "{text:?}: unknown shortcut {name:?}; expected all, none or a comma \
                         list of {}",
                        Shortcuts::NAMES.join(", ")
                    ));
                }
            }
        }
        Ok(s)
    }
}

impl Default for Shortcuts {
    fn default() -> Self {
        Shortcuts::ALL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_all_none_and_lists() {
        assert_eq!(Shortcuts::parse("all"), Ok(Shortcuts::ALL));
        assert_eq!(Shortcuts::parse("none"), Ok(Shortcuts::NONE));
        assert_eq!(Shortcuts::default(), Shortcuts::ALL);
        let every = Shortcuts::parse(&Shortcuts::NAMES.join(","));
        assert_eq!(every, Ok(Shortcuts::ALL));
        assert_eq!(
            Shortcuts::parse("defer_quiet_mac_timers, log_broadcasts"),
            Ok(Shortcuts {
                defer_quiet_mac_timers: true,
                log_broadcasts: true,
                ..Shortcuts::NONE
            })
        );
        let e = Shortcuts::parse("defer,fast").expect_err("unknown");
        assert!(
            e.contains("\"defer\"") && e.contains("quiet_duplicates"),
            "{e}"
        );
        assert!(Shortcuts::parse("").is_err());
    }
}
