//! [`Gateway`]: POSTs JSON to etcd's v3 gateway (`/v3/...`) over `ureq` (HTTP/1.1, plain or
//! TLS), trying each endpoint in turn, with etcd's authentication token when a user is set.

use std::time::Duration;

use serde_json::{json, Value};

use super::security::Security;
use crate::Password;

/// Why a request got no answer from any endpoint, or an error answer from one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GatewayError {
    /// The endpoint of the last attempt (`host:port`).
    pub(crate) endpoint: String,
    /// What went wrong there.
    pub(crate) reason: String,
}

impl core::fmt::Display for GatewayError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.endpoint, self.reason)
    }
}

impl std::error::Error for GatewayError {}

/// What an endpoint answered: the JSON of a 200, or the gateway's error object.
pub(crate) enum Answer {
    /// HTTP 200 and its JSON body.
    Ok(Value),
    /// A gRPC error the cluster returned (e.g. `requested lease not found`): the request
    /// reached the cluster, which refused it.
    Refused(GatewayError),
}

/// The cluster's client endpoints and the one that answered last.
#[derive(Debug, Clone)]
pub(crate) struct Gateway {
    /// `host:port` of each member.
    endpoints: Vec<String>,
    /// `http` or `https`.
    scheme: &'static str,
    current: usize,
    agent: ureq::Agent,
    /// etcd's user and password, if the cluster has authentication on.
    user: Option<(String, Password)>,
    /// The token `/v3/auth/authenticate` gave, sent in `Authorization` until etcd refuses it.
    token: Option<String>,
}

impl Gateway {
    pub(crate) fn new(endpoints: Vec<String>, timeout: Duration, security: &Security) -> Gateway {
        Gateway {
            endpoints,
            scheme: if security.tls { "https" } else { "http" },
            current: 0,
            agent: agent(timeout, security.tls_config()),
            user: security.user.clone(),
            token: None,
        }
    }

    /// POSTs `body` to `path` on the endpoint that answered last, then on each of the
    /// others: the first answer (200, or an error the cluster gave), or the last failure if
    /// none answered. A request that timed out may have been applied: callers make every
    /// request safe to repeat.
    pub(crate) fn post(&mut self, path: &str, body: &str) -> Result<Answer, GatewayError> {
        let mut last = None;
        for i in 0..self.endpoints.len() {
            let at = (self.current + i) % self.endpoints.len();
            let endpoint = self.endpoints[at].clone();
            match self.exchange(&endpoint, path, body) {
                Ok((200, json)) => {
                    self.current = at;
                    return Ok(Answer::Ok(json));
                }
                Ok((AUTH_REFUSED, json)) if json["refused_login"].as_bool() == Some(true) => {
                    self.current = at;
                    let reason = json["error"].as_str().unwrap_or("").to_string();
                    return Ok(Answer::Refused(GatewayError { endpoint, reason }));
                }
                Ok((status, json)) => {
                    let e = GatewayError {
                        endpoint: endpoint.clone(),
                        reason: refusal(status, &json),
                    };
                    // A member without a leader, or one that timed out: try another.
                    if status >= 500 && !refusal_is_final(&e.reason) {
                        last = Some(e);
                        continue;
                    }
                    self.current = at;
                    return Ok(Answer::Refused(e));
                }
                Err(reason) => last = Some(GatewayError { endpoint, reason }),
            }
        }
        Err(last.unwrap_or(GatewayError {
            endpoint: String::new(),
            reason: "no endpoint given".to_string(),
        }))
    }

    /// One request to `endpoint`, with the token when a user is set: authenticates first if
    /// there is none, and once more (then retries) when etcd refuses the one it has (expired,
    /// or older than a change of users or roles). A refused authentication is
    /// [`AUTH_REFUSED`], with etcd's message.
    fn exchange(&mut self, endpoint: &str, path: &str, body: &str) -> Result<(u16, Value), String> {
        if self.user.is_none() {
            return self.post_once(endpoint, path, body, None);
        }
        for fresh in [false, true] {
            if fresh || self.token.is_none() {
                match self.authenticate(endpoint)? {
                    Ok(token) => self.token = Some(token),
                    Err(refused) => return Ok(refused),
                }
            }
            let answer = self.post_once(endpoint, path, body, self.token.as_deref())?;
            if !(answer.0 != 200 && token_refused(&refusal(answer.0, &answer.1))) || fresh {
                return Ok(answer);
            }
            self.token = None;
        }
        unreachable!("the second pass returns")
    }

