//! The `uuid` and `ulid` features: the same bits, the same text and the same time as the
//! `uuid` and `ulid` crates read them, both ways.
#![cfg(all(feature = "uuid", feature = "ulid"))]

use snowmint::{Id128Error, Ulid, UlidGenerator, Uuid7, Uuid7Generator};

#[test]
fn the_uuid_crate_reads_our_uuids_as_we_do() {
    let gen = Uuid7Generator::new();
    for id in gen.next_uuids(1_000) {
        let theirs = uuid::Uuid::from(id);
        assert_eq!(theirs.get_version_num(), 7);
        assert_eq!(theirs.get_variant(), uuid::Variant::RFC4122);
        assert_eq!(theirs.to_string(), id.to_string());
        assert_eq!(theirs.as_bytes(), &id.to_bytes());
        let (secs, nanos) = theirs.get_timestamp().unwrap().to_unix();
        assert_eq!(
            secs * 1_000 + u64::from(nanos) / 1_000_000,
            id.unix_millis()
        );
        assert_eq!(Uuid7::try_from(theirs), Ok(id));
        assert_eq!(
            id.to_string().to_uppercase().parse::<uuid::Uuid>(),
            Ok(theirs)
        );
    }
}

#[test]
fn a_uuid_crate_v7_converts_and_other_versions_are_refused() {
    let rfc = uuid::Uuid::parse_str("017F22E2-79B0-7CC3-98C4-DC0C0C07398F").unwrap();
    assert_eq!(
        Uuid7::try_from(rfc).map(|id| id.unix_millis()),
        Ok(0x017F_22E2_79B0)
    );
    assert_eq!(
        Uuid7::try_from(uuid::Uuid::max()),
        Err(Id128Error::NotVersion7 { version: 15 })
    );
}

#[test]
fn the_ulid_crate_reads_our_ulids_as_we_do() {
    let gen = UlidGenerator::new();
    for id in gen.next_ulids(1_000) {
        let theirs = ulid::Ulid::from(id);
        assert_eq!(theirs.to_string(), id.to_string());
        assert_eq!(theirs.timestamp_ms(), id.unix_millis());
        assert_eq!(theirs.to_bytes(), id.to_bytes());
        assert_eq!(Ulid::from(theirs), id);
        assert_eq!(ulid::Ulid::from_string(&id.to_string()), Ok(theirs));
        assert_eq!(theirs.to_string().parse::<Ulid>(), Ok(id));
    }
}
