//! The conformance suite (`snowmint_lease::conformance`) against a real redis-server, started
//! on a free loopback port by `common/redis.rs` (`SNOWMINT_REQUIRE_REDIS=1` makes a missing
//! one a failure). The store forgets by `FLUSHALL`, as a restart without persistence would.
#![cfg(all(feature = "redis", feature = "conformance"))]

#[path = "common/redis.rs"]
mod redis_server;

use redis_server::RedisServer;
use snowmint_lease::conformance;
use snowmint_lease::redis::RedisLease;

#[test]
fn the_redis_store_has_every_property_of_a_store() {
    let Some(server) = RedisServer::start("conformance_redis") else {
        return;
    };
    let backend = RedisLease::builder(&server.url())
        .unwrap()
        .build()
        .unwrap()
        .backend()
        .clone();
    let forget = |_: &str| {
        assert_eq!(server.command(&["FLUSHALL"]), "+OK");
    };
    if let Err(failure) = conformance::run_all(&backend, forget) {
        panic!("{failure}");
    }
}