    /// A token for the user from `endpoint`, or etcd's refusal (as [`AUTH_REFUSED`]).
    fn authenticate(&self, endpoint: &str) -> Result<Result<String, (u16, Value)>, String> {
        let Some((name, password)) = &self.user else {
            return Ok(Err((
                AUTH_REFUSED,
                json!({ "error": "no user", "refused_login": true }),
            )));
        };
        let body = json!({ "name": name, "password": password.expose() }).to_string();
        let (status, answer) = self.post_once(endpoint, "/v3/auth/authenticate", &body, None)?;
        match answer["token"].as_str() {
            Some(token) if status == 200 => Ok(Ok(token.to_string())),
            // A member without a leader, or one that timed out: another may answer.
            _ if status >= 500 => Err(format!(
                "authenticate as user {name:?}: {}",
                refusal(status, &answer)
            )),
            _ => {
                let why = refusal(status, &answer);
                let error = format!("authenticate as user {name:?}: {why}");
                Ok(Err((
                    AUTH_REFUSED,
                    json!({ "error": error, "refused_login": true }),
                )))
            }
        }
    }

    /// One request: the status and the JSON body.
    fn post_once(
        &self,
        endpoint: &str,
        path: &str,
        body: &str,
        token: Option<&str>,
    ) -> Result<(u16, Value), String> {
        let url = format!("{}://{endpoint}{path}", self.scheme);
        let mut request = self.agent.post(&url).content_type("application/json");
        if let Some(token) = token {
            request = request.header("Authorization", token);
        }
        let mut response = request.send(body).map_err(describe)?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| format!("receive: {e}"))?;
        let json = serde_json::from_str(&text).map_err(|e| format!("not JSON ({e})"))?;
        Ok((status, json))
    }
}

/// The status [`Gateway::exchange`] gives a refused authentication (etcd answers 400 or
/// 401), with `refused_login` in its JSON: refused by every member alike, so not tried on
/// another. A 5xx is not a refusal: the next member is tried.
const AUTH_REFUSED: u16 = 401;

/// Whether etcd refused the token itself (not the user's rights): an expired or unknown
/// token, one issued before the users or roles changed, or none sent.
fn token_refused(reason: &str) -> bool {
    reason.contains("invalid auth token")
        || reason.contains("revision of auth store is old")
        || reason.contains("user name is empty")
}

/// The client: every call bounded by `timeout` as a whole (connect, TLS, request and
/// answer), statuses given back rather than turned into errors, connections kept for the
/// next call.
fn agent(timeout: Duration, tls: ureq::tls::TlsConfig) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .tls_config(tls)
        .build()
        .new_agent()
}

/// What a failed call ran into, in words that name the step: `connect: ...`, `TLS: ...`
/// (a certificate refused, either way), or no answer within the timeout.
fn describe(e: ureq::Error) -> String {
    match e {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            format!("connect: {io}")
        }
        // rustls reports a refused handshake (a certificate either side did not accept) as
        // invalid data on the socket.
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::InvalidData => format!("TLS: {io}"),
        ureq::Error::Io(io) => format!("I/O: {io}"),
        ureq::Error::Rustls(tls) => format!("TLS: {tls}"),
        ureq::Error::Timeout(t) => format!("no answer within the I/O timeout ({t})"),
        ureq::Error::HostNotFound => "resolve: the host name has no address".to_string(),
        other => other.to_string(),
    }
}

/// The message of an error answer: the gateway's `error` or `message`, after the status.
fn refusal(status: u16, json: &Value) -> String {
    json.get("error")
        .or_else(|| json.get("message"))
        .and_then(Value::as_str)
        .map_or_else(
            || format!("HTTP {status}"),
            |m| format!("HTTP {status}: {m}"),
        )
}

/// A 5xx whose cause another member would give too: no point trying it elsewhere.
fn refusal_is_final(reason: &str) -> bool {
    reason.contains("requested lease not found") || reason.contains("lease not found")
}

/// Standard padded base64 (RFC 4648 §4): how the gateway spells keys and values.
pub(crate) mod base64 {
    use ::base64::engine::general_purpose::STANDARD;
    use ::base64::Engine as _;

    /// `bytes` in padded standard base64.
    pub(crate) fn encode(bytes: &[u8]) -> String {
        STANDARD.encode(bytes)
    }

    /// The bytes of a padded standard base64 text; `None` if it is not one.
    pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
        STANDARD.decode(text).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::{base64, refusal};
    use serde_json::json;

    #[test]
    fn base64_round_trips_the_rfc_4648_vectors() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64::encode(plain.as_bytes()), coded);
            assert_eq!(base64::decode(coded).as_deref(), Some(plain.as_bytes()));
        }
        assert_eq!(base64::decode("Zm9v!"), None, "not an alphabet symbol");
    }

    #[test]
    fn a_refusal_names_the_status_and_the_message() {
        let j = json!({ "error": "etcdserver: permission denied", "code": 7 });
        assert_eq!(refusal(403, &j), "HTTP 403: etcdserver: permission denied");
        assert_eq!(refusal(502, &json!({})), "HTTP 502");
    }
}
