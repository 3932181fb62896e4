//! The IDs of one call: readiness checked first (refused as `/readyz` refuses, with the same
//! state and delay), then minted through the service's one minter (64-bit) or its 128-bit
//! generators, and counted.

use tonic::Status;

use super::metrics::{GrpcMetrics, IdKind};
use super::status;
use crate::id128::{self, Id128, Kind};
use crate::serve::{App, Minter, Problem};

/// The minter, or `UNAVAILABLE` while the node is claimed, fenced or lost.
fn minter(app: &App) -> Result<&Minter, Status> {
    match (app.minter(), app.not_ready()) {
        (Some(minter), None) => Ok(minter),
        (_, Some(problem)) => Err(status::of_problem(problem)),
        (None, None) => Err(status::of_problem(Problem {
            status: axum::http::StatusCode::SERVICE_UNAVAILABLE,
            code: "unavailable",
            message: "not ready".to_owned(),
            retry_after: None,
            state: None,
        })),
    }
}

/// One 64-bit ID.
pub async fn one(app: &App, metrics: &GrpcMetrics) -> Result<u64, Status> {
    let id = minter(app)?
        .one()
        .await
        .map_err(status::of_refusal)?
        .to_u64();
    metrics.ids(IdKind::Snowflake, 1);
    app.activity.served(1);
    app.activity.reached(&app.layout, id);
    Ok(id)
}

/// Exactly `n` 64-bit IDs, ascending, given to `each`; on a refusal the IDs given so far
/// must be dropped by the caller (never handed out, never reused).
pub async fn fill(
    app: &App,
    metrics: &GrpcMetrics,
    n: u64,
    mut each: impl FnMut(u64),
) -> Result<(), Status> {
    let minter = minter(app)?;
    let layout = app.layout;
    minter
        .fill(n, |batch| {
            let mut last = None;
            for id in batch {
                let id = id.to_u64();
                each(id);
                last = Some(id);
            }
            if let Some(last) = last {
                app.activity.reached(&layout, last);
            }
        })
        .await
        .map_err(status::of_refusal)?;
    metrics.ids(IdKind::Snowflake, n);
    app.activity.served(n);
    Ok(())
}

/// The metrics' name of a 128-bit kind.
fn counted(kind: Kind) -> IdKind {
    match kind {
        Kind::Uuid7 => IdKind::Uuid7,
        Kind::Ulid => IdKind::Ulid,
    }
}

/// Exactly `n` 128-bit IDs of `kind`, ascending, given to `each`, a reservation of
/// [`id128::CHUNK`] at a time with the worker let go between them.
pub async fn fill128(
    app: &App,
    metrics: &GrpcMetrics,
    kind: Kind,
    n: u64,
    mut each: impl FnMut(Id128),
) -> Result<(), Status> {
    if let Some(problem) = app.not_ready() {
        return Err(status::of_problem(problem));
    }
    let gen = app.id128.of(kind);
    let mut left = n;
    while left > 0 {
        let chunk = usize::try_from(left).map_or(id128::CHUNK, |left| left.min(id128::CHUNK));
        gen.mint_ids(chunk, &mut each);
        metrics.ids(counted(kind), chunk as u64);
        left -= chunk as u64;
        if left > 0 {
            tokio::task::yield_now().await;
        }
    }
    Ok(())
}
