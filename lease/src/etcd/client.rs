//! [`EtcdClient`]: etcd's gRPC API (`etcdserverpb`, etcd 3.4 and later) over tonic, on a
//! current-thread tokio runtime of the client's own, so that every call blocks its caller: one
//! HTTP/2 channel per endpoint (plain or TLS), tried in turn, each call bounded by the I/O
//! timeout, with etcd's authentication token in the `token` metadata when a user is set.

use std::future::Future;
use std::time::Duration;

use tonic::metadata::{AsciiMetadataValue, MetadataValue};
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};
use tonic::{Code, Request, Response, Status};

use super::proto::auth_client::AuthClient;
use super::proto::kv_client::KvClient;
use super::proto::lease_client::LeaseClient;
use super::proto::{
    AuthenticateRequest, LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest,
    LeaseKeepAliveResponse, LeaseRevokeRequest, LeaseRevokeResponse, LeaseTimeToLiveRequest,
    LeaseTimeToLiveResponse, RangeRequest, RangeResponse, TxnRequest, TxnResponse,
};
use super::security::Security;
use crate::{LeaseError, Password, StoreErrorKind};

/// Why a call got no answer from any endpoint, or a refusal from one: the endpoint of the
/// last attempt and what happened there, in etcd's words when etcd answered (the gRPC status
/// and its message), else the step that failed (connect, TLS, the I/O timeout).
///
/// ```
/// let e = snowmint_lease::etcd::CallError {
///     endpoint: "10.0.0.5:2379".to_string(),
///     reason: "etcd answered InvalidArgument: etcdserver: authentication failed, \
///              invalid user ID or password"
///         .to_string(),
/// };
/// assert!(e.to_string().starts_with("10.0.0.5:2379: etcd answered InvalidArgument: "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    /// The endpoint of the last attempt (`host:port`).
    pub endpoint: String,
    /// What went wrong there.
    pub reason: String,
}

impl core::fmt::Display for CallError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.endpoint, self.reason)
    }
}

impl std::error::Error for CallError {}

/// How one attempt on one endpoint failed.
enum Fault {
    /// etcd answered with an error status that every member would give (permission denied,
    /// a lease not found, a refused password): not tried on another endpoint.
    Refused(String),
    /// No answer (connect, TLS, the timeout, a broken connection), or one this member alone
    /// gives (no leader, a request timed out inside the cluster): the next endpoint is tried.
    Unreached(String),
}

/// The cluster's client endpoints, a channel to each (made on first use), the one that
/// answered last, and the user's token.
pub(crate) struct EtcdClient {
    /// `host:port` of each member.
    endpoints: Vec<String>,
    /// The channel to each endpoint; `None` until used, and again after it failed (a new
    /// connection next time, never one stuck on a dead peer).
    channels: Vec<Option<Channel>>,
    /// The endpoint that answered last: tried first.
    current: usize,
    timeout: Duration,
    /// `Some` for `https`: the roots and the client certificate.
    tls: Option<ClientTlsConfig>,
    /// etcd's user and password, if the cluster has authentication on and the user is not
    /// the client certificate's common name.
    user: Option<(String, Password)>,
    /// The token `Authenticate` gave, sent as `token` metadata until etcd refuses it.
    token: Option<AsciiMetadataValue>,
    /// Runs the calls; `None` only while being dropped.
    runtime: Option<tokio::runtime::Runtime>,
}

