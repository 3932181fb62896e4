//! serde support: a decimal string in human-readable formats, a u64 in binary ones.
#![cfg(feature = "serde")]

use std::fmt;

use serde::de::value::{Error as ValueError, I64Deserializer, U128Deserializer};
use serde::de::{IntoDeserializer, Visitor};
use serde::ser::Impossible;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use snowmint::Id;

const MAX_RANGE: &str = "0..=18446744073709551615";

/// Beyond 2^53, where JavaScript numbers lose precision: the reason for the string form.
const BIG: u64 = 1_428_076_403_798_048_769;

fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap()
}

fn from_json<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|err| err.to_string())
}

// ---------------------------------------------------------------------------------------
// Human-readable (JSON)

#[test]
fn json_writes_a_decimal_string() {
    assert_eq!(json(&Id::from_u64(0)), r#""0""#);
    assert_eq!(json(&Id::from_u64(BIG)), r#""1428076403798048769""#);
    assert_eq!(json(&Id::MAX), r#""18446744073709551615""#);
    // Precisely the precision JavaScript would lose as a number:
    assert_ne!(BIG as f64 as u64, BIG);
}

#[test]
fn json_round_trips_as_a_string() {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut values = vec![0, 1, (1 << 53) + 1, i64::MAX as u64, u64::MAX];
    for _ in 0..1_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        values.push(state);
    }
    for value in values {
        let id = Id::from_u64(value);
        let text = json(&id);
        assert_eq!(text, format!("\"{value}\""));
        assert_eq!(from_json::<Id>(&text), Ok(id));
    }
    let ids = vec![Some(Id::from_u64(BIG)), None, Some(Id::MAX)];
    let text = json(&ids);
    assert_eq!(
        text,
        r#"["1428076403798048769",null,"18446744073709551615"]"#
    );
    assert_eq!(from_json::<Vec<Option<Id>>>(&text), Ok(ids));
}

#[test]
fn json_accepts_numbers() {
    assert_eq!(from_json::<Id>("0"), Ok(Id::from_u64(0)));
    assert_eq!(
        from_json::<Id>("1428076403798048769"),
        Ok(Id::from_u64(BIG))
    );
    assert_eq!(from_json::<Id>("18446744073709551615"), Ok(Id::MAX));
    let value = serde_json::json!({ "id": 42 });
    assert_eq!(Id::deserialize(&value["id"]).unwrap(), Id::from_u64(42));
}

#[test]
fn accepts_non_negative_i64_and_in_range_u128() {
    let id = Id::deserialize(IntoDeserializer::<ValueError>::into_deserializer(7_i64));
    assert_eq!(id, Ok(Id::from_u64(7)));
    let de: I64Deserializer<ValueError> = i64::MAX.into_deserializer();
    assert_eq!(Id::deserialize(de), Ok(Id::from_u64(i64::MAX as u64)));
    let de: U128Deserializer<ValueError> = u128::from(u64::MAX).into_deserializer();
    assert_eq!(Id::deserialize(de), Ok(Id::MAX));
    let de: U128Deserializer<ValueError> = (u128::from(u64::MAX) + 1).into_deserializer();
    let err = Id::deserialize(de).unwrap_err().to_string();
    assert!(err.contains(MAX_RANGE), "{err}");
}

#[test]
fn rejects_negative_numbers_clearly() {
    for text in ["-1", "-9223372036854775808"] {
        let err = from_json::<Id>(text).unwrap_err();
        assert!(err.contains(text), "{err}");
        assert!(err.contains(MAX_RANGE), "{err}");
    }
    let de: I64Deserializer<ValueError> = (-5_i64).into_deserializer();
    let err = Id::deserialize(de).unwrap_err().to_string();
    assert!(err.contains("-5") && err.contains(MAX_RANGE), "{err}");
}

#[test]
fn rejects_bad_strings_with_the_parse_error() {
    let cases = [
        (r#""""#, "empty"),
        (r#""abc""#, "character 'a' at byte 0"),
        (r#""0123""#, "leading zero"),
        (r#""+1""#, "character '+' at byte 0"),
        (r#"" 1""#, "character ' ' at byte 0"),
        (r#""0x1f""#, "character 'x' at byte 1"),
        (
            r#""18446744073709551616""#,
            "exceeds the maximum 18446744073709551615",
        ),
    ];
    for (text, reason) in cases {
        let err = from_json::<Id>(text).unwrap_err();
        assert!(err.contains("invalid decimal ID"), "{text}: {err}");
        assert!(err.contains(reason), "{text}: {err}");
    }
}

#[test]
fn rejects_other_json_types() {
    for text in ["1.0", "18446744073709551616", "true", "null", "[1]", "{}"] {
        let err = from_json::<Id>(text).unwrap_err();
        assert!(
            err.contains("a decimal string or an integer"),
            "{text}: {err}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Pinned representations

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Numbers {
    #[serde(with = "snowmint::integrations::serde::as_u64")]
    id: Id,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Strings {
    #[serde(with = "snowmint::integrations::serde::as_string")]
    id: Id,
}

#[test]
fn as_u64_always_writes_a_number() {
    let row = Numbers { id: Id::MAX };
    let text = json(&row);
    assert_eq!(text, r#"{"id":18446744073709551615}"#);
    assert_eq!(from_json::<Numbers>(&text), Ok(row));
    assert_eq!(
        from_json::<Numbers>(r#"{"id":1428076403798048769}"#),
        Ok(Numbers {
            id: Id::from_u64(BIG)
        })
    );
}

#[test]
fn as_u64_rejects_strings_and_negatives() {
    let err = from_json::<Numbers>(r#"{"id":"42"}"#).unwrap_err();
    assert!(err.contains("integer") && err.contains(MAX_RANGE), "{err}");
    let err = from_json::<Numbers>(r#"{"id":-42}"#).unwrap_err();
    assert!(err.contains("-42") && err.contains(MAX_RANGE), "{err}");
}

#[test]
fn as_string_always_writes_a_string() {
    let row = Strings {
        id: Id::from_u64(BIG),
    };
    let text = json(&row);
    assert_eq!(text, r#"{"id":"1428076403798048769"}"#);
    assert_eq!(from_json::<Strings>(&text), Ok(row));
}

#[test]
fn as_string_rejects_numbers_and_bad_strings() {
    let err = from_json::<Strings>(r#"{"id":42}"#).unwrap_err();
    assert!(err.contains("decimal string"), "{err}");
    let err = from_json::<Strings>(r#"{"id":"042"}"#).unwrap_err();
    assert!(err.contains("leading zero"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Non-human-readable formats, with a minimal bincode-like (de)serializer written here so
// no dependency is needed: it records what it was asked to write, and it can only read
// the type it is asked for (it fails `deserialize_any`, as bincode does).

#[derive(Debug, PartialEq)]
enum Written {
    U64(u64),
    Str(String),
}

#[derive(Debug)]
struct BinaryError(String);

impl fmt::Display for BinaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BinaryError {}

impl serde::ser::Error for BinaryError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        BinaryError(msg.to_string())
    }
}

impl serde::de::Error for BinaryError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        BinaryError(msg.to_string())
    }
}

struct BinarySerializer;

macro_rules! unsupported {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {$(
        fn $method(self, $(_: $arg),*) -> Result<$ret, BinaryError> {
            Err(BinaryError(stringify!($method).to_owned()))
        }
    )*};
}

impl Serializer for BinarySerializer {
    type Ok = Written;
    type Error = BinaryError;
    type SerializeSeq = Impossible<Written, BinaryError>;
    type SerializeTuple = Impossible<Written, BinaryError>;
    type SerializeTupleStruct = Impossible<Written, BinaryError>;
    type SerializeTupleVariant = Impossible<Written, BinaryError>;
    type SerializeMap = Impossible<Written, BinaryError>;
    type SerializeStruct = Impossible<Written, BinaryError>;
    type SerializeStructVariant = Impossible<Written, BinaryError>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_u64(self, v: u64) -> Result<Written, BinaryError> {
        Ok(Written::U64(v))
    }

    fn serialize_str(self, v: &str) -> Result<Written, BinaryError> {
        Ok(Written::Str(v.to_owned()))
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Written, BinaryError> {
        Err(BinaryError("serialize_some".to_owned()))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<Written, BinaryError> {
        Err(BinaryError("serialize_newtype_struct".to_owned()))
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Written, BinaryError> {
        Err(BinaryError("serialize_newtype_variant".to_owned()))
    }

    unsupported! {
        serialize_bool(bool) -> Written;
        serialize_i8(i8) -> Written;
        serialize_i16(i16) -> Written;
        serialize_i32(i32) -> Written;
        serialize_i64(i64) -> Written;
        serialize_u8(u8) -> Written;
        serialize_u16(u16) -> Written;
        serialize_u32(u32) -> Written;
        serialize_f32(f32) -> Written;
        serialize_f64(f64) -> Written;
        serialize_char(char) -> Written;
        serialize_bytes(&[u8]) -> Written;
        serialize_none() -> Written;
        serialize_unit() -> Written;
        serialize_unit_struct(&'static str) -> Written;
        serialize_unit_variant(&'static str, u32, &'static str) -> Written;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeStructVariant;
    }
}

/// Reads back one `Written` value, but only as the type the caller asks for.
struct BinaryDeserializer(Written);

impl<'de> Deserializer<'de> for BinaryDeserializer {
    type Error = BinaryError;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, BinaryError> {
        Err(BinaryError("deserialize_any is not supported".to_owned()))
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, BinaryError> {
        match self.0 {
            Written::U64(v) => visitor.visit_u64(v),
            Written::Str(_) => Err(BinaryError("expected 8 bytes of u64".to_owned())),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, BinaryError> {
        match self.0 {
            Written::Str(v) => visitor.visit_str(&v),
            Written::U64(_) => Err(BinaryError("expected a length-prefixed string".to_owned())),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u128 f32 f64 char string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[test]
fn binary_formats_get_the_plain_u64() {
    for value in [0, 1, BIG, u64::MAX] {
        let id = Id::from_u64(value);
        let written = id.serialize(BinarySerializer).unwrap();
        assert_eq!(written, Written::U64(value));
        // Deserialize must ask for a u64, not deserialize_any (which bincode cannot do).
        assert_eq!(Id::deserialize(BinaryDeserializer(written)).unwrap(), id);
    }
}

#[test]
fn binary_formats_honour_the_pinned_representations() {
    let id = Id::from_u64(BIG);
    let written =
        snowmint::integrations::serde::as_string::serialize(&id, BinarySerializer).unwrap();
    assert_eq!(written, Written::Str(BIG.to_string()));
    let read =
        snowmint::integrations::serde::as_string::deserialize(BinaryDeserializer(written)).unwrap();
    assert_eq!(read, id);

    let written = snowmint::integrations::serde::as_u64::serialize(&id, BinarySerializer).unwrap();
    assert_eq!(written, Written::U64(BIG));
    let read =
        snowmint::integrations::serde::as_u64::deserialize(BinaryDeserializer(written)).unwrap();
    assert_eq!(read, id);
}

// ---------------------------------------------------------------------------------------
// Pinned representations of Option<Id> and Vec<Id>

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Containers {
    #[serde(default, with = "snowmint::integrations::serde::as_u64::option")]
    number: Option<Id>,
    #[serde(default, with = "snowmint::integrations::serde::as_string::option")]
    string: Option<Id>,
    #[serde(with = "snowmint::integrations::serde::as_u64::vec")]
    numbers: Vec<Id>,
    #[serde(with = "snowmint::integrations::serde::as_string::vec")]
    strings: Vec<Id>,
}

#[test]
fn options_and_vectors_take_the_pinned_representation() {
    let big = Id::from_u64(BIG);
    let all = Containers {
        number: Some(big),
        string: Some(Id::MAX),
        numbers: vec![Id::from_u64(0), big],
        strings: vec![big, Id::MAX],
    };
    let text = json(&all);
    assert_eq!(
        text,
        r#"{"number":1428076403798048769,"string":"18446744073709551615","numbers":[0,1428076403798048769],"strings":["1428076403798048769","18446744073709551615"]}"#
    );
    assert_eq!(from_json::<Containers>(&text), Ok(all));

    let empty = Containers {
        number: None,
        string: None,
        numbers: vec![],
        strings: vec![],
    };
    let text = json(&empty);
    assert_eq!(
        text,
        r#"{"number":null,"string":null,"numbers":[],"strings":[]}"#
    );
    assert_eq!(from_json::<Containers>(&text), Ok(empty));
    // `default`: a missing option reads as None.
    assert_eq!(
        from_json::<Containers>(r#"{"numbers":[],"strings":[]}"#),
        Ok(Containers {
            number: None,
            string: None,
            numbers: vec![],
            strings: vec![],
        })
    );
}

#[test]
fn options_and_vectors_refuse_the_other_representation_in_any_element() {
    let cases = [
        (r#"{"number":"7","numbers":[],"strings":[]}"#, "integer"),
        (
            r#"{"string":7,"numbers":[],"strings":[]}"#,
            "decimal string",
        ),
        (r#"{"numbers":[7,"8"],"strings":[]}"#, "integer"),
        (r#"{"numbers":[],"strings":["7",8]}"#, "decimal string"),
        (r#"{"numbers":[-1],"strings":[]}"#, "-1"),
        (r#"{"numbers":[],"strings":["07"]}"#, "leading zero"),
    ];
    for (text, reason) in cases {
        let err = from_json::<Containers>(text).unwrap_err();
        assert!(err.contains(reason), "{text}: {err}");
    }
}

// ---------------------------------------------------------------------------------------
// Decoded and Parts: the objects of `snowmint decode --json`

/// `snowmint decode --json` output for the ID under the layout, taken from the command, with
/// the members a `Decoded` cannot know (input, encoding, id, layout) removed.
fn decode_json_members(cli_line: &str) -> String {
    let start = cli_line.find(r#""time":"#).expect("a decode --json line");
    format!("{{{}", &cli_line[start..])
}

#[test]
fn decoded_serializes_as_decode_json_does() {
    use snowmint::Layout;
    use std::time::Duration;

    let custom = |unit: Duration, epoch_ms: Option<u64>| {
        let b = Layout::builder()
            .time_bits(50)
            .node_bits(5)
            .sequence_bits(8)
            .unit(unit);
        match epoch_ms {
            Some(ms) => b.epoch_unix_millis(ms),
            None => b,
        }
        .build()
        .unwrap()
    };
    // Each line as `snowmint decode --json -l LAYOUT ID` printed it.
    let cases = [
        (
            Layout::TWITTER,
            1_541_815_603_606_036_480,
            r#"{"input":"1541815603606036480","encoding":"decimal","id":"1541815603606036480","layout":"twitter","time":"2022-06-28T16:07:40.105Z","unix_ms":1656432460105,"ticks":367597485448,"node":378,"sequence":0}"#,
        ),
        (
            Layout::SONYFLAKE,
            1_541_815_603_606_036_480,
            r#"{"input":"1541815603606036480","encoding":"decimal","id":"1541815603606036480","layout":"sonyflake","time":"2043-10-15T12:01:53.620Z","unix_ms":2328523313620,"ticks":91899371362,"node":40960,"sequence":23}"#,
        ),
        (
            Layout::MASTODON,
            0,
            r#"{"input":"0","encoding":"decimal","id":"0","layout":"mastodon","time":"1970-01-01T00:00:00.000Z","unix_ms":0,"ticks":0,"node":0,"sequence":0}"#,
        ),
        // -l 'unit=1us,time=50,node=5,seq=8': microseconds shown.
        (
            custom(Duration::from_micros(1), None),
            1_541_815_603_606_036_480,
            r#"{"input":"1541815603606036480","encoding":"decimal","id":"1541815603606036480","layout":"custom","time":"2016-10-21T10:14:47.206565Z","unix_ms":1477044887206,"ticks":188209912549565,"node":0,"sequence":0}"#,
        ),
        // -l 'unit=7ns,time=50,node=5,seq=8,epoch=0': nanoseconds shown.
        (
            custom(Duration::from_nanos(7), Some(0)),
            1_541_815_603_606_036_481,
            r#"{"input":"1541815603606036481","encoding":"decimal","id":"1541815603606036481","layout":"custom","time":"1970-01-16T05:57:49.387846955Z","unix_ms":1317469387,"ticks":188209912549565,"node":0,"sequence":1}"#,
        ),
        // -l 'unit=1s,time=50,node=5,seq=8,epoch=0': still milliseconds.
        (
            custom(Duration::from_secs(1), Some(0)),
            1_000_000,
            r#"{"input":"1000000","encoding":"decimal","id":"1000000","layout":"custom","time":"1970-01-01T00:02:02.000Z","unix_ms":122000,"ticks":122,"node":2,"sequence":64}"#,
        ),
        // The same layout past year 9999: RFC 3339 cannot write it, so null.
        (
            custom(Duration::from_secs(1), Some(0)),
            9_223_372_036_854_775_807,
            r#"{"input":"9223372036854775807","encoding":"decimal","id":"9223372036854775807","layout":"custom","time":null,"unix_ms":1125899906842623000,"ticks":1125899906842623,"node":31,"sequence":255}"#,
        ),
    ];
    for (layout, id, cli_line) in cases {
        let decoded = layout.decode(Id::from_u64(id));
        assert_eq!(json(&decoded), decode_json_members(cli_line), "{id}");
    }
}

#[test]
fn parts_serialize_as_decode_json_s_members_and_read_back_strictly() {
    let parts = snowmint::Parts {
        node: 378,
        sequence: 4095,
    };
    assert_eq!(json(&parts), r#"{"node":378,"sequence":4095}"#);
    assert_eq!(from_json(r#"{"sequence":4095,"node":378}"#), Ok(parts));
    for (text, reason) in [
        (r#"{"node":1}"#, "missing field `sequence`"),
        (
            r#"{"node":1,"sequence":2,"time":3}"#,
            "unknown field `time`",
        ),
        (
            r#"{"node":1,"node":2,"sequence":3}"#,
            "duplicate field `node`",
        ),
        (r#"{"node":-1,"sequence":0}"#, "-1"),
        (r#"{"node":"1","sequence":0}"#, "string"),
    ] {
        let err = from_json::<snowmint::Parts>(text).unwrap_err();
        assert!(err.contains(reason), "{text}: {err}");
    }
    // A sequence, as binary formats write a struct.
    assert_eq!(from_json("[378,4095]"), Ok(parts));
}
