//! The HTTP endpoints: the router and one handler per route.
//!
//! | Route | Answer |
//! |---|---|
//! | `GET /id` | one decimal ID and a newline, `text/plain` |
//! | `GET /ids?n=N` | `N` IDs (1 to `--max-batch`), one per line; with `Accept: application/json`, a JSON array of strings; with `Accept: application/octet-stream`, packed big-endian `u64`s ([`packed`](super::packed)); the layout and node declared in `X-Snowmint-Layout` and `X-Snowmint-Node` |
//! | `GET /uuid7?n=N`, `GET /ulid?n=N` | `N` UUIDv7s or ULIDs in their canonical text (or their 16 canonical bytes each, packed), strictly increasing; the same query, limits, shapes, errors and readiness as `/ids` |
//! | `GET /decode/{id}` | the ID's time, node, sequence and layout as JSON; any encoding `decode` reads, UUIDv7 and ULID too, detected or named by `?from=` |
//! | `GET /livez` | 200 while the process runs |
//! | `GET /readyz` | 200 while minting; else 503 naming the state ([`readiness`](super::readiness)) |
//! | `GET /healthz` | 200 while minting; 503 while starting, or while the lease is fenced or lost |
//! | `GET /metrics` | Prometheus text |
//! | `GET /` | the status page: HTML, self-contained, reloading itself |
//!
//! The minting routes answer `GET` only: a `HEAD` would mint IDs nobody reads, so it gets
//! 405 (`Allow: GET`); the other routes answer `GET` and `HEAD`.
//!
//! Every query string follows one grammar ([`query`]), on every endpoint: values are
//! percent-decoded, a broken escape is a 400, and parameters an endpoint does not take are
//! ignored.
//!
//! The body is chosen by `Accept` ([`negotiate`]): no header or `*/*` is text; a header
//! nothing offered matches is a 406.
//!
//! Every answer carrying IDs is `Cache-Control: no-store`: a cache that replayed one would
//! hand the same ID to two clients.

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, on, MethodFilter};
use axum::Router;
use snowmint::Layout;

use super::body::{Body, Shape};
use super::negotiate::{self, Media};
use super::packed::Packed;
use super::problem::Problem;
use super::query;
use super::source::Health;
use super::status;
use super::App;
use crate::id128::{self, Kind};
use crate::read::{self, AnyId};
use crate::time::{self, Precision};
use serde_json::{json, Map, Value};

const JSON: HeaderValue = HeaderValue::from_static("application/json");
const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");

/// The routes that mint, which answer `GET` only.
const MINTING: [&str; 4] = ["/id", "/ids", "/uuid7", "/ulid"];

/// The service's router.
pub fn router(app: Arc<App>) -> Router {
    // axum answers HEAD with the GET handler when a route names no HEAD handler: minting
    // IDs nobody reads. The minting routes name one that refuses.
    let refuse_head = on(MethodFilter::HEAD, method_not_allowed);
    Router::new()
        .route("/id", get(id).merge(refuse_head.clone()))
        .route("/ids", get(ids).merge(refuse_head.clone()))
        .route("/uuid7", get(uuid7).merge(refuse_head.clone()))
        .route("/ulid", get(ulid).merge(refuse_head))
        .route("/decode/{id}", get(decode))
        .route("/livez", get(livez))
        .route("/readyz", get(readyz))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/", get(status_page))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(
            Arc::clone(&app),
            every_request,
        ))
        .with_state(app)
}

/// What every request goes through, in one layer: it is counted and timed
/// ([`HttpMetrics::start`](super::metrics::HttpMetrics::start)), and its query held to the
/// one grammar: a query that does not percent-decode is a 400 wherever it is sent, whether
/// the endpoint reads a parameter or not.
async fn every_request(
    State(app): State<Arc<App>>,
    request: axum::extract::Request,
    next: middleware::Next,
) -> Response {
    let tracking = app.metrics.start(request.uri().path());
    let response = match query::check(request.uri().query()) {
        Ok(()) => next.run(request).await,
        Err(problem) => problem.into_response(),
    };
    tracking.finish(response.status());
    response
}

fn ids_response(content_type: HeaderValue, body: Vec<u8>) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, NO_STORE),
        ],
        body,
    )
        .into_response()
}

/// The minter, or the readiness problem while the lease's claim is under way (the same
/// answer as `/readyz`'s).
fn minter(app: &App) -> Result<&super::source::Minter, Problem> {
    app.minter().ok_or_else(|| {
        app.not_ready().unwrap_or_else(|| Problem {
            status: StatusCode::SERVICE_UNAVAILABLE,
            code: "unavailable",
            message: "not ready".to_owned(),
            retry_after: None,
            state: None,
        })
    })
}

