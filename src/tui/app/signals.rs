//! SIGTERM, SIGINT and SIGHUP end the workbench the way `q` does: the
//! terminal gets its normal screen, echo, line editing and cursor back and
//! mouse reporting off, and only then does the process die of the signal
//! (so a shell or supervisor sees what killed it). In raw mode Ctrl-C is a
//! key, not SIGINT; `kill -INT` still arrives here.
//!
//! A thread waits for the signals and hands them to the event loop as
//! [`Msg::Signalled`]; the loop quits and `run` restores the terminal as on
//! any exit. If the loop does not get there in [`GRACE`] (stuck on a huge
//! layout, say), the thread restores the terminal itself and exits.

use crate::tui::msg::Msg;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::Duration;

/// How long the event loop has to quit on its own after a signal.
pub const GRACE: Duration = Duration::from_secs(2);

/// Give the terminal back: mouse reporting off, raw mode off, normal
/// screen, cursor shown. Errors are ignored (the terminal may be gone, as
/// after SIGHUP); the panic hook and every exit path call this.
pub fn restore_terminal() {
    use crossterm::{cursor::Show, event::DisableMouseCapture, execute};
    let _ = execute!(std::io::stdout(), DisableMouseCapture);
    let _ = ratatui::try_restore();
    let _ = execute!(std::io::stdout(), Show);
}

/// The signals being watched, and the one caught (0: none yet).
pub struct Watch {
    caught: Arc<AtomicI32>,
}

impl Watch {
    /// Start watching; None when the signals cannot be hooked (then they
    /// keep their default action, as before).
    #[cfg(unix)]
    pub fn start(tx: Sender<Msg>) -> Option<Watch> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]).ok()?;
        let caught = Arc::new(AtomicI32::new(0));
        let seen = caught.clone();
        std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let Some(signo) = signals.forever().next() else { return };
                seen.store(signo, Ordering::SeqCst);
                let _ = tx.send(Msg::Signalled(signo));
                std::thread::sleep(GRACE);
                // Still alive: the event loop is stuck. Restore from here.
                restore_terminal();
                die_of(signo);
            })
            .ok()?;
        Some(Watch { caught })
    }

    #[cfg(not(unix))]
    pub fn start(_: Sender<Msg>) -> Option<Watch> {
        None
    }

    /// Call after the terminal is restored: if a signal ended the loop, die
    /// of it now.
    pub fn finish(self) {
        let signo = self.caught.load(Ordering::SeqCst);
        if signo != 0 {
            die_of(signo);
        }
    }
}

/// End the process as the signal would have: its default action, else the
/// shell's convention of exit status 128 + signal number.
fn die_of(signo: i32) -> ! {
    #[cfg(unix)]
    let _ = signal_hook::low_level::emulate_default_handler(signo);
    std::process::exit(128 + signo)
}