impl EtcdClient {
    /// A client for `endpoints`; connects nothing yet.
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the runtime cannot be made (no thread, no timer).
    pub(crate) fn new(
        endpoints: Vec<String>,
        timeout: Duration,
        security: &Security,
    ) -> Result<EtcdClient, LeaseError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| {
                super::error::etcd_error(
                    "start the etcd client's runtime",
                    StoreErrorKind::Unexpected,
                    e,
                )
            })?;
        Ok(EtcdClient {
            channels: endpoints.iter().map(|_| None).collect(),
            endpoints,
            current: 0,
            timeout,
            tls: security.tls_config(timeout),
            user: security.user.clone(),
            token: None,
            runtime: Some(runtime),
        })
    }

    /// `KV.Range`.
    pub(crate) fn range(&mut self, request: RangeRequest) -> Result<RangeResponse, CallError> {
        self.call(request, |channel, request| async move {
            KvClient::new(channel).range(request).await
        })
    }

    /// `KV.Txn`.
    pub(crate) fn txn(&mut self, request: TxnRequest) -> Result<TxnResponse, CallError> {
        self.call(request, |channel, request| async move {
            KvClient::new(channel).txn(request).await
        })
    }

    /// `Lease.LeaseGrant`.
    pub(crate) fn lease_grant(
        &mut self,
        request: LeaseGrantRequest,
    ) -> Result<LeaseGrantResponse, CallError> {
        self.call(request, |channel, request| async move {
            LeaseClient::new(channel).lease_grant(request).await
        })
    }

    /// `Lease.LeaseRevoke`.
    pub(crate) fn lease_revoke(
        &mut self,
        request: LeaseRevokeRequest,
    ) -> Result<LeaseRevokeResponse, CallError> {
        self.call(request, |channel, request| async move {
            LeaseClient::new(channel).lease_revoke(request).await
        })
    }

    /// `Lease.LeaseTimeToLive`.
    pub(crate) fn lease_time_to_live(
        &mut self,
        request: LeaseTimeToLiveRequest,
    ) -> Result<LeaseTimeToLiveResponse, CallError> {
        self.call(request, |channel, request| async move {
            LeaseClient::new(channel).lease_time_to_live(request).await
        })
    }

    /// One keep-alive of a lease: `Lease.LeaseKeepAlive` with a stream of one request, and
    /// its first answer (a TTL of 0: etcd no longer has the lease).
    pub(crate) fn lease_keep_alive(
        &mut self,
        request: LeaseKeepAliveRequest,
    ) -> Result<LeaseKeepAliveResponse, CallError> {
        self.call(request, |channel, request| async move {
            let (metadata, extensions, message) = request.into_parts();
            let once = Request::from_parts(metadata, extensions, tokio_stream::once(message));
            let mut answers = LeaseClient::new(channel)
                .lease_keep_alive(once)
                .await?
                .into_inner();
            match answers.message().await? {
                Some(answer) => Ok(Response::new(answer)),
                None => Err(Status::unavailable(
                    "the keep-alive stream ended without an answer",
                )),
            }
        })
    }

    /// Sends `request` with `send` to the endpoint that answered last, then to each of the
    /// others: the first answer, etcd's refusal, or the last failure if none answered. A call
    /// that timed out may have been applied: callers make every call safe to repeat.
    fn call<Req, Resp, Fut>(
        &mut self,
        request: Req,
        send: impl Fn(Channel, Request<Req>) -> Fut,
    ) -> Result<Resp, CallError>
    where
        Req: Clone,
        Fut: Future<Output = Result<Response<Resp>, Status>> + Send,
        Resp: Send,
    {
        let mut last = None;
        for i in 0..self.endpoints.len() {
            let at = (self.current + i) % self.endpoints.len();
            match self.on_endpoint(at, &request, &send) {
                Ok(answer) => {
                    self.current = at;
                    return Ok(answer);
                }
                Err(Fault::Refused(reason)) => {
                    self.current = at;
                    return Err(self.error(at, reason));
                }
                Err(Fault::Unreached(reason)) => last = Some(self.error(at, reason)),
            }
        }
        Err(last.unwrap_or(CallError {
            endpoint: String::new(),
            reason: "no endpoint given".to_string(),
        }))
    }

    fn error(&self, at: usize, reason: String) -> CallError {
        CallError {
            endpoint: self.endpoints[at].clone(),
            reason,
        }
    }

    /// One call to endpoint `at`, with the token when a user is set: authenticates first if
    /// there is none, and once more (then sends again) when etcd refuses the one it has
    /// (expired, or older than a change of users or roles).
    fn on_endpoint<Req, Resp, Fut>(
        &mut self,
        at: usize,
        request: &Req,
        send: &impl Fn(Channel, Request<Req>) -> Fut,
    ) -> Result<Resp, Fault>
    where
        Req: Clone,
        Fut: Future<Output = Result<Response<Resp>, Status>> + Send,
        Resp: Send,
    {
        for fresh in [false, true] {
            if self.user.is_some() && (fresh || self.token.is_none()) {
                self.token = Some(self.authenticate(at)?);
            }
            let mut message = Request::new(request.clone());
            if let Some(token) = &self.token {
                message.metadata_mut().insert("token", token.clone());
            }
            let channel = self.channel(at)?;
            match self.run(at, send(channel, message)) {
                Err(Fault::Refused(reason))
                    if !fresh && self.user.is_some() && token_refused(&reason) =>
                {
                    self.token = None;
                }
                other => return other.map(Response::into_inner),
            }
        }
        unreachable!("the second pass returns")
    }

    /// A token for the user from endpoint `at`; a refused password is [`Fault::Refused`] with
    /// etcd's answer.
    fn authenticate(&mut self, at: usize) -> Result<AsciiMetadataValue, Fault> {
        let Some((name, password)) = self.user.clone() else {
            return Err(Fault::Refused("no user".to_string()));
        };
        let request = AuthenticateRequest {
            name: name.clone(),
            password: password.expose().to_string(),
        };
        let channel = self.channel(at)?;
        let answer = self
            .run(at, async move {
                AuthClient::new(channel).authenticate(request).await
            })
            .map_err(|fault| match fault {
                Fault::Refused(why) => {
                    Fault::Refused(format!("authenticate as user {name:?}: {why}"))
                }
                Fault::Unreached(why) => {
                    Fault::Unreached(format!("authenticate as user {name:?}: {why}"))
                }
            })?;
        MetadataValue::try_from(answer.into_inner().token).map_err(|_| {
            Fault::Refused(format!(
                "authenticate as user {name:?}: etcd gave a token that is not ASCII"
            ))
        })
    }

    /// The channel to endpoint `at`, made (not connected) if there is none.
    fn channel(&mut self, at: usize) -> Result<Channel, Fault> {
        if let Some(channel) = &self.channels[at] {
            return Ok(channel.clone());
        }
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        let url = format!("{scheme}://{}", self.endpoints[at]);
        let mut endpoint = Endpoint::from_shared(url)
            .map_err(|e| Fault::Refused(format!("not a valid endpoint ({e})")))?
            .connect_timeout(self.timeout);
        if let Some(tls) = &self.tls {
            endpoint = endpoint
                .tls_config(tls.clone())
                .map_err(|e| Fault::Refused(format!("TLS: {}", chain(&e))))?;
        }
        // A lazy channel spawns its worker on the runtime it is made in.
        let _inside = self.runtime().enter();
        let channel = endpoint.connect_lazy();
        self.channels[at] = Some(channel.clone());
        Ok(channel)
    }

    /// Runs one call on the client's runtime, bounded by the timeout; a call that gets no
    /// answer drops the endpoint's channel.
    fn run<T, Fut>(&mut self, at: usize, call: Fut) -> Result<Response<T>, Fault>
    where
        Fut: Future<Output = Result<Response<T>, Status>> + Send,
        T: Send,
    {
        let timeout = self.timeout;
        let bounded = async move { tokio::time::timeout(timeout, call).await };
        let outcome = if tokio::runtime::Handle::try_current().is_ok() {
            // Called from inside an async runtime (where blocking on another panics): block
            // a thread of our own instead.
            let runtime = self.runtime();
            std::thread::scope(|s| {
                s.spawn(|| runtime.block_on(bounded))
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        } else {
            self.runtime().block_on(bounded)
        };
        let fault = match outcome {
            Ok(Ok(answer)) => return Ok(answer),
            Ok(Err(status)) => classify(&status),
            Err(_) => Fault::Unreached(format!("no answer within the I/O timeout ({timeout:?})")),
        };
        if matches!(fault, Fault::Unreached(_)) {
            self.channels[at] = None;
        }
        Err(fault)
    }

    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime
            .as_ref()
            .expect("the runtime lives until the client is dropped")
    }
}

