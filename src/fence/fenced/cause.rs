//! [`Fenced::fence_cause`]: why the fence refuses now, read from its state.

use super::Fenced;
use crate::clock::Clock;
use crate::fence::gate::{lock, Status};
use crate::fence::FenceCause;
use crate::id::Id;
use crate::source::IdSource;

impl<S: IdSource> Fenced<S> {
    /// Why the source refuses to mint now (`None` while it mints): the node lost, the
    /// hold's deadline passed (with the last renewal's error, if it failed), or the clock not
    /// yet past the node's floor. Read from the fence's state with an exact clock reading,
    /// without minting.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-cause-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert!(gen.fence_cause().is_none());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fence_cause(&self) -> Option<FenceCause> {
        let now = self.gate.clock.now_unix_nanos();
        let status = lock(&self.gate.status);
        if let Status::Lost(cause) = &*status {
            return Some(FenceCause::Lost(cause.clone()));
        }
        if !self.gate.window.is_open(now) {
            return Some(match &*status {
                Status::Failing(cause) => FenceCause::RenewalFailed(cause.clone()),
                _ => FenceCause::Deadline,
            });
        }
        drop(status);
        self.before_floor(now).then(|| FenceCause::BeforeFloor {
            floor_unix_millis: self
                .gate
                .layout
                .decode(Id::from_u64(self.gate.window.low()))
                .unix_millis(),
        })
    }

    /// Whether a clock reading of `now` is not yet past the floor (the previous holder's
    /// mark, or the forgetting rule's wait after a claim): IDs minted now would be refused.
    pub(super) fn before_floor(&self, now: u64) -> bool {
        let low = self.gate.window.low();
        low != 0 && u128::from(now) < self.gate.layout.decode(Id::from_u64(low)).unix_nanos()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use crate::clock::ManualClock;
    use crate::fence::{FenceCause, Fenced, Keeper, Note, Renewal};
    use crate::generator::Generator;
    use crate::layout::Layout;

    const T0: u64 = 1_700_000_000_000;

    /// Scripted renewals, one per call: the first holds IDs up to T0 + 10 s for 1 s of the
    /// clock above the floor `floor` (Unix ms); then each of `then` in turn.
    struct Script {
        floor: Option<Option<u64>>,
        then: Vec<Renewal>,
    }

    impl Keeper for Script {
        fn renew(&mut self, now: u64) -> Renewal {
            match self.floor.take() {
                Some(floor) => Renewal::Held {
                    limit_unix_millis: T0 + 10_000,
                    valid_until_nanos: now + 1_000_000_000,
                    floor_unix_millis: floor,
                },
                None => self.then.pop().expect("scripted"),
            }
        }
        fn release(&mut self, _: Option<u64>) {}
        fn period(&self, _: bool) -> Duration {
            Duration::from_secs(3_600)
        }
    }

    fn fenced(
        clock: &ManualClock,
        floor: u64,
        then: Vec<Renewal>,
    ) -> Fenced<Generator<ManualClock>> {
        let gen = Generator::builder(Layout::TWITTER)
            .clock(clock.clone())
            .node(1)
            .build()
            .unwrap();
        Fenced::start_with(
            gen,
            1,
            Box::new(Script {
                floor: Some(Some(floor).filter(|&f| f > 0)),
                then,
            }),
            None,
            false,
        )
    }

    #[test]
    fn the_cause_names_the_floor_the_deadline_the_failed_renewal_and_the_loss() {
        let clock = ManualClock::at_unix_millis(T0);
        let gen = fenced(&clock, T0 + 500, Vec::new());
        match gen.fence_cause() {
            Some(FenceCause::BeforeFloor { floor_unix_millis }) => {
                assert!(floor_unix_millis > T0 && floor_unix_millis <= T0 + 501)
            }
            other => panic!("{other:?}"),
        }
        assert!(gen.is_fenced() && gen.next_id().is_err());
        clock.advance(Duration::from_millis(600));
        assert!(
            gen.fence_cause().is_none(),
            "past the floor, inside the deadline"
        );
        assert!(gen.next_id().is_ok());
        clock.advance(Duration::from_millis(500));
        assert!(matches!(gen.fence_cause(), Some(FenceCause::Deadline)));
        assert_eq!(
            gen.fence_cause().unwrap().to_string(),
            "the hold's deadline passed before a renewal arrived"
        );

        let failing = fenced(
            &clock,
            0,
            vec![Renewal::Failed(Arc::new(Note::new("connection refused")))],
        );
        failing.renew();
        clock.advance(Duration::from_secs(2));
        let cause = failing.fence_cause().unwrap();
        assert!(matches!(cause, FenceCause::RenewalFailed(_)), "{cause:?}");
        assert!(
            cause.to_string().ends_with("failed: connection refused"),
            "{cause}"
        );

        let lost = fenced(
            &clock,
            0,
            vec![Renewal::Lost(Arc::new(Note::new(
                "another owner holds node 1",
            )))],
        );
        lost.renew();
        let cause = lost.fence_cause().unwrap();
        assert!(matches!(cause, FenceCause::Lost(_)));
        assert_eq!(
            cause.to_string(),
            "the node is lost to another owner: another owner holds node 1"
        );
    }
}
