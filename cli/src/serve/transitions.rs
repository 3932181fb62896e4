//! The lease's state changes on standard error: a line when the service fences itself (with
//! the cause), when it mints again (and after how long), and when the lease is lost, so
//! that an operator reading the log sees the 503s' reason and their end.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::readiness::State;
use super::App;

/// How often the state is looked at: a fence shorter than this may go unlogged (its 503s
/// are counted all the same).
const EVERY: Duration = Duration::from_millis(250);

/// The line for a change from `before` to `now`, given when the fence began.
fn line(before: &State, now: &State, fenced_for: Option<Duration>) -> Option<String> {
    match (before, now) {
        (State::Fenced { .. }, State::Fenced { .. }) | (State::Lost { .. }, _) => None,
        (_, State::Fenced { node, cause }) => Some(format!(
            "node {node} fenced: not minting (503 with Retry-After) until the lease is proven \
             again; cause: {cause}"
        )),
        (State::Fenced { node, .. }, State::Ready { .. }) => Some(format!(
            "node {node} minting again: the lease was proven after {:.1} s fenced",
            fenced_for.unwrap_or_default().as_secs_f64()
        )),
        (_, State::Lost { node }) => Some(format!(
            "node {node} lost: another process holds it; this one mints no more"
        )),
        _ => None,
    }
}

/// Logs the leased service's state changes through `say` until aborted.
pub fn spawn(app: Arc<App>, say: fn(std::fmt::Arguments<'_>)) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        if app.lease.is_none() {
            return;
        }
        let mut every = tokio::time::interval(EVERY);
        let mut before = app.state();
        let mut fenced_at: Option<Instant> = None;
        loop {
            every.tick().await;
            let now = app.state();
            if now.name() == before.name() {
                continue;
            }
            if let Some(text) = line(&before, &now, fenced_at.map(|at| at.elapsed())) {
                say(format_args!("{text}"));
            }
            fenced_at = match now {
                State::Fenced { .. } => fenced_at.or_else(|| Some(Instant::now())),
                _ => None,
            };
            before = now;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fencing_recovery_and_loss_each_get_a_line() {
        let ready = State::Ready { node: 3 };
        let fenced = State::Fenced {
            node: 3,
            cause: "no renewal: connection refused".into(),
        };
        let said = line(&ready, &fenced, None).unwrap();
        assert!(
            said.contains("fenced") && said.contains("connection refused"),
            "{said}"
        );
        let said = line(&fenced, &ready, Some(Duration::from_millis(7_200))).unwrap();
        assert!(
            said.contains("minting again") && said.contains("7.2 s"),
            "{said}"
        );
        assert!(line(&ready, &State::Lost { node: 3 }, None)
            .unwrap()
            .contains("lost"));
        assert!(line(&ready, &ready, None).is_none());
    }
}
