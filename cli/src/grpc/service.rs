//! [`Service`]: `snowmint.v1.IdService`, each call answered by the rules of its HTTP route
//! (`/id`, `/ids`, `/uuid7`, `/ulid`, `/decode/{id}`): input checked first (bad input is
//! `INVALID_ARGUMENT` naming the allowed range), then readiness, then minting; every call
//! counted by method and code.

use std::sync::Arc;

use tokio::sync::watch;
use tonic::{Request, Response, Status};

use super::chunks::{Chunks, Packing};
use super::limits::Limits;
use super::metrics::{GrpcMetrics, Method};
use super::proto::id_service_server::IdService;
use super::proto::{
    DecodeRequest, DecodeResponse, Id128, Kind as ProtoKind, NextId128Request, NextIdRequest,
    NextIdResponse, NextIds128Request, NextIds128Response, NextIdsRequest, NextIdsResponse,
    StreamIdsRequest,
};
use super::{mint, status};
use crate::id128::Kind;
use crate::read::{self, AnyId};
use crate::serve::App;
use crate::time::{self, Precision};

/// The service: the shared state of `snowmint serve` and the gRPC listener's own.
pub struct Service {
    app: Arc<App>,
    limits: Limits,
    metrics: Arc<GrpcMetrics>,
    /// Set once the service stops: open streams end.
    stopping: watch::Receiver<bool>,
}

impl Service {
    pub fn new(
        app: Arc<App>,
        limits: Limits,
        metrics: Arc<GrpcMetrics>,
        stopping: watch::Receiver<bool>,
    ) -> Service {
        Service {
            app,
            limits,
            metrics,
            stopping,
        }
    }

    /// Counts a finished unary call and wraps its answer.
    fn answer<T>(&self, method: Method, result: Result<T, Status>) -> Result<Response<T>, Status> {
        match result {
            Ok(message) => {
                self.metrics.finished(method, tonic::Code::Ok);
                Ok(Response::new(message))
            }
            Err(status) => {
                self.metrics.finished(method, status.code());
                Err(status)
            }
        }
    }

    async fn one128(&self, kind: Kind) -> Result<Id128, Status> {
        let mut minted = None;
        mint::fill128(&self.app, &self.metrics, kind, 1, |id| minted = Some(id)).await?;
        let id = minted.ok_or_else(|| Status::internal("no ID was minted"))?;
        Ok(Id128 {
            value: id.to_bytes().to_vec(),
            text: id.to_string(),
        })
    }

    async fn many128(&self, kind: Kind, count: u64) -> Result<NextIds128Response, Status> {
        let n = self.limits.batch(count).map_err(status::invalid)?;
        let mut ids = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
        mint::fill128(&self.app, &self.metrics, kind, n, |id| {
            ids.push(Id128 {
                value: id.to_bytes().to_vec(),
                text: String::new(),
            });
        })
        .await?;
        Ok(NextIds128Response { ids })
    }

    fn decoded(&self, request: &DecodeRequest) -> Result<DecodeResponse, Status> {
        let from = if request.from.is_empty() {
            None
        } else {
            Some(
                read::encoding_arg(&request.from)
                    .map_err(|why| status::invalid(format!("from: {why}")))?,
            )
        };
        let layout = &self.app.layout;
        match read::read(request.id.as_bytes(), from, layout) {
            Ok(AnyId::Id(id, encoding)) => {
                let d = layout.decode(id);
                Ok(DecodeResponse {
                    id: id.to_string(),
                    encoding: encoding.name().to_owned(),
                    time: time::format(d.time(), Precision::for_nanos(layout.unit_nanos()))
                        .unwrap_or_default(),
                    unix_ms: d.unix_millis(),
                    layout: self.app.layout_name.to_owned(),
                    ticks: d.ticks(),
                    node: d.node(),
                    sequence: d.sequence(),
                })
            }
            Ok(AnyId::Id128(wide)) => {
                let ms = wide.unix_millis();
                Ok(DecodeResponse {
                    id: wide.to_string(),
                    encoding: wide.kind().name().to_owned(),
                    time: time::format(
                        std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms),
                        Precision::Millis,
                    )
                    .unwrap_or_default(),
                    unix_ms: ms,
                    layout: String::new(),
                    ticks: 0,
                    node: 0,
                    sequence: 0,
                })
            }
            // The command line's flag, as this call names it.
            Err(message) => Err(status::invalid(message.replace("--from ", "from "))),
        }
    }
}

