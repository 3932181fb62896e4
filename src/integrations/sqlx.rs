//! [`Id`] as a PostgreSQL `BIGINT` column and [`Uuid7`](crate::Uuid7) as a `uuid` column
//! for sqlx 0.8 (feature `sqlx`: `Type`, `Encode`, `Decode` and `PgHasArrayType` for
//! `sqlx::Postgres`).
//!
//! The feature turns on sqlx's Postgres driver and nothing else (no runtime, TLS or macros):
//! the application picks those on its own `sqlx` dependency, which must be 0.8.
//!
//! An ID is bound and read as `BIGINT` (`INT8`), so `ORDER BY id` is the IDs' order, and so
//! their time order, and a range of IDs from [`Layout::first_id_at`] to
//! [`Layout::last_id_at`] is a time window the primary key's index answers. `Vec<Id>` and
//! `&[Id]` bind as `BIGINT[]`, `Option<Id>` as a nullable column, and `#[derive(FromRow)]`
//! structs may hold `Id` fields.
//!
//! The conversion is checked both ways (see [`BigintError`]): binding an ID above
//! `i64::MAX`, which only a 64-bit layout mints, is an error and the query is not sent
//! (`sqlx::Error::Encode`; sqlx 0.8's `bind` keeps the error's message, "Encoding argument
//! $1 failed: ID … does not fit in BIGINT: allowed 0 to 9223372036854775807", not its type);
//! reading a negative `BIGINT` is an error (`sqlx::Error::ColumnDecode`, whose source is the
//! [`BigintError`]), never a wrapped ID.
//!
//! ```no_run
//! use snowmint::{Generator, Id, Layout};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let pool = sqlx::PgPool::connect("postgres://postgres@127.0.0.1:5432/postgres").await?;
//! sqlx::query("CREATE TABLE IF NOT EXISTS events (id BIGINT PRIMARY KEY, body TEXT)")
//!     .execute(&pool)
//!     .await?;
//!
//! let gen = Generator::new(Layout::TWITTER, 1)?;
//! let id = gen.next_id()?;
//! sqlx::query("INSERT INTO events (id, body) VALUES ($1, $2)")
//!     .bind(id)
//!     .bind("hello")
//!     .execute(&pool)
//!     .await?;
//!
//! // The last minute's events, through the primary key's index.
//! let now = std::time::SystemTime::now();
//! let from = Layout::TWITTER.first_id_at(now - std::time::Duration::from_secs(60))?;
//! let to = Layout::TWITTER.last_id_at(now)?;
//! let ids: Vec<Id> =
//!     sqlx::query_scalar("SELECT id FROM events WHERE id BETWEEN $1 AND $2 ORDER BY id")
//!         .bind(from)
//!         .bind(to)
//!         .fetch_all(&pool)
//!         .await?;
//! # Ok(())
//! # }
//! ```
//!
//! [`Layout::first_id_at`]: crate::Layout::first_id_at
//! [`Layout::last_id_at`]: crate::Layout::last_id_at
//! [`BigintError`]: crate::BigintError

use ::sqlx::encode::IsNull;
use ::sqlx::error::BoxDynError;
use ::sqlx::postgres::{PgArgumentBuffer, PgHasArrayType, PgTypeInfo, PgValueRef};
use ::sqlx::{Decode, Encode, Postgres, Type};

use crate::id::Id;

impl Type<Postgres> for Id {
    /// `BIGINT` (`INT8`).
    ///
    /// ```
    /// use sqlx::{postgres::PgTypeInfo, Postgres, Type};
    /// assert_eq!(<snowmint::Id as Type<Postgres>>::type_info(), PgTypeInfo::with_name("INT8"));
    /// ```
    fn type_info() -> PgTypeInfo {
        <i64 as Type<Postgres>>::type_info()
    }

    /// The columns an `i64` reads: `BIGINT` only.
    ///
    /// ```
    /// use sqlx::{postgres::PgTypeInfo, Postgres, Type};
    /// assert!(<snowmint::Id as Type<Postgres>>::compatible(&PgTypeInfo::with_name("INT8")));
    /// ```
    fn compatible(ty: &PgTypeInfo) -> bool {
        <i64 as Type<Postgres>>::compatible(ty)
    }
}

impl PgHasArrayType for Id {
    /// `BIGINT[]` (`INT8[]`), so `Vec<Id>` and `&[Id]` bind as arrays.
    ///
    /// ```
    /// use sqlx::postgres::{PgHasArrayType, PgTypeInfo};
    /// assert_eq!(snowmint::Id::array_type_info(), PgTypeInfo::with_name("_INT8"));
    /// ```
    fn array_type_info() -> PgTypeInfo {
        <i64 as PgHasArrayType>::array_type_info()
    }
}

