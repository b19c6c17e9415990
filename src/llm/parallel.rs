//! Many questions to one server, `concurrency` in flight: answers in order,
//! progress reported and cancellation checked on the calling thread (so the
//! callbacks need not be thread-safe). The first error stops the rest; the
//! requests in hand finish, and their answers stay in the cache.

use crate::error::Result;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// `question(i)` for every i in 0..n, on up to `concurrency` threads.
/// `progress(done, n)` after each answer; `check()` before taking each one
/// (an error from it, such as a cancel, stops the work).
pub fn ask_all<T: Send>(
    n: usize,
    concurrency: usize,
    progress: &dyn Fn(usize, usize),
    check: &dyn Fn() -> Result<()>,
    question: &(dyn Fn(usize) -> Result<T> + Sync),
) -> Result<Vec<T>> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel();
    let workers = concurrency.clamp(1, n.max(1));
    std::thread::scope(|s| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || stop.load(Ordering::Relaxed) {
                    break;
                }
                if tx.send((i, question(i))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut answers: Vec<Option<T>> = (0..n).map(|_| None).collect();
        let mut done = 0;
        progress(0, n);
        for (i, answer) in rx {
            match answer.and_then(|a| check().map(|()| a)) {
                Ok(a) => answers[i] = Some(a),
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
            done += 1;
            progress(done, n);
        }
        Ok(answers.into_iter().map(|a| a.expect("every question answered")).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn answers_come_back_in_order_and_the_first_error_stops_the_rest() {
        let got = ask_all(50, 4, &|_, _| {}, &|| Ok(()), &|i| Ok(i * 2)).unwrap();
        assert_eq!(got, (0..50).map(|i| i * 2).collect::<Vec<_>>());
        let asked = AtomicUsize::new(0);
        let err = ask_all(1000, 2, &|_, _| {}, &|| Ok(()), &|i| {
            asked.fetch_add(1, Ordering::Relaxed);
            std::thread::sleep(std::time::Duration::from_millis(2));
            if i == 3 {
                Err(Error::Llm("down".into()))
            } else {
                Ok(i)
            }
        });
        assert!(err.is_err());
        assert!(asked.load(Ordering::Relaxed) < 100, "stopped early");
    }
}
