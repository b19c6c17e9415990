//! The slot's promises: the newest request of a lane wins, a superseded or
//! cancelled job is never started or stops, and sends nothing once superseded.

use super::*;
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// A result message tagged with the request it answers.
fn result(lane: u64, tag: u64) -> Msg {
    Msg::TokensCounted { pane: lane as usize, rev: tag, counts: Vec::new() }
}

fn tag(msg: &Msg) -> u64 {
    match msg {
        Msg::TokensCounted { rev, .. } => *rev,
        Msg::EmbedProgress { id, .. } => *id,
        other => panic!("unexpected {other:?}"),
    }
}

fn recv(rx: &Receiver<Msg>) -> Msg {
    rx.recv_timeout(Duration::from_secs(10)).expect("a message in time")
}

#[test]
fn the_newest_request_of_a_lane_wins() {
    let slot: Slot<u64> = Slot::default();
    let flags: Vec<CancelFlag> = (1..=3).map(|_| CancelFlag::new()).collect();
    for (i, f) in flags.iter().enumerate() {
        slot.submit(0, i as u64 + 1, f.clone());
    }
    let job = slot.next().expect("a job");
    assert_eq!((job.lane, job.req), (0, 3));
    assert!(flags[0].is_cancelled() && flags[1].is_cancelled(), "the superseded requests are cancelled");
    assert!(!flags[2].is_cancelled());
}

#[test]
fn lanes_do_not_supersede_each_other_and_the_oldest_runs_first() {
    let slot: Slot<&str> = Slot::default();
    slot.submit(1, "b", CancelFlag::new());
    slot.submit(0, "a", CancelFlag::new());
    let first = slot.next().unwrap();
    slot.finish(first.lane);
    let second = slot.next().unwrap();
    assert_eq!((first.req, second.req), ("b", "a"));
    assert!(!first.cancel.is_cancelled() && !second.cancel.is_cancelled());
}

#[test]
fn a_new_request_cancels_the_running_job_of_its_lane_only() {
    let slot: Slot<u64> = Slot::default();
    slot.submit(0, 1, CancelFlag::new());
    slot.submit(1, 2, CancelFlag::new());
    let running = slot.next().unwrap();
    assert_eq!(running.req, 1);
    slot.submit(0, 3, CancelFlag::new());
    assert!(running.cancel.is_cancelled(), "the running job of lane 0 must stop");
    slot.finish(running.lane);
    let next = slot.next().unwrap();
    assert_eq!(next.req, 2, "lane 1 waited longer");
    assert!(!next.cancel.is_cancelled());
    assert_eq!(slot.next().unwrap().req, 3);
}

#[test]
fn cancelling_a_lane_stops_its_running_job_and_drops_its_waiting_one_only() {
    let slot: Slot<u64> = Slot::default();
    slot.submit(0, 1, CancelFlag::new());
    let running = slot.next().unwrap();
    slot.cancel(0);
    assert!(running.cancel.is_cancelled(), "the running job of lane 0 must stop");
    slot.finish(running.lane);
    let waiting = CancelFlag::new();
    slot.submit(0, 2, waiting.clone());
    let other = CancelFlag::new();
    slot.submit(1, 3, other.clone());
    slot.cancel(0);
    assert!(waiting.is_cancelled(), "the waiting request of lane 0 is dropped");
    assert!(!other.is_cancelled(), "lane 1 is untouched");
    assert_eq!(slot.next().unwrap().req, 3, "the cancelled request never starts");
    slot.cancel(9); // a lane never used: nothing happens
}

#[test]
fn a_request_cancelled_while_it_waits_never_starts() {
    let slot: Slot<u64> = Slot::default();
    let flag = CancelFlag::new();
    slot.submit(7, 1, flag.clone());
    slot.submit(8, 2, CancelFlag::new());
    flag.cancel(); // update cancels it itself (a newer job replaced it)
    assert_eq!(slot.next().unwrap().req, 2);
}

#[test]
fn a_superseded_job_sends_nothing() {
    let slot: Slot<u64> = Slot::default();
    let (tx, rx) = channel();
    slot.submit(0, 1, CancelFlag::new());
    let old = slot.next().unwrap();
    let old_reply = slot.reply(tx.clone(), old.cancel.clone());
    assert!(old_reply.send(result(0, 1)), "a current job sends");
    slot.submit(0, 2, CancelFlag::new());
    assert!(!old_reply.send(result(0, 1)), "a superseded one does not");
    (old_reply.progress(|d, t| Msg::EmbedProgress { pane: 0, id: 1, done: d, total: t }))(1, 1);
    slot.finish(old.lane);
    let new = slot.next().unwrap();
    assert!(slot.reply(tx, new.cancel).send(result(0, 2)));
    let got: Vec<u64> = rx.try_iter().map(|m| tag(&m)).collect();
    assert_eq!(got, [1, 2]);
}