/// `GET /id`: one ID; a count is refused, naming `/ids` (answering one ID to `?n=5` would
/// hide the mistake).
async fn id(State(app): State<Arc<App>>, uri: Uri) -> Response {
    if let Some(problem) = query::refuse_n_on_id(uri.query()) {
        return problem.into_response();
    }
    let minter = match minter(&app) {
        Ok(minter) => minter,
        Err(refused) => return refused.into_response(),
    };
    match minter.one().await {
        Ok(id) => {
            app.metrics.ids.increment(1);
            app.activity.served(1);
            app.activity.reached(&app.layout, id.to_u64());
            let mut body = Body::with_capacity(Shape::Lines, 1);
            body.push(id.to_u64());
            ids_response(Media::Text.content_type(), body.finish())
        }
        Err(refusal) => Problem::from(refusal).into_response(),
    }
}

/// The text bodies' shape for `media` (not [`Media::Binary`], which [`Packed`] writes).
fn shape(media: Media) -> Shape {
    match media {
        Media::Json => Shape::JsonArray,
        Media::Text | Media::Binary => Shape::Lines,
    }
}

/// The headers declaring what a body of 64-bit IDs holds, so that a client can check it
/// before using one: the layout in the spec form `snowmint layouts` prints (every key
/// spelled out) and the service's node, the `node` of `/readyz` and `/healthz`.
pub const LAYOUT_HEADER: &str = "x-snowmint-layout";
/// See [`LAYOUT_HEADER`].
pub const NODE_HEADER: &str = "x-snowmint-node";

/// The value of [`LAYOUT_HEADER`] for `layout`: its spec (ASCII: numbers, units, an RFC 3339
/// time).
pub fn layout_spec(layout: &Layout) -> HeaderValue {
    HeaderValue::try_from(crate::layout_arg::spec(layout))
        .unwrap_or(HeaderValue::from_static("unknown"))
}

/// `GET /ids?n=N`: lines, a JSON array or packed big-endian `u64`s, as `Accept` asks
/// ([`negotiate`]), declaring the layout and node ([`LAYOUT_HEADER`]).
async fn ids(State(app): State<Arc<App>>, uri: Uri, headers: HeaderMap) -> Response {
    let n = match query::count(uri.path(), uri.query(), app.max_batch) {
        Ok(n) => n,
        Err(problem) => return problem.into_response(),
    };
    let media = match negotiate::choose(uri.path(), &headers) {
        Ok(media) => media,
        Err(problem) => return problem.into_response(),
    };
    let minter = match minter(&app) {
        Ok(minter) => minter,
        Err(refused) => return refused.into_response(),
    };
    let layout = app.layout;
    let filled = if media == Media::Binary {
        let mut body = Packed::with_capacity(n, 8);
        let filled = minter.fill(n, |batch| {
            if let Some(last) = body.push_batch(batch) {
                app.activity.reached(&layout, last);
            }
        });
        filled.await.map(|()| body.finish())
    } else {
        let mut body = Body::with_capacity(shape(media), n);
        let filled = minter.fill(n, |batch| {
            if let Some(last) = body.push_batch(batch) {
                app.activity.reached(&layout, last);
            }
        });
        filled.await.map(|()| body.finish())
    };
    match filled {
        Ok(body) => {
            app.metrics.ids.increment(n);
            app.activity.served(n);
            let mut response = ids_response(media.content_type(), body);
            let declared = response.headers_mut();
            declared.insert(LAYOUT_HEADER, app.layout_spec.clone());
            declared.insert(NODE_HEADER, HeaderValue::from(minter.node()));
            response
        }
        // The IDs reserved so far are dropped: never handed out, never reused.
        Err(refusal) => Problem::from(refusal).into_response(),
    }
}

/// `GET /uuid7?n=N`.
async fn uuid7(State(app): State<Arc<App>>, uri: Uri, headers: HeaderMap) -> Response {
    ids128(&app, Kind::Uuid7, &uri, &headers).await
}

/// `GET /ulid?n=N`.
async fn ulid(State(app): State<Arc<App>>, uri: Uri, headers: HeaderMap) -> Response {
    ids128(&app, Kind::Ulid, &uri, &headers).await
}

