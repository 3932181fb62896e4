//! The 128-bit IDs, UUIDv7 and ULID: how `gen --kind`, `decode` and the service's `/uuid7`
//! and `/ulid` mint, read and describe them. Every rule (the version and variant bits,
//! Crockford's alphabet, the 26th character's overflow, the minting order) is the library's
//! ([`snowmint::Uuid7`], [`snowmint::Ulid`] and their generators); this module only picks
//! the kind and words the output.

use std::fmt::Write as _;
use std::time::{Duration, UNIX_EPOCH};

use clap::ValueEnum;
use snowmint::{Ulid, UlidGenerator, Uuid7, Uuid7Generator};

use crate::escape::quoted;
use crate::time::{self, Precision};

/// The longest canonical text: a hyphenated UUID.
pub const MAX_TEXT: usize = 36;

/// IDs minted per reservation: the generators take one compare-and-swap per batch.
pub const CHUNK: usize = 4_096;

/// A 128-bit kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// RFC 9562 UUID version 7: 36 characters, lowercase hex, hyphenated
    Uuid7,
    /// ULID: 26 characters of Crockford base32, uppercase
    Ulid,
}

impl Kind {
    /// The name on the command line, in `--from` and in output.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Uuid7 => "uuid7",
            Kind::Ulid => "ulid",
        }
    }
}

/// A 128-bit ID read from text or minted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Id128 {
    Uuid7(Uuid7),
    Ulid(Ulid),
}

impl Id128 {
    pub fn kind(self) -> Kind {
        match self {
            Id128::Uuid7(_) => Kind::Uuid7,
            Id128::Ulid(_) => Kind::Ulid,
        }
    }

    /// The canonical 16 bytes, big-endian (both kinds' own byte layout).
    pub fn to_bytes(self) -> [u8; 16] {
        match self {
            Id128::Uuid7(id) => id.to_bytes(),
            Id128::Ulid(id) => id.to_bytes(),
        }
    }

    pub fn unix_millis(self) -> u64 {
        match self {
            Id128::Uuid7(id) => id.unix_millis(),
            Id128::Ulid(id) => id.unix_millis(),
        }
    }

    /// Reads `input` as `kind`; the error quotes the input (escaped, cut short) and gives
    /// the library's reason.
    pub fn parse(kind: Kind, input: &[u8]) -> Result<Id128, String> {
        let text = std::str::from_utf8(input)
            .map_err(|_| format!("{} is not a {} ID: not UTF-8", quoted(input), kind.name()))?;
        let read = match kind {
            Kind::Uuid7 => text.parse().map(Id128::Uuid7),
            Kind::Ulid => text.parse().map(Id128::Ulid),
        };
        read.map_err(|e| format!("{} is not a {} ID: {e}", quoted(input), kind.name()))
    }

    /// The same 128 bits as `kind`: a UUIDv7 is always a ULID; a ULID is a UUIDv7 only when
    /// its version and variant bits say so.
    pub fn to_kind(self, kind: Kind) -> Result<Id128, String> {
        let bits = match self {
            Id128::Uuid7(id) => id.to_u128(),
            Id128::Ulid(id) => id.to_u128(),
        };
        match kind {
            Kind::Ulid => Ok(Id128::Ulid(Ulid::from_u128(bits))),
            Kind::Uuid7 => Uuid7::from_u128(bits)
                .map(Id128::Uuid7)
                .map_err(|e| format!("{self} is not a UUIDv7 as 128 bits: {e}")),
        }
    }

    /// The 128-bit reading of a text shaped as one (36 characters with hyphens where a
    /// UUID has them, or 26 letters and digits), or `None` when it is not shaped so.
    pub fn detect(input: &[u8]) -> Option<Result<Id128, String>> {
        let uuid_shaped = input.len() == 36 && [8, 13, 18, 23].iter().all(|&i| input[i] == b'-');
        if uuid_shaped {
            return Some(Id128::parse(Kind::Uuid7, input));
        }
        let ulid_shaped = input.len() == 26 && input.iter().all(u8::is_ascii_alphanumeric);
        ulid_shaped.then(|| Id128::parse(Kind::Ulid, input))
    }

    /// One `decode` line: the fields of a 64-bit ID's line that a 128-bit one has (its
    /// canonical text, time, Unix milliseconds and encoding), as key=value pairs or JSON.
    pub fn describe(self, input: &str, as_json: bool) -> String {
        let ms = self.unix_millis();
        let stamp = time::format(UNIX_EPOCH + Duration::from_millis(ms), Precision::Millis);
        let id = self.to_string();
        let kind = self.kind().name();
        if as_json {
            serde_json::json!({
                "input": input,
                "encoding": kind,
                "id": id,
                "time": stamp,
                "unix_ms": ms,
            })
            .to_string()
        } else {
            format!(
                "id={id} time={} unix_ms={ms} encoding={kind}",
                stamp.as_deref().unwrap_or("after-9999-12-31T23:59:59Z"),
            )
        }
    }
}

impl std::fmt::Display for Id128 {
    /// The canonical text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Id128::Uuid7(id) => id.fmt(f),
            Id128::Ulid(id) => id.fmt(f),
        }
    }
}

/// A generator of one kind, shared by any number of threads.
pub enum Generator128 {
    Uuid7(Uuid7Generator),
    Ulid(UlidGenerator),
}

