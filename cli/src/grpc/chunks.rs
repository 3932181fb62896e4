//! [`Chunks`]: the stream of `StreamIds`, packed chunks of IDs minted only when the
//! connection asks for the next one.
//!
//! Back-pressure: the stream is pulled, not pushed. No task mints ahead: a chunk is minted
//! when tonic polls for the next item, which hyper does only while HTTP/2 flow control leaves
//! the stream room to send. A client that stops reading stops the minting once its window and
//! the socket's buffers are full; the server holds at most the one chunk being minted. Every
//! chunk is counted in `snowmint_grpc_ids_total` as it is minted.
//!
//! Values are packed big-endian (proto/snowmint/v1/snowmint.proto says why): 8 bytes per
//! 64-bit ID, the canonical 16 bytes per UUIDv7 or ULID.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::sync::watch;
use tokio_stream::Stream;
use tonic::{Code, Status};

use super::metrics::{GrpcMetrics, Method};
use super::mint;
use super::proto::IdChunk;
use crate::id128::Kind;
use crate::serve::App;

/// What a stream carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    /// 64-bit IDs, 8 bytes each.
    Snowflake,
    /// UUIDv7s or ULIDs, 16 bytes each.
    Wide(Kind),
}

impl Packing {
    /// Bytes per ID.
    pub fn width(self) -> usize {
        match self {
            Packing::Snowflake => 8,
            Packing::Wide(_) => 16,
        }
    }
}

/// A chunk being minted.
type Minting = Pin<Box<dyn Future<Output = Result<Vec<u8>, Status>> + Send>>;

/// The IDs of one `StreamIds` call, a chunk per poll.
pub struct Chunks {
    app: Arc<App>,
    metrics: Arc<GrpcMetrics>,
    packing: Packing,
    /// IDs per chunk.
    chunk: u64,
    /// IDs still to send; `None`: no end.
    left: Option<u64>,
    /// The chunk being minted and its count.
    minting: Option<(Minting, u64)>,
    /// Set when the service stops: the stream ends with `UNAVAILABLE` at its next chunk.
    stopping: watch::Receiver<bool>,
    /// Counted in the metrics (at its end, a drop before it being the client's cancel).
    finished: bool,
}

impl Chunks {
    /// A stream of `count` IDs (`0`: no end) in chunks of `chunk` (at least 1).
    pub fn new(
        app: Arc<App>,
        metrics: Arc<GrpcMetrics>,
        packing: Packing,
        chunk: u32,
        count: u64,
        stopping: watch::Receiver<bool>,
    ) -> Chunks {
        metrics.streams(1.0);
        Chunks {
            app,
            metrics,
            packing,
            chunk: u64::from(chunk.max(1)),
            left: (count > 0).then_some(count),
            minting: None,
            stopping,
            finished: false,
        }
    }

    fn finish(&mut self, code: Code) {
        if !self.finished {
            self.finished = true;
            self.metrics.finished(Method::StreamIds, code);
            self.metrics.streams(-1.0);
        }
    }
}

impl Drop for Chunks {
    fn drop(&mut self) {
        // Dropped before its end: the client cancelled or went away.
        self.finish(Code::Cancelled);
    }
}

/// Mints one chunk of `n` IDs, packed.
async fn mint_chunk(
    app: Arc<App>,
    metrics: Arc<GrpcMetrics>,
    packing: Packing,
    n: u64,
) -> Result<Vec<u8>, Status> {
    let bytes = usize::try_from(n).unwrap_or(usize::MAX) * packing.width();
    let mut packed = Vec::with_capacity(bytes);
    match packing {
        Packing::Snowflake => {
            mint::fill(&app, &metrics, n, |id| {
                packed.extend_from_slice(&id.to_be_bytes());
            })
            .await?;
        }
        Packing::Wide(kind) => {
            mint::fill128(&app, &metrics, kind, n, |id| {
                packed.extend_from_slice(&id.to_bytes());
            })
            .await?;
        }
    }
    Ok(packed)
}

impl Stream for Chunks {
    type Item = Result<IdChunk, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.finished {
            return Poll::Ready(None);
        }
        if this.minting.is_none() {
            let n = match this.left {
                Some(0) => {
                    this.finish(Code::Ok);
                    return Poll::Ready(None);
                }
                Some(left) => left.min(this.chunk),
                None => this.chunk,
            };
            if *this.stopping.borrow() {
                this.finish(Code::Unavailable);
                return Poll::Ready(Some(Err(Status::unavailable(
                    "the service is stopping (SIGTERM or Ctrl-C): open a new stream to another \
                     instance, or to this one once it is back",
                ))));
            }
            let minting = mint_chunk(
                Arc::clone(&this.app),
                Arc::clone(&this.metrics),
                this.packing,
                n,
            );
            this.minting = Some((Box::pin(minting), n));
        }
        let Some((minting, n)) = this.minting.as_mut() else {
            return Poll::Ready(None);
        };
        let n = *n;
        match minting.as_mut().poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(packed)) => {
                this.minting = None;
                if let Some(left) = this.left.as_mut() {
                    *left -= n;
                }
                Poll::Ready(Some(Ok(IdChunk { packed })))
            }
            Poll::Ready(Err(status)) => {
                this.minting = None;
                this.finish(status.code());
                Poll::Ready(Some(Err(status)))
            }
        }
    }
}