impl Encode<'_, Postgres> for Id {
    /// Writes the ID as a `BIGINT`, or fails with [`BigintError::IdTooLarge`](crate::BigintError::IdTooLarge) above
    /// `i64::MAX`.
    ///
    /// ```
    /// use sqlx::{postgres::PgArgumentBuffer, Encode, Postgres};
    /// use snowmint::{BigintError, Id};
    ///
    /// let mut buf = PgArgumentBuffer::default();
    /// let ok = <Id as Encode<Postgres>>::encode_by_ref(&Id::from_u64(42), &mut buf);
    /// assert!(ok.is_ok());
    /// assert_eq!(&buf[..], &42_i64.to_be_bytes());
    ///
    /// let err = <Id as Encode<Postgres>>::encode_by_ref(&Id::MAX, &mut buf).err().unwrap();
    /// assert_eq!(err.downcast_ref(), Some(&BigintError::IdTooLarge { id: Id::MAX }));
    /// ```
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        <i64 as Encode<Postgres>>::encode(i64::try_from(*self)?, buf)
    }

    fn size_hint(&self) -> usize {
        core::mem::size_of::<i64>()
    }
}

impl Decode<'_, Postgres> for Id {
    /// Reads a `BIGINT`, or fails with [`BigintError::Negative`](crate::BigintError::Negative) when it is negative.
    ///
    /// ```no_run
    /// use snowmint::{BigintError, Id};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), sqlx::Error> {
    /// let pool = sqlx::PgPool::connect("postgres://postgres@127.0.0.1:5432/postgres").await?;
    /// let id: Id = sqlx::query_scalar("SELECT 42::BIGINT").fetch_one(&pool).await?;
    /// assert_eq!(id, Id::from_u64(42));
    ///
    /// let err = sqlx::query_scalar::<_, Id>("SELECT -1::BIGINT").fetch_one(&pool).await.unwrap_err();
    /// let sqlx::Error::ColumnDecode { source, .. } = err else { panic!("{err}") };
    /// assert_eq!(source.downcast_ref(), Some(&BigintError::Negative { value: -1 }));
    /// # Ok(())
    /// # }
    /// ```
    fn decode(value: PgValueRef<'_>) -> Result<Id, BoxDynError> {
        Ok(Id::try_from(<i64 as Decode<Postgres>>::decode(value)?)?)
    }
}

/// [`Uuid7`](crate::Uuid7) as a PostgreSQL `uuid`: the 16 bytes in RFC order, so `ORDER BY`
/// the column is the IDs' order.
///
/// ```
/// use sqlx::{postgres::{PgHasArrayType, PgTypeInfo}, Postgres, Type};
/// use snowmint::Uuid7;
/// assert_eq!(<Uuid7 as Type<Postgres>>::type_info(), PgTypeInfo::with_name("UUID"));
/// assert_eq!(Uuid7::array_type_info(), PgTypeInfo::with_name("_UUID"));
/// ```
impl Type<Postgres> for crate::id128::Uuid7 {
    fn type_info() -> PgTypeInfo {
        PgTypeInfo::with_name("UUID")
    }
}

impl PgHasArrayType for crate::id128::Uuid7 {
    fn array_type_info() -> PgTypeInfo {
        PgTypeInfo::with_name("_UUID")
    }
}

impl Encode<'_, Postgres> for crate::id128::Uuid7 {
    /// Writes the 16 bytes.
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        buf.extend_from_slice(&self.to_bytes());
        Ok(IsNull::No)
    }

    fn size_hint(&self) -> usize {
        16
    }
}

impl Decode<'_, Postgres> for crate::id128::Uuid7 {
    /// Reads 16 bytes (binary) or the text form, or fails with the
    /// [`Id128Error`](crate::Id128Error) of a UUID that is not version 7 and the RFC variant.
    fn decode(value: PgValueRef<'_>) -> Result<crate::id128::Uuid7, BoxDynError> {
        match value.format() {
            ::sqlx::postgres::PgValueFormat::Binary => {
                let raw = value.as_bytes()?;
                let bytes: [u8; 16] = raw.try_into().map_err(|_| {
                    format!("a PostgreSQL uuid is 16 bytes, this is {} bytes", raw.len())
                })?;
                Ok(crate::id128::Uuid7::from_bytes(bytes)?)
            }
            ::sqlx::postgres::PgValueFormat::Text => Ok(value.as_str()?.parse()?),
        }
    }
}