impl Generator128 {
    /// A generator of `kind` on the TSC clock.
    pub fn new(kind: Kind) -> Generator128 {
        match kind {
            Kind::Uuid7 => Generator128::Uuid7(Uuid7Generator::new()),
            Kind::Ulid => Generator128::Ulid(UlidGenerator::new()),
        }
    }

    /// Mints `n` IDs (at most [`CHUNK`]), in minting order, each given to `each` as its
    /// canonical text. The generators never fail and never wait long: a tick's values used
    /// up carry into the next tick.
    pub fn mint(&self, n: usize, mut each: impl FnMut(&str)) {
        let n = n.min(CHUNK);
        let mut text = String::with_capacity(MAX_TEXT);
        let mut put = |id: &dyn std::fmt::Display| {
            text.clear();
            // Writing into a String cannot fail.
            let _ = write!(text, "{id}");
            each(&text);
        };
        match self {
            Generator128::Uuid7(gen) => {
                let mut ids = vec![Uuid7::from_fields(0, 0, 0); n];
                gen.fill(&mut ids);
                ids.iter().for_each(|id| put(id));
            }
            Generator128::Ulid(gen) => {
                let mut ids = vec![Ulid::from_u128(0); n];
                gen.fill(&mut ids);
                ids.iter().for_each(|id| put(id));
            }
        }
    }
}

impl Generator128 {
    /// Mints `n` IDs (at most [`CHUNK`]), in minting order, each given to `each` as a value
    /// (the gRPC calls send their bytes).
    pub fn mint_ids(&self, n: usize, mut each: impl FnMut(Id128)) {
        let n = n.min(CHUNK);
        match self {
            Generator128::Uuid7(gen) => {
                let mut ids = vec![Uuid7::from_fields(0, 0, 0); n];
                gen.fill(&mut ids);
                ids.into_iter().for_each(|id| each(Id128::Uuid7(id)));
            }
            Generator128::Ulid(gen) => {
                let mut ids = vec![Ulid::from_u128(0); n];
                gen.fill(&mut ids);
                ids.into_iter().for_each(|id| each(Id128::Ulid(id)));
            }
        }
    }

    /// Mints `n` IDs (at most [`CHUNK`]) as [`mint_ids`](Self::mint_ids) does, each given to
    /// `each` as its 16 canonical bytes (big-endian).
    pub fn mint_bytes(&self, n: usize, mut each: impl FnMut(&[u8; 16])) {
        self.mint_ids(n, |id| each(&id.to_bytes()));
    }
}

/// One generator of each kind, as the service keeps them (made at its start, so that no
/// request waits for a clock's set-up).
pub struct Generators {
    uuid7: Generator128,
    ulid: Generator128,
}

impl Generators {
    pub fn new() -> Generators {
        Generators {
            uuid7: Generator128::new(Kind::Uuid7),
            ulid: Generator128::new(Kind::Ulid),
        }
    }

    /// The generator of `kind`.
    pub fn of(&self, kind: Kind) -> &Generator128 {
        match kind {
            Kind::Uuid7 => &self.uuid7,
            Kind::Ulid => &self.ulid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_pick_the_kind_and_errors_name_it() {
        let uuid = "018f3a5c-7d2e-7abc-8def-0123456789ab";
        let read = Id128::detect(uuid.as_bytes()).unwrap().unwrap();
        assert_eq!(read.kind(), Kind::Uuid7);
        // Any case in, lowercase out.
        let upper = Id128::detect(uuid.to_uppercase().as_bytes())
            .unwrap()
            .unwrap();
        assert_eq!(upper.to_string(), uuid);
        let ulid = "01HZ3V5M6N7P8Q9R0S1T2V3W4X";
        let read = Id128::detect(ulid.to_lowercase().as_bytes())
            .unwrap()
            .unwrap();
        assert_eq!((read.kind(), read.to_string().as_str()), (Kind::Ulid, ulid));
        // A version-4 UUID has the shape and is refused with the library's reason.
        let v4 = Id128::detect(b"018f3a5c-7d2e-4abc-8def-0123456789ab").unwrap();
        assert!(v4.unwrap_err().contains("is not a uuid7 ID"));
        // The 26th character's overflow.
        let over = Id128::detect(b"8ZZZZZZZZZZZZZZZZZZZZZZZZZ").unwrap();
        assert!(over.unwrap_err().contains("is not a ulid ID"));
        assert!(Id128::detect(b"1541815603606036480").is_none());
        assert!(Id128::detect(b"018f3a5c7d2e7abc8def0123456789ab").is_none());
    }

    #[test]
    fn a_described_id_has_its_time() {
        let id = Id128::Ulid(Ulid::from_parts(1_656_432_460_105, 7));
        assert_eq!(
            id.describe("x", false),
            format!("id={id} time=2022-06-28T16:07:40.105Z unix_ms=1656432460105 encoding=ulid")
        );
        let line = id.describe("x", true);
        assert!(line.contains(r#""unix_ms":1656432460105"#), "{line}");
    }

    #[test]
    fn minted_texts_increase() {
        for kind in [Kind::Uuid7, Kind::Ulid] {
            let gen = Generator128::new(kind);
            let mut texts = Vec::new();
            gen.mint(CHUNK + 5, |t| texts.push(t.to_owned()));
            gen.mint(3, |t| texts.push(t.to_owned()));
            assert_eq!(texts.len(), CHUNK + 3);
            // Canonical texts are fixed-width in one case, so text order is value order.
            assert!(texts.windows(2).all(|w| w[0] < w[1]), "{kind:?}");
        }
    }
}
