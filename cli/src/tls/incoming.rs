//! [`incoming`]: a listener's accepted connections, each handed over once its TLS handshake
//! completed, for a server that takes a stream of ready connections (tonic's
//! `serve_with_incoming`). Handshakes run concurrently, each on a task of its own, so that a
//! client that never completes its handshake delays no other.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Notify};
use tokio::task::JoinHandle;
use tokio_rustls::server::TlsStream;

use super::acceptor::accept;
use super::reload::Tls;

/// After `accept` fails (out of descriptors), how long before it is tried again.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(20);

/// Completed connections waiting for the server to take them.
const READY: usize = 64;

/// The handshakes in progress, oldest first, each told when it must give up its place.
#[derive(Default)]
struct Pending {
    next: u64,
    open: BTreeMap<u64, Arc<Notify>>,
}

/// Accepts connections on `listener` and runs each one's TLS handshake with `tls` on a task
/// of its own (at most its handshake timeout); the completed ones arrive on the receiver. At
/// most `max_pending` handshakes run at once: past that, the oldest one in progress is
/// abandoned to make room (a client that stalls its handshake is the likeliest to be the
/// oldest). The loop ends when the receiver is dropped, or the handle is aborted.
#[cfg_attr(not(test), allow(dead_code))] // Until the gRPC listener (issue 43) calls it.
pub fn incoming(
    listener: TcpListener,
    tls: Arc<Tls>,
    max_pending: usize,
) -> (mpsc::Receiver<TlsStream<TcpStream>>, JoinHandle<()>) {
    let (ready, receiver) = mpsc::channel(READY);
    let pending = Arc::new(Mutex::new(Pending::default()));
    let max_pending = max_pending.max(1);
    let task = tokio::spawn(async move {
        loop {
            let tcp = tokio::select! {
                () = ready.closed() => break,
                accepted = listener.accept() => match accepted {
                    Ok((tcp, _)) => tcp,
                    Err(_) => {
                        tokio::time::sleep(ACCEPT_BACKOFF).await;
                        continue;
                    }
                },
            };
            let _ = tcp.set_nodelay(true);
            let (key, give_up) = {
                let mut table = pending.lock().unwrap_or_else(PoisonError::into_inner);
                if table.open.len() >= max_pending {
                    if let Some((_, oldest)) = table.open.pop_first() {
                        oldest.notify_one();
                    }
                }
                let key = table.next;
                table.next += 1;
                let give_up = Arc::new(Notify::new());
                table.open.insert(key, Arc::clone(&give_up));
                (key, give_up)
            };
            let (tls, ready, pending) = (Arc::clone(&tls), ready.clone(), Arc::clone(&pending));
            tokio::spawn(async move {
                let stream = tokio::select! {
                    handshake = accept(&tls, tcp) => handshake.ok(),
                    () = give_up.notified() => None,
                };
                pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .open
                    .remove(&key);
                if let Some(stream) = stream {
                    let _ = ready.send(stream).await;
                }
            });
        }
    });
    (receiver, task)
}

#[cfg(test)]
mod tests {
    use super::super::config::Alpn;
    use super::super::test_certs::TestCerts;
    use super::*;
    use rustls::pki_types::{CertificateDer, ServerName};
    use tokio::io::AsyncReadExt;

    #[test]
    fn stalled_handshakes_give_way_to_a_client_that_completes_its_own() {
        let certs = TestCerts::make("incoming");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            // A handshake timeout far longer than the test: only the cap makes room.
            let tls = Tls::load(
                certs.files.clone(),
                Alpn::H2,
                "grpc",
                Duration::from_secs(3600),
            )
            .unwrap();
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (mut ready, task) = incoming(listener, Arc::new(tls), 2);
            let mut silent = Vec::new();
            for _ in 0..5 {
                silent.push(TcpStream::connect(addr).await.unwrap());
            }
            let mut roots = rustls::RootCertStore::empty();
            roots
                .add(CertificateDer::from(certs.ca_der.clone()))
                .unwrap();
            let mut client = rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
            client.alpn_protocols = vec![b"h2".to_vec()];
            let connector = tokio_rustls::TlsConnector::from(Arc::new(client));
            let tcp = TcpStream::connect(addr).await.unwrap();
            let name = ServerName::try_from("127.0.0.1").unwrap();
            let within = Duration::from_secs(60);
            let connected = tokio::time::timeout(within, connector.connect(name, tcp))
                .await
                .expect("the handshake completes")
                .unwrap();
            assert_eq!(connected.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
            let served = tokio::time::timeout(within, ready.recv())
                .await
                .expect("the completed connection is handed over")
                .unwrap();
            assert_eq!(served.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
            // The oldest stalled ones were closed to make room; the newest still wait.
            let mut byte = [0_u8; 1];
            let read = tokio::time::timeout(within, silent[0].read(&mut byte)).await;
            assert!(matches!(read, Ok(Ok(0))), "{read:?}");
            let read =
                tokio::time::timeout(Duration::from_millis(200), silent[4].read(&mut byte)).await;
            assert!(
                read.is_err(),
                "the newest stalled handshake is still open: {read:?}"
            );
            drop(silent);
            task.abort();
        });
    }
}
