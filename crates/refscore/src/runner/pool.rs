//! The worker threads of a run or an evaluation.

/// Stack size of the worker threads: values can be deeply nested.
pub const WORKER_STACK: usize = 64 * 1024 * 1024;

/// Most worker threads a run or an evaluation starts (a judge's
/// `max_concurrency` has the same bound): more would cost memory and
/// switching and gain nothing.
pub const MAX_THREADS: usize = 1024;

/// A pool of `threads` workers (`0`: one per core) with the stack that
/// deeply nested values need, named `{prefix}-{i}`.
///
/// # Errors
/// More than [`MAX_THREADS`] threads, or the threads cannot start.
pub fn worker_pool(threads: usize, prefix: &'static str) -> Result<rayon::ThreadPool, String> {
    if threads > MAX_THREADS {
        return Err(format!("{threads} asked for, at most {MAX_THREADS}"));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(WORKER_STACK)
        .thread_name(move |i| format!("{prefix}-{i}"))
        .build()
        .map_err(|e| {
            // The usual cause is an address-space limit: say what it must hold.
            format!(
                "{e} (each worker reserves a {} MiB stack: under a virtual-memory limit \
                 such as `ulimit -v`, raise it or ask for fewer threads)",
                WORKER_STACK >> 20
            )
        })
}
