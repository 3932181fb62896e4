//! [`Limits`]: what bounds the gRPC listener, from the `--grpc-*` flags.

use std::time::Duration;

use crate::serve::GrpcArgs;

/// A chunk's size when the client names none (`chunk_size` 0): 4,096 IDs, 32 KiB of 64-bit
/// IDs, as ferroid's server sends.
pub const DEFAULT_CHUNK: u32 = 4_096;

/// How often an idle HTTP/2 connection is pinged; a peer that does not answer within
/// [`KEEPALIVE_TIMEOUT`] is dropped, so a vanished client holds no connection for long.
pub const KEEPALIVE_EVERY: Duration = Duration::from_secs(30);

/// How long the answer to a keep-alive ping may take.
pub const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(10);

/// The gRPC listener's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once; past it new ones wait in the accept queue.
    pub max_connections: usize,
    /// Calls open at once on one connection (HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS).
    pub max_streams: u32,
    /// IDs per chunk of `StreamIds`, at most.
    pub max_chunk: u32,
    /// IDs per batch call, at most: the service's `--max-batch`.
    pub max_batch: u64,
    /// How long a unary call may take.
    pub timeout: Duration,
}

impl Limits {
    /// The limits the flags set, the batch bound being HTTP's `--max-batch`.
    pub fn of(args: &GrpcArgs, max_batch: u64) -> Limits {
        Limits {
            max_connections: args.grpc_max_connections,
            max_streams: args.grpc_max_streams,
            max_chunk: args.grpc_max_chunk,
            max_batch,
            timeout: args.grpc_timeout,
        }
    }

    /// The chunk size a request asks for (0: [`DEFAULT_CHUNK`], at most `max_chunk`), or
    /// the allowed range.
    pub fn chunk(&self, asked: u32) -> Result<u32, String> {
        match asked {
            0 => Ok(DEFAULT_CHUNK.min(self.max_chunk)),
            n if n <= self.max_chunk => Ok(n),
            n => Err(format!(
                "chunk_size {n} is out of range: 1 to {} (--grpc-max-chunk), or 0 for {}",
                self.max_chunk,
                DEFAULT_CHUNK.min(self.max_chunk)
            )),
        }
    }

    /// The count of a batch call, 1 to `max_batch`, or the allowed range.
    pub fn batch(&self, count: u64) -> Result<u64, String> {
        if (1..=self.max_batch).contains(&count) {
            Ok(count)
        } else {
            Err(format!(
                "count {count} is out of range: 1 to {} (--max-batch)",
                self.max_batch
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            max_connections: 1,
            max_streams: 1,
            max_chunk: 1_000,
            max_batch: 10,
            timeout: Duration::from_secs(1),
        }
    }

    #[test]
    fn chunks_and_batches_are_held_to_their_ranges() {
        let l = limits();
        assert_eq!(l.chunk(0), Ok(1_000));
        assert_eq!(l.chunk(1), Ok(1));
        assert_eq!(l.chunk(1_000), Ok(1_000));
        assert_eq!(
            l.chunk(1_001).unwrap_err(),
            "chunk_size 1001 is out of range: 1 to 1000 (--grpc-max-chunk), or 0 for 1000"
        );
        assert_eq!(l.batch(10), Ok(10));
        assert_eq!(
            l.batch(0).unwrap_err(),
            "count 0 is out of range: 1 to 10 (--max-batch)"
        );
        assert!(l.batch(11).is_err());
    }
}