impl Drop for EtcdClient {
    /// Stops the runtime without waiting for its tasks (connections being closed): dropping it
    /// plainly would block, which panics inside an async runtime.
    fn drop(&mut self) {
        self.channels.clear();
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// What a failed call's status says: etcd's answer (a status without a source came from the
/// server), or the step of the connection that failed.
fn classify(status: &Status) -> Fault {
    if std::error::Error::source(status).is_some() {
        return Fault::Unreached(transport(status));
    }
    let reason = format!("etcd answered {:?}: {}", status.code(), status.message());
    match status.code() {
        // No leader, a request timed out in the cluster, a member stopping or overloaded, a
        // broken stream: another member may answer.
        Code::Unavailable
        | Code::DeadlineExceeded
        | Code::ResourceExhausted
        | Code::Cancelled
        | Code::Unknown
        | Code::Internal => Fault::Unreached(reason),
        _ => Fault::Refused(reason),
    }
}

/// A transport failure in words that name the step: `connect: ...` (refused, unreachable),
/// `TLS: ...` (a certificate refused, either way), else `connection: ...`, with the
/// connection's error and its causes.
fn transport(status: &Status) -> String {
    let mut words = vec![status.message().to_string()];
    let mut refused = false;
    let mut next = std::error::Error::source(status);
    while let Some(e) = next {
        let text = e.to_string();
        if !text.is_empty() && !words.iter().any(|w| w.contains(&text)) {
            words.push(text);
        }
        refused |= e.downcast_ref::<std::io::Error>().is_some_and(|io| {
            matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::AddrNotAvailable
            )
        });
        next = e.source();
    }
    let causes = words.join(": ");
    let lower = causes.to_lowercase();
    if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake") {
        format!("TLS: {causes}")
    } else if refused || lower.contains("tcp connect") || lower.contains("dns") {
        format!("connect: {causes}")
    } else {
        format!("connection: {causes}")
    }
}

