//! The slot one kind of background work queues in: a lane per pane (or per
//! document, or per job), each holding at most one request waiting and one
//! job running. The rule for stale work, in one place:
//!
//! - submitting to a lane supersedes what the lane held: the waiting request
//!   is dropped unrun and the running job is cancelled (its [`CancelFlag`] set);
//! - a cancelled request, by this rule or by `update`, is never started, and
//!   a running one stops at its next check;
//! - a cancelled job sends nothing more ([`Reply::send`] refuses), and the
//!   check and the send happen under the same lock as the cancel, so once
//!   `submit` returns, the superseded job's messages have all been sent.
//!
//! What was sent before that may still be in the channel: `update` takes a
//! result only while the pane waits for it (its revision or job id), so a
//! superseded result is never applied either way.

use crate::embedding::CancelFlag;
use crate::tui::msg::Msg;
use std::cell::Cell;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// One request taken from a slot, to run.
pub struct Job<R> {
    pub lane: u64,
    pub req: R,
    pub cancel: CancelFlag,
}

struct Lane<R> {
    key: u64,
    /// The request waiting, and when it was submitted (lanes are served oldest first).
    waiting: Option<(u64, R, CancelFlag)>,
    running: Option<CancelFlag>,
}

struct State<R> {
    lanes: Vec<Lane<R>>,
    submitted: u64,
    closed: bool,
}

pub struct Slot<R> {
    state: Mutex<State<R>>,
    ready: Condvar,
    /// Held while a job's flag is set and while a job sends: see the module doc.
    gate: Arc<Mutex<()>>,
}

impl<R> Default for Slot<R> {
    fn default() -> Self {
        Slot {
            state: Mutex::new(State { lanes: Vec::new(), submitted: 0, closed: false }),
            ready: Condvar::new(),
            gate: Arc::new(Mutex::new(())),
        }
    }
}

/// A poisoned lock only means a job panicked, which ends the process anyway.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<R> Slot<R> {
    /// Queue `req` in `lane`, superseding the lane's waiting request and running job.
    pub fn submit(&self, lane: u64, req: R, cancel: CancelFlag) {
        let mut st = lock(&self.state);
        st.submitted += 1;
        let seq = st.submitted;
        let i = match st.lanes.iter().position(|l| l.key == lane) {
            Some(i) => i,
            None => {
                st.lanes.push(Lane { key: lane, waiting: None, running: None });
                st.lanes.len() - 1
            }
        };
        let l = &mut st.lanes[i];
        {
            let _gate = lock(&self.gate);
            if let Some((_, _, old)) = l.waiting.take() {
                old.cancel();
            }
            if let Some(old) = &l.running {
                old.cancel();
            }
        }
        l.waiting = Some((seq, req, cancel));
        self.ready.notify_one();
    }

    /// Cancel what `lane` holds, waiting or running, and queue nothing.
    pub fn cancel(&self, lane: u64) {
        let mut st = lock(&self.state);
        if let Some(l) = st.lanes.iter_mut().find(|l| l.key == lane) {
            let _gate = lock(&self.gate);
            if let Some((_, _, old)) = l.waiting.take() {
                old.cancel();
            }
            if let Some(old) = &l.running {
                old.cancel();
            }
        }
    }

    /// Wait for the longest-waiting request that is not cancelled; None once closed.
    /// Its lane counts it as running until [`Slot::finish`].
    pub fn next(&self) -> Option<Job<R>> {
        let mut st = lock(&self.state);
        loop {
            if st.closed {
                return None;
            }
            // Requests `update` cancelled while they waited are dropped unrun.
            for l in &mut st.lanes {
                if l.waiting.as_ref().is_some_and(|(_, _, c)| c.is_cancelled()) {
                    l.waiting = None;
                }
            }
            let oldest = st
                .lanes
                .iter()
                .enumerate()
                .filter_map(|(i, l)| l.waiting.as_ref().map(|w| (w.0, i)))
                .min()
                .map(|(_, i)| i);
            if let Some(i) = oldest {
                let l = &mut st.lanes[i];
                let (_, req, cancel) = l.waiting.take().expect("found waiting");
                l.running = Some(cancel.clone());
                return Some(Job { lane: l.key, req, cancel });
            }
            st.lanes.retain(|l| l.running.is_some());
            st = self.ready.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The job taken from `lane` is done.
    pub fn finish(&self, lane: u64) {
        let mut st = lock(&self.state);
        if let Some(l) = st.lanes.iter_mut().find(|l| l.key == lane) {
            l.running = None;
        }
        st.lanes.retain(|l| l.running.is_some() || l.waiting.is_some());
    }

    /// Wake the worker with nothing more to do: [`Slot::next`] returns None.
    pub fn close(&self) {
        lock(&self.state).closed = true;
        self.ready.notify_all();
    }

    /// How a job of this slot answers.
    pub fn reply(&self, tx: Sender<Msg>, cancel: CancelFlag) -> Reply {
        Reply { tx, cancel, gate: self.gate.clone(), gone: Cell::new(false) }
    }
}

/// A running job's way back to the UI: sends only while the job is current.
pub struct Reply {
    tx: Sender<Msg>,
    cancel: CancelFlag,
    gate: Arc<Mutex<()>>,
    gone: Cell<bool>,
}

/// A few progress updates a second are enough for a progress bar.
const PROGRESS_EVERY: Duration = Duration::from_millis(80);

impl Reply {
    /// For a job run outside any slot (tests, benches): nothing supersedes it.
    pub fn detached(tx: Sender<Msg>, cancel: CancelFlag) -> Reply {
        Reply { tx, cancel, gate: Arc::new(Mutex::new(())), gone: Cell::new(false) }
    }

    pub fn cancel_flag(&self) -> &CancelFlag {
        &self.cancel
    }

    pub fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Send `msg` unless the job was superseded or cancelled; false when it was
    /// not sent (stale, or the UI has gone: see [`Reply::gone`]).
    pub fn send(&self, msg: Msg) -> bool {
        let _gate = lock(&self.gate);
        if self.cancel.is_cancelled() || self.gone.get() {
            return false;
        }
        let sent = self.tx.send(msg).is_ok();
        self.gone.set(!sent);
        sent
    }

    /// The receiving end is gone: the worker stops.
    pub fn gone(&self) -> bool {
        self.gone.get()
    }

    /// A `(done, total)` callback that sends `make(done, total)` a few times a
    /// second, and always the last.
    pub fn progress<'a>(&'a self, make: impl Fn(usize, usize) -> Msg + 'a) -> impl Fn(usize, usize) + 'a {
        let last = Cell::new(None::<Instant>);
        move |done, total| {
            if done == total || last.get().is_none_or(|t| t.elapsed() >= PROGRESS_EVERY) {
                last.set(Some(Instant::now()));
                self.send(make(done, total));
            }
        }
    }
}
