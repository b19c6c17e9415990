//! Two pieces of work side by side, as `rayon::join` does without a pool:
//! the tokenizer's two ends of a run, a span index's two tables, a cut and
//! its records, lint's blocks and sentences.

/// `(on_a_thread(), here())`: the first on a scoped second thread while the
/// second runs on this one. A panic in either is raised on this thread.
pub fn join<A: Send, B>(on_a_thread: impl FnOnce() -> A + Send, here: impl FnOnce() -> B) -> (A, B) {
    std::thread::scope(|scope| {
        let other = scope.spawn(on_a_thread);
        let mine = here();
        (other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), mine)
    })
}
