//! State shared by the accept loop, the connection threads and the handle.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use serde_json::Value;

use crate::RecordedRequest;
use crate::limits::ServerLimits;
use crate::reply::Reply;
use crate::request::RequestView;
use crate::script::Script;

/// The reply when no rule matches.
static AUTO: Reply = Reply::Auto;

/// The script, its use counts, the limits, the stop flag and the record.
pub(crate) struct Shared {
    script: Script,
    used: Vec<AtomicUsize>,
    stop: AtomicBool,
    admitted: AtomicUsize,
    max_requests: usize,
    deadline: Option<Instant>,
    recorded: Mutex<Vec<RecordedRequest>>,
}

impl Shared {
    pub(crate) fn new(script: Script, limits: ServerLimits, started: Instant) -> Self {
        let used = script.rules.iter().map(|_| AtomicUsize::new(0)).collect();
        Self {
            script,
            used,
            stop: AtomicBool::new(false),
            admitted: AtomicUsize::new(0),
            max_requests: limits.max_requests,
            deadline: started.checked_add(std::time::Duration::from_secs(limits.max_seconds)),
            recorded: Mutex::new(Vec::new()),
        }
    }

    /// Whether the server is stopping.
    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// Ask everything to stop.
    pub(crate) fn trigger_stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    /// Whether `max_seconds` have passed.
    pub(crate) fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Count a request in: its 1-based number, and whether it is the last
    /// one the limits allow; `None` once `max_requests` were admitted.
    pub(crate) fn admit(&self) -> Option<(usize, bool)> {
        let max = self.max_requests;
        self.admitted
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < max).then_some(n + 1))
            .ok()
            .map(|before| (before + 1, before + 1 >= max))
    }

    /// Requests admitted so far.
    pub(crate) fn admitted(&self) -> usize {
        self.admitted.load(Ordering::Acquire)
    }

    /// The reply of the first matching rule not used up (using it once), or
    /// [`Reply::Auto`].
    pub(crate) fn pick(&self, request: &RequestView<'_>) -> &Reply {
        for (rule, used) in self.script.rules.iter().zip(&self.used) {
            if !rule.when.matches(request) {
                continue;
            }
            match rule.times {
                None => return &rule.reply,
                Some(times) => {
                    let took = used.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                        (n < times).then_some(n + 1)
                    });
                    if took.is_ok() {
                        return &rule.reply;
                    }
                }
            }
        }
        &AUTO
    }

    /// Remember a request (without its body when body recording is off).
    pub(crate) fn record(
        &self,
        method: String,
        path: String,
        headers: Vec<(String, String)>,
        body: Value,
        raw_body: Vec<u8>,
    ) {
        let (body, raw_body) = if self.script.record_bodies {
            let raw = String::from_utf8(raw_body)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            (body, raw)
        } else {
            (Value::Null, String::new())
        };
        self.lock().push(RecordedRequest { method, path, headers, body, raw_body });
    }

    /// The record, in arrival order.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Vec<RecordedRequest>> {
        // A panic elsewhere cannot leave a Vec half-pushed; keep going.
        self.recorded.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Rule, When};

    #[test]
    fn used_up_rules_fall_through() {
        let script = Script::new(vec![
            Rule::always(Reply::Text("once".into())).times(1),
            Rule::new(When::Path("/other".into()), Reply::Drop),
            Rule::always(Reply::Text("always".into())),
        ]);
        let shared = Shared::new(script, ServerLimits::default(), Instant::now());
        let body = Value::Null;
        let view = RequestView::new("POST", "/v1/chat/completions", &body, 0);
        assert_eq!(shared.pick(&view), &Reply::Text("once".into()));
        assert_eq!(shared.pick(&view), &Reply::Text("always".into()));
        assert_eq!(shared.pick(&view), &Reply::Text("always".into()));
        let empty = Shared::new(Script::default(), ServerLimits::default(), Instant::now());
        assert_eq!(empty.pick(&view), &Reply::Auto);
    }

    #[test]
    fn admission_stops_at_max_requests() {
        let limits = ServerLimits { max_requests: 2, max_seconds: u64::MAX };
        let shared = Shared::new(Script::default(), limits, Instant::now());
        assert!(!shared.past_deadline());
        assert_eq!(shared.admit(), Some((1, false)));
        assert_eq!(shared.admit(), Some((2, true)));
        assert_eq!(shared.admit(), None);
        assert_eq!(shared.admitted(), 2);
        let zero = ServerLimits { max_requests: 0, max_seconds: 0 };
        let shared = Shared::new(Script::default(), zero, Instant::now());
        assert_eq!(shared.admit(), None);
        assert!(shared.past_deadline());
    }

    #[test]
    fn recording_without_bodies_keeps_heads() {
        let shared =
            Shared::new(Script::default().record(false), ServerLimits::default(), Instant::now());
        shared.record(
            "POST".into(),
            "/v1/embeddings".into(),
            vec![("a".into(), "b".into())],
            serde_json::json!({"input": "x"}),
            b"{\"input\":\"x\"}".to_vec(),
        );
        let recorded = shared.lock();
        assert_eq!(recorded[0].body, Value::Null);
        assert_eq!(recorded[0].raw_body, "");
        assert_eq!(recorded[0].headers.len(), 1);
    }
}