#[test]
fn once_submit_returns_the_superseded_job_has_sent_its_last_message() {
    // A race: a few rounds, so that a missing lock shows up.
    for round in 0..20 {
        let (tx, rx) = channel();
        let marker = tx.clone();
        let started = std::sync::Arc::new(std::sync::Barrier::new(2));
        let go = started.clone();
        let w = Worker::spawn("test-race", tx, move |n: u64, reply: &Reply| {
            if n == 1 {
                go.wait();
                // Sends as fast as it can until it is refused.
                while reply.send(result(0, 1)) {}
            }
        });
        w.submit(0, 1);
        started.wait();
        std::thread::sleep(Duration::from_micros(100 * round));
        w.submit(0, 2);
        marker.send(result(9, 99)).unwrap();
        w.close();
        drop(marker);
        let tags: Vec<u64> = rx.iter().map(|m| tag(&m)).collect();
        let at = tags.iter().position(|&t| t == 99).expect("the marker");
        assert!(tags[at + 1..].iter().all(|&t| t != 1), "round {round}: job 1 sent after it was superseded");
    }
}

#[test]
fn a_worker_runs_only_the_newest_request_and_reports_its_progress() {
    let (tx, rx) = channel();
    let (release_tx, release) = channel::<()>();
    let release = std::sync::Mutex::new(release);
    let w = Worker::spawn("test-newest", tx, move |n: u64, reply: &Reply| {
        if n == 1 {
            let _ = release.lock().unwrap().recv(); // held until the others are queued
        }
        let progress = reply.progress(|done, total| Msg::EmbedProgress { pane: 0, id: n, done, total });
        for done in 0..=100 {
            if reply.cancelled() {
                return;
            }
            progress(done, 100);
        }
        reply.send(result(0, n));
    });
    let first = w.submit(0, 1);
    std::thread::sleep(Duration::from_millis(20)); // job 1 is running
    w.submit(0, 2);
    w.submit(0, 3);
    assert!(first.is_cancelled());
    release_tx.send(()).unwrap();
    let mut got = Vec::new();
    loop {
        let m = recv(&rx);
        let done = matches!(m, Msg::TokensCounted { .. });
        got.push((tag(&m), done));
        if done {
            break;
        }
    }
    assert!(got.iter().all(|&(t, _)| t == 3), "only job 3 reports: {got:?}");
    assert!(got.len() >= 2, "progress before the result: {got:?}");
    assert!(got.len() < 50, "progress is throttled: {} messages", got.len());
}

#[test]
fn a_closed_worker_ends_its_thread() {
    let (tx, rx) = channel();
    let w = Worker::spawn("test-close", tx, |_: u64, _: &Reply| {});
    w.close();
    // The thread held the only sender: it is gone once the thread ends.
    assert!(rx.recv_timeout(Duration::from_secs(10)).is_err());
}

/// The nice value of the calling thread (Linux: field 19 of its stat line,
/// after the parenthesised name, which may hold spaces).
#[cfg(target_os = "linux")]
fn own_nice() -> i64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    after_name.split(' ').nth(16).unwrap().parse().unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn background_workers_and_the_threads_they_start_yield_to_the_cut() {
    let (tx, rx) = channel();
    let normal = Worker::spawn("normal", tx.clone(), |nice: u64, reply| {
        reply.send(result(0, own_nice() as u64 + nice));
    });
    let background = Worker::spawn_background("background", tx, |_: u64, reply| {
        // Lint fans out over scoped threads: they inherit the priority.
        let inner = std::thread::scope(|s| s.spawn(own_nice).join().unwrap());
        reply.send(result(1, (own_nice() * 100 + inner) as u64));
    });
    normal.submit(0, 0);
    assert_eq!(tag(&recv(&rx)) as i64, own_nice(), "a normal worker keeps the priority it was started with");
    background.submit(1, 0);
    let got = tag(&recv(&rx));
    // Nice 19, the lowest priority, for the worker and its scoped thread.
    assert_eq!((got / 100, got % 100), (19, 19));
}
