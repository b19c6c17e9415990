//! How background work runs: every kind of slow work (chunking, token
//! counting, highlighting, embedding, retrieval, lint) is a [`Worker`], one
//! thread fed by a [`Slot`]. The UI thread only submits and never waits; the
//! worker reports back as [`Msg`]s through a [`Reply`]. [`slot`] says the one
//! rule for stale work. Below the features, so that a feature's own job (the
//! embedder, retrieval) can be a worker without importing the runtime that
//! wires commands to workers ([`crate::tui::jobs`]).

pub mod count;
pub mod slot;

use crate::embedding::CancelFlag;
use crate::tui::msg::Msg;
pub use slot::{Job, Reply, Slot};
use std::sync::mpsc::Sender;
use std::sync::Arc;

/// Handle to one worker thread: submit requests to its lanes. Cheap to
/// clone (a job of one worker can submit to another: chunks to be counted).
pub struct Worker<R> {
    slot: Arc<Slot<R>>,
}

impl<R> Clone for Worker<R> {
    fn clone(&self) -> Self {
        Worker { slot: self.slot.clone() }
    }
}

impl<R: Send + 'static> Worker<R> {
    /// Start a thread that runs `run` on each request taken from the slot,
    /// until the slot is closed or the UI stops listening.
    pub fn spawn(name: &str, tx: Sender<Msg>, run: impl FnMut(R, &Reply) + Send + 'static) -> Worker<R> {
        Self::start(name, tx, Priority::Normal, run)
    }

    /// [`Worker::spawn`] for work that follows a cut (token counts, lint,
    /// highlighting): its thread, and the threads it starts, run at the
    /// lowest priority, so that on a machine with two cores the next cut
    /// never shares its core with the previous cut's counting.
    pub fn spawn_background(name: &str, tx: Sender<Msg>, run: impl FnMut(R, &Reply) + Send + 'static) -> Worker<R> {
        Self::start(name, tx, Priority::Background, run)
    }

    fn start(
        name: &str,
        tx: Sender<Msg>,
        priority: Priority,
        mut run: impl FnMut(R, &Reply) + Send + 'static,
    ) -> Worker<R> {
        let slot: Arc<Slot<R>> = Arc::default();
        let s = slot.clone();
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                if priority == Priority::Background {
                    // Where the OS refuses, the work runs as before, only less politely.
                    let _ = thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min);
                }
                while let Some(Job { lane, req, cancel }) = s.next() {
                    let reply = s.reply(tx.clone(), cancel);
                    run(req, &reply);
                    s.finish(lane);
                    if reply.gone() {
                        return;
                    }
                }
            })
            .unwrap_or_else(|e| panic!("cannot start the {name} thread: {e}"));
        Worker { slot }
    }

    /// Queue `req` in `lane`, superseding what the lane held; returns the
    /// flag that cancels it.
    pub fn submit(&self, lane: u64, req: R) -> CancelFlag {
        let cancel = CancelFlag::new();
        self.slot.submit(lane, req, cancel.clone());
        cancel
    }

    /// [`Worker::submit`] with a flag `update` already holds (it cancels the job itself).
    pub fn submit_with(&self, lane: u64, req: R, cancel: CancelFlag) {
        self.slot.submit(lane, req, cancel);
    }

    /// Cancel what `lane` holds (its results would answer a superseded request).
    pub fn cancel(&self, lane: u64) {
        self.slot.cancel(lane);
    }

    /// Let the thread end once its current job is done.
    pub fn close(&self) {
        self.slot.close();
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Priority {
    Normal,
    Background,
}

#[cfg(test)]
mod tests;