#[tonic::async_trait]
impl IdService for Service {
    async fn next_id(
        &self,
        _request: Request<NextIdRequest>,
    ) -> Result<Response<NextIdResponse>, Status> {
        let minted = mint::one(&self.app, &self.metrics).await;
        self.answer(Method::NextId, minted.map(|id| NextIdResponse { id }))
    }

    async fn next_ids(
        &self,
        request: Request<NextIdsRequest>,
    ) -> Result<Response<NextIdsResponse>, Status> {
        let minted = async {
            let n = self
                .limits
                .batch(request.get_ref().count)
                .map_err(status::invalid)?;
            let mut ids = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
            mint::fill(&self.app, &self.metrics, n, |id| ids.push(id)).await?;
            Ok(NextIdsResponse { ids })
        };
        let minted = minted.await;
        self.answer(Method::NextIds, minted)
    }

    async fn next_uuid7(
        &self,
        _request: Request<NextId128Request>,
    ) -> Result<Response<Id128>, Status> {
        let minted = self.one128(Kind::Uuid7).await;
        self.answer(Method::NextUuid7, minted)
    }

    async fn next_uuid7s(
        &self,
        request: Request<NextIds128Request>,
    ) -> Result<Response<NextIds128Response>, Status> {
        let minted = self.many128(Kind::Uuid7, request.get_ref().count).await;
        self.answer(Method::NextUuid7s, minted)
    }

    async fn next_ulid(
        &self,
        _request: Request<NextId128Request>,
    ) -> Result<Response<Id128>, Status> {
        let minted = self.one128(Kind::Ulid).await;
        self.answer(Method::NextUlid, minted)
    }

    async fn next_ulids(
        &self,
        request: Request<NextIds128Request>,
    ) -> Result<Response<NextIds128Response>, Status> {
        let minted = self.many128(Kind::Ulid, request.get_ref().count).await;
        self.answer(Method::NextUlids, minted)
    }

    type StreamIdsStream = Chunks;

    async fn stream_ids(
        &self,
        request: Request<StreamIdsRequest>,
    ) -> Result<Response<Chunks>, Status> {
        let request = request.get_ref();
        let checked = (|| {
            let packing = match ProtoKind::try_from(request.kind) {
                Ok(ProtoKind::Snowflake) => Packing::Snowflake,
                Ok(ProtoKind::Uuid7) => Packing::Wide(Kind::Uuid7),
                Ok(ProtoKind::Ulid) => Packing::Wide(Kind::Ulid),
                Err(_) => {
                    return Err(status::invalid(format!(
                        "kind {} is not a kind of ID: 0 (KIND_SNOWFLAKE), 1 (KIND_UUID7) or 2 \
                         (KIND_ULID)",
                        request.kind
                    )))
                }
            };
            let chunk = self
                .limits
                .chunk(request.chunk_size)
                .map_err(status::invalid)?;
            // Refused at once while not ready, as the unary calls are, rather than as the
            // first item of a stream.
            if let Some(problem) = self.app.not_ready() {
                return Err(status::of_problem(problem));
            }
            Ok((packing, chunk))
        })();
        match checked {
            Ok((packing, chunk)) => Ok(Response::new(Chunks::new(
                Arc::clone(&self.app),
                Arc::clone(&self.metrics),
                packing,
                chunk,
                request.count,
                self.stopping.clone(),
            ))),
            Err(status) => {
                self.metrics.finished(Method::StreamIds, status.code());
                Err(status)
            }
        }
    }

    async fn decode(
        &self,
        request: Request<DecodeRequest>,
    ) -> Result<Response<DecodeResponse>, Status> {
        let decoded = self.decoded(request.get_ref());
        self.answer(Method::Decode, decoded)
    }
}
