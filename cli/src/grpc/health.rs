//! `grpc.health.v1.Health` following the same readiness as `GET /readyz`: `SERVING` while
//! the service mints, `NOT_SERVING` while its node is claimed, its lease fenced or lost, and
//! from the moment it starts stopping. Both the server as a whole (`""`) and
//! `snowmint.v1.IdService` are reported.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tonic_health::server::HealthReporter;
use tonic_health::ServingStatus;

use super::proto::id_service_server::SERVICE_NAME;
use crate::serve::App;

/// How often readiness is looked at: a fence shows in the health service within this.
pub const FOLLOW_EVERY: Duration = Duration::from_millis(100);

/// Reports `status` for the server and for `snowmint.v1.IdService`.
pub async fn report(reporter: &HealthReporter, status: ServingStatus) {
    reporter.set_service_status("", status).await;
    reporter.set_service_status(SERVICE_NAME, status).await;
}

/// Keeps `reporter` at the service's readiness until `stopping` is set, then reports
/// `NOT_SERVING` for good.
pub async fn follow(app: Arc<App>, reporter: HealthReporter, mut stopping: watch::Receiver<bool>) {
    let mut every = tokio::time::interval(FOLLOW_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last = None;
    loop {
        let stopped = tokio::select! {
            _ = every.tick() => false,
            _ = stopping.wait_for(|stopping| *stopping) => true,
        };
        if stopped {
            report(&reporter, ServingStatus::NotServing).await;
            return;
        }
        let status = status_of(&app);
        if last != Some(status) {
            report(&reporter, status).await;
            last = Some(status);
        }
    }
}

/// The health status of the service's readiness now.
pub fn status_of(app: &App) -> ServingStatus {
    if app.state().is_ready() {
        ServingStatus::Serving
    } else {
        ServingStatus::NotServing
    }
}