/// An error and its sources, joined with `: `, each said once (wrappers often repeat their
/// source's words).
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(e) = next {
        let text = e.to_string();
        if !text.is_empty() && !words.iter().any(|w| w.contains(&text)) {
            words.push(text);
        }
        next = e.source();
    }
    words.join(": ")
}

/// Whether etcd refused the token itself (not the user's rights): an expired or unknown
/// token, one issued before the users or roles changed, or none sent.
fn token_refused(reason: &str) -> bool {
    reason.contains("invalid auth token")
        || reason.contains("revision of auth store is old")
        || reason.contains("user name is empty")
}

#[cfg(test)]
mod tests {
    use super::{classify, token_refused, Fault};
    use tonic::Status;

    #[test]
    fn a_refusal_quotes_the_status_and_etcds_message() {
        let denied = Status::permission_denied("etcdserver: permission denied");
        assert!(matches!(
            classify(&denied),
            Fault::Refused(r) if r == "etcd answered PermissionDenied: etcdserver: permission denied"
        ));
        let no_leader = Status::unavailable("etcdserver: no leader");
        assert!(matches!(
            classify(&no_leader),
            Fault::Unreached(r) if r == "etcd answered Unavailable: etcdserver: no leader"
        ));
    }

    #[test]
    fn only_a_refused_token_is_taken_again() {
        assert!(token_refused(
            "etcd answered Unauthenticated: etcdserver: invalid auth token"
        ));
        assert!(!token_refused(
            "etcd answered PermissionDenied: etcdserver: permission denied"
        ));
    }
}
