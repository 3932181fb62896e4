//! [`Listener`]: the gRPC port, its accepted connections and the tonic server over them.
//!
//! Connections come in through one function, [`accepted`]: it takes a connection from the
//! listening socket once fewer than `--grpc-max-connections` are open, and hands it to tonic
//! as an [`Accepted`], which gives the slot back when the connection closes. With TLS
//! (`--tls-cert`), each accepted socket's handshake runs on a task of its own, holding its slot
//! for at most `--tls-handshake-timeout`, and the connection is handed over once it completes.

use std::future::Future;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::server::{Connected, TcpConnectInfo};
use tonic::transport::Server;

use super::health;
use super::limits::{Limits, KEEPALIVE_EVERY, KEEPALIVE_TIMEOUT};
use super::metrics::GrpcMetrics;
use super::proto::id_service_server::IdServiceServer;
use super::service::Service;
use crate::serve::App;
use crate::tls::Tls;

/// The encoded `FileDescriptorSet` of proto/snowmint/v1/snowmint.proto, for reflection.
const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!("snowmint_v1.fds");

/// After a failed `accept` (out of descriptors, say), how long before the next.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// The bound gRPC port.
pub struct Listener {
    listener: TcpListener,
    addr: SocketAddr,
}

/// Binds `addr`.
///
/// # Errors
///
/// The bind's error (the address in use, not this host's).
pub async fn bind(addr: SocketAddr) -> io::Result<Listener> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    Ok(Listener { listener, addr })
}

impl Listener {
    /// The address bound (the port chosen when asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves `snowmint.v1.IdService`, the health service and reflection until `stop`
    /// resolves; then takes no new connections or calls, ends open streams with
    /// `UNAVAILABLE`, reports `NOT_SERVING`, and returns once the calls in flight finish.
    ///
    /// # Errors
    ///
    /// tonic's, if the server fails.
    pub async fn serve(
        self,
        app: Arc<App>,
        limits: Limits,
        tls: Option<Arc<Tls>>,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), tonic::transport::Error> {
        let (stopping_tx, stopping) = watch::channel(false);
        let metrics = Arc::new(GrpcMetrics::new());
        let (reporter, health_service) = tonic_health::server::health_reporter();
        health::report(&reporter, health::status_of(&app)).await;
        let follow = tokio::spawn(health::follow(Arc::clone(&app), reporter, stopping.clone()));
        let reflection = tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .build_v1();
        let reflection = match reflection {
            Ok(reflection) => reflection,
            Err(e) => {
                say(format_args!("reflection is off: {e}"));
                follow.abort();
                return Ok(());
            }
        };
        let ids = IdServiceServer::new(Service::new(app, limits, metrics, stopping));
        let served = Server::builder()
            .max_concurrent_streams(Some(limits.max_streams))
            .timeout(limits.timeout)
            .http2_keepalive_interval(Some(KEEPALIVE_EVERY))
            .http2_keepalive_timeout(Some(KEEPALIVE_TIMEOUT))
            .add_service(health_service)
            .add_service(reflection)
            .add_service(ids)
            .serve_with_incoming_shutdown(
                accepted(self.listener, limits.max_connections, tls),
                async move {
                    stop.await;
                    let _ = stopping_tx.send(true);
                },
            )
            .await;
        follow.abort();
        served
    }
}

/// A line on standard error (never a panic if it is closed).
fn say(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "snowmint serve: gRPC: {line}");
}

/// The connections `listener` accepts, at most `max` open at once: past it, the next is
/// accepted only when one closes (meanwhile new ones wait in the kernel's accept queue). With
/// `tls`, each is handed over once its handshake completes (on a task of its own, so that a
/// slow handshake delays no other); one that fails or times out is dropped (and counted).
/// Ends when tonic drops the stream (at shutdown), which closes the listening socket.
fn accepted(
    listener: TcpListener,
    max: usize,
    tls: Option<Arc<Tls>>,
) -> ReceiverStream<io::Result<Accepted<Box<dyn Io>>>> {
    let (tx, rx) = mpsc::channel(1);
    let slots = Arc::new(Semaphore::new(max));
    tokio::spawn(async move {
        loop {
            let slot = tokio::select! {
                slot = Arc::clone(&slots).acquire_owned() => slot,
                () = tx.closed() => return,
            };
            let Ok(slot) = slot else { return };
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = tx.closed() => return,
            };
            match accepted {
                Ok((stream, remote)) => {
                    // Small answers (one ID) go out at once.
                    let _ = stream.set_nodelay(true);
                    let info = TcpConnectInfo {
                        local_addr: stream.local_addr().ok(),
                        remote_addr: Some(remote),
                    };
                    match &tls {
                        None => {
                            let connection = Accepted {
                                io: Box::new(stream) as Box<dyn Io>,
                                info,
                                _slot: slot,
                            };
                            if tx.send(Ok(connection)).await.is_err() {
                                return;
                            }
                        }
                        Some(tls) => {
                            let (tls, tx) = (Arc::clone(tls), tx.clone());
                            tokio::spawn(async move {
                                // A failed handshake is counted by `accept`; its slot is freed here.
                                if let Ok(stream) = crate::tls::accept(&tls, stream).await {
                                    let connection = Accepted {
                                        io: Box::new(stream) as Box<dyn Io>,
                                        info,
                                        _slot: slot,
                                    };
                                    let _ = tx.send(Ok(connection)).await;
                                }
                            });
                        }
                    }
                }
                Err(e) => {
                    say(format_args!("accepting a connection: {e}; trying again"));
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            }
        }
    });
    ReceiverStream::new(rx)
}

/// A connection's byte stream, plain TCP or TLS over it.
pub trait Io: AsyncRead + AsyncWrite + Send + Unpin + 'static {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Io for T {}

/// An accepted connection holding its slot of `--grpc-max-connections` until it closes.
pub struct Accepted<IO> {
    io: IO,
    info: TcpConnectInfo,
    _slot: OwnedSemaphorePermit,
}

impl<IO> Connected for Accepted<IO> {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.info.clone()
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Accepted<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Accepted<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