/// `N` 128-bit IDs, by the rules of `/ids`: the count checked first, then readiness (refused
/// with `/readyz`'s 503 while the node is claimed, fenced or lost, so that a client sees one
/// service), then a reservation per [`id128::CHUNK`] IDs, letting the worker serve others
/// between them.
async fn ids128(app: &App, kind: Kind, uri: &Uri, headers: &HeaderMap) -> Response {
    let n = match query::count(uri.path(), uri.query(), app.max_batch) {
        Ok(n) => n,
        Err(problem) => return problem.into_response(),
    };
    let media = match negotiate::choose(uri.path(), headers) {
        Ok(media) => media,
        Err(problem) => return problem.into_response(),
    };
    if let Some(refused) = app.not_ready() {
        return refused.into_response();
    }
    let gen = app.id128.of(kind);
    let mut body = match media {
        Media::Binary => Id128Body::Packed(Packed::with_capacity(n, 16)),
        _ => Id128Body::Text(Body::for_texts(shape(media), n, id128::MAX_TEXT)),
    };
    let mut left = n;
    while left > 0 {
        let chunk = usize::try_from(left).map_or(id128::CHUNK, |left| left.min(id128::CHUNK));
        match &mut body {
            Id128Body::Text(body) => gen.mint(chunk, |text| body.push_text(text)),
            Id128Body::Packed(body) => gen.mint_bytes(chunk, |bytes| body.push_bytes(bytes)),
        }
        match kind {
            Kind::Uuid7 => app.metrics.uuid7s.increment(chunk as u64),
            Kind::Ulid => app.metrics.ulids.increment(chunk as u64),
        }
        left -= chunk as u64;
        if left > 0 {
            tokio::task::yield_now().await;
        }
    }
    let body = match body {
        Id128Body::Text(body) => body.finish(),
        Id128Body::Packed(body) => body.finish(),
    };
    ids_response(media.content_type(), body)
}

/// A body of 128-bit IDs: canonical texts, or their packed canonical bytes.
enum Id128Body {
    Text(Body),
    Packed(Packed),
}

/// `GET /decode/{id}`: an ID in any encoding `snowmint decode` reads (UUIDv7 and ULID
/// too), detected or named by `?from=`, decoded with the service's layout.
async fn decode(
    State(app): State<Arc<App>>,
    uri: Uri,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let Ok(Path(text)) = id else {
        return Problem::bad_request(
            "bad_id",
            "the ID in /decode/{id} is not valid percent-encoded UTF-8: expected e.g. /decode/1541815603606036480".to_owned(),
        )
        .into_response();
    };
    let from = match query::from(uri.query()) {
        Ok(from) => from,
        Err(problem) => return problem.into_response(),
    };
    let layout = &app.layout;
    match read::read(text.as_bytes(), from, layout) {
        Ok(AnyId::Id(id, encoding)) => {
            let body = decoded(id, encoding.name(), layout, app.layout_name);
            ([(header::CONTENT_TYPE, JSON)], body).into_response()
        }
        Ok(AnyId::Id128(wide)) => {
            let ms = wide.unix_millis();
            let stamp = time::format(
                std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms),
                Precision::Millis,
            );
            let body = json!({
                "id": wide.to_string(),
                "encoding": wide.kind().name(),
                "time": stamp,
                "unix_ms": ms,
            })
            .to_string();
            ([(header::CONTENT_TYPE, JSON)], body).into_response()
        }
        // The command line's flag, as this route spells it.
        Err(message) => {
            Problem::bad_request("bad_id", message.replace("--from ", "?from=")).into_response()
        }
    }
}

/// JavaScript's largest exact integer: fields that can be larger go out as strings.
const JS_MAX_SAFE: u64 = (1 << 53) - 1;

/// The decode object. Each field's JSON type is fixed by the layout, not by the value: a
/// number when every value the field can take is exact in JavaScript (every preset's
/// `unix_ms`, `node` and `sequence`), a string otherwise; the ID is always a string.
fn decoded(id: snowmint::Id, encoding: &str, layout: &Layout, layout_name: &str) -> String {
    let d = layout.decode(id);
    let stamp = time::format(d.time(), Precision::for_nanos(layout.unit_nanos()));
    let fits = |bits: u8| bits <= 53;
    let field = |value: u64, exact: bool| -> Value {
        if exact {
            value.into()
        } else {
            value.to_string().into()
        }
    };
    json!({
        "id": id.to_string(),
        "layout": layout_name,
        "encoding": encoding,
        "time": stamp,
        "unix_ms": field(d.unix_millis(), layout.expiry_unix_millis() <= JS_MAX_SAFE),
        "ticks": field(d.ticks(), fits(layout.time_bits())),
        "node": field(d.node(), fits(layout.node_bits())),
        "sequence": field(d.sequence(), fits(layout.sequence_bits())),
    })
    .to_string()
}

/// `GET /livez`: the process runs (and answers).
async fn livez() -> Response {
    json_response(StatusCode::OK, json!({ "status": "live" }).to_string())
}

/// `GET /readyz`: 200 while minting; else the 503 the minting endpoints answer, naming the
/// state.
async fn readyz(State(app): State<Arc<App>>) -> Response {
    let state = app.state();
    let now = super::readiness::now_unix_millis();
    match state.problem(&app.place(), now) {
        Some(problem) => problem.into_response(),
        None => {
            let mut o = Map::new();
            o.insert("status".into(), "ready".into());
            o.insert("state".into(), state.name().into());
            if let Some(node) = state.node() {
                o.insert("node".into(), node.into());
            }
            json_response(StatusCode::OK, Value::Object(o).to_string())
        }
    }
}

fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, JSON),
            (header::CACHE_CONTROL, NO_STORE),
        ],
        body,
    )
        .into_response()
}

/// `GET /healthz`: 200 `ok` while minting; 503 `fenced` or `lost` as the lease goes, and
/// `starting` (with the readiness `state`) before the node is claimed.
async fn healthz(State(app): State<Arc<App>>) -> Response {
    let Some(minter) = app.minter() else {
        let state = app.state();
        let mut o = Map::new();
        o.insert("status".into(), "starting".into());
        o.insert("state".into(), state.name().into());
        o.insert("layout".into(), app.layout_name.into());
        if let Some(node) = state.node() {
            o.insert("node".into(), node.into());
        }
        o.insert("shard_bits".into(), app.shard_bits.into());
        let years = crate::lifetime::years_left(&app.layout, std::time::SystemTime::now());
        o.insert("years_left".into(), crate::json_number::float(years));
        if let Some(site) = &app.lease {
            o.insert("source".into(), "lease".into());
            o.insert("namespace".into(), site.namespace.as_str().into());
            o.insert("backend".into(), site.backend.into());
        }
        return json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            Value::Object(o).to_string(),
        );
    };
    let health = minter.health();
    let (status, word) = match health {
        Health::Ok => (StatusCode::OK, "ok"),
        Health::Fenced => (StatusCode::SERVICE_UNAVAILABLE, "fenced"),
        Health::Lost => (StatusCode::SERVICE_UNAVAILABLE, "lost"),
    };
    let mut o = Map::new();
    o.insert("status".into(), word.into());
    o.insert("layout".into(), app.layout_name.into());
    o.insert("node".into(), minter.node().into());
    o.insert("shard_bits".into(), app.shard_bits.into());
    let years = crate::lifetime::years_left(minter.layout(), std::time::SystemTime::now());
    o.insert("years_left".into(), crate::json_number::float(years));
    match minter.namespace() {
        Some(ns) => {
            o.insert("source".into(), "lease".into());
            o.insert("namespace".into(), ns.into());
        }
        None => {
            o.insert("source".into(), "fixed".into());
        }
    }
    if let Some(backend) = minter.backend() {
        o.insert("backend".into(), backend.into());
    }
    if let Some(token) = minter.token() {
        o.insert("token".into(), token.into());
    }
    if let Some(deadline) = minter.deadline_unix_millis() {
        o.insert("deadline_unix_ms".into(), deadline.into());
    }
    json_response(status, Value::Object(o).to_string())
}

/// `GET /`: the status page.
async fn status_page(State(app): State<Arc<App>>) -> Response {
    let page = status::render(&status::Snapshot::of(&app));
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, NO_STORE),
        ],
        page,
    )
        .into_response()
}

/// `GET /metrics`.
async fn metrics(State(app): State<Arc<App>>) -> Response {
    let text = app.metrics.render(app.state().is_ready());
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        text,
    )
        .into_response()
}

async fn not_found(uri: Uri) -> Response {
    Problem::not_found(uri.path()).into_response()
}

async fn method_not_allowed(method: Method, uri: Uri) -> Response {
    let minting = MINTING.contains(&uri.path());
    let allowed = if minting {
        "GET only: HEAD would mint IDs nobody reads"
    } else {
        "GET and HEAD"
    };
    let mut response = Problem {
        status: StatusCode::METHOD_NOT_ALLOWED,
        code: "method_not_allowed",
        message: format!(
            "{} is not allowed on {}: it answers {allowed}",
            crate::escape::quoted(method.as_str()),
            crate::escape::quoted(uri.path())
        ),
        retry_after: None,
        state: None,
    }
    .into_response();
    let allow = if minting { "GET" } else { "GET, HEAD" };
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoded_fields_are_numbers_only_where_javascript_is_exact() {
        let id = snowmint::Id::from_u64(1_541_815_603_606_036_480);
        let text = decoded(id, "decimal", &Layout::TWITTER, "twitter");
        assert_eq!(
            text,
            r#"{"id":"1541815603606036480","layout":"twitter","encoding":"decimal","time":"2022-06-28T16:07:40.105Z","unix_ms":1656432460105,"ticks":367597485448,"node":378,"sequence":0}"#
        );
        // 60 node bits: the node goes out as a string.
        let wide = Layout::TWITTER
            .to_builder()
            .time_bits(3)
            .node_bits(60)
            .sequence_bits(0)
            .unit(std::time::Duration::from_secs(1))
            .build()
            .unwrap();
        let text = decoded(
            snowmint::Id::from_u64(u64::MAX >> 1),
            "decimal",
            &wide,
            "custom",
        );
        assert!(text.contains(r#""node":""#), "{text}");
    }
}
