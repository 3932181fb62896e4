//! [`Id`] as a PostgreSQL `BIGINT` column and [`Uuid7`](crate::Uuid7) as a `uuid` column
//! for the `postgres` and `tokio-postgres` crates (feature `postgres`: `ToSql` and `FromSql`
//! of `postgres-types` 0.2; `Vec<Uuid7>` binds as `uuid[]`).
//!
//! An ID is written and read as `BIGINT` (`INT8`), so `ORDER BY id` is the IDs' order, and so
//! their time order, and a range of IDs from [`Layout::first_id_at`] to
//! [`Layout::last_id_at`] is a time window the primary key's index answers. `Vec<Id>` and
//! `&[Id]` bind as `BIGINT[]` (for `= ANY($1)` and `unnest($1)`), `Option<Id>` as a nullable
//! column.
//!
//! The conversion is checked both ways (see [`BigintError`]): binding an ID above
//! `i64::MAX`, which only a 64-bit layout mints, is an error and sends nothing; reading a
//! negative `BIGINT` is an error, never a wrapped ID.
//!
//! ```no_run
//! use postgres::{Client, NoTls};
//! use snowmint::{Generator, Id, Layout};
//!
//! let mut db = Client::connect("postgres://postgres@127.0.0.1:5432/postgres", NoTls)?;
//! db.batch_execute("CREATE TABLE IF NOT EXISTS events (id BIGINT PRIMARY KEY, body TEXT)")?;
//!
//! let gen = Generator::new(Layout::TWITTER, 1)?;
//! let id = gen.next_id()?;
//! db.execute("INSERT INTO events (id, body) VALUES ($1, $2)", &[&id, &"hello"])?;
//!
//! // The last minute's events, through the primary key's index.
//! let now = std::time::SystemTime::now();
//! let from = Layout::TWITTER.first_id_at(now - std::time::Duration::from_secs(60))?;
//! let to = Layout::TWITTER.last_id_at(now)?;
//! for row in db.query("SELECT id FROM events WHERE id BETWEEN $1 AND $2 ORDER BY id", &[&from, &to])? {
//!     let id: Id = row.get(0);
//!     println!("{id}: {:?}", Layout::TWITTER.decode(id).time());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Layout::first_id_at`]: crate::Layout::first_id_at
//! [`Layout::last_id_at`]: crate::Layout::last_id_at
//! [`BigintError`]: crate::BigintError

use std::error::Error;

use bytes::BytesMut;
use postgres_types::{accepts, to_sql_checked, FromSql, IsNull, ToSql, Type};

use crate::id::Id;

impl ToSql for Id {
    /// Writes the ID as a `BIGINT`, or fails with [`BigintError::IdTooLarge`](crate::BigintError::IdTooLarge) above
    /// `i64::MAX`.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use postgres_types::{ToSql, Type};
    /// use snowmint::{BigintError, Id};
    ///
    /// let mut buf = BytesMut::new();
    /// Id::from_u64(42).to_sql(&Type::INT8, &mut buf).unwrap();
    /// assert_eq!(&buf[..], &42_i64.to_be_bytes());
    ///
    /// let err = Id::MAX.to_sql(&Type::INT8, &mut buf).err().unwrap();
    /// assert_eq!(err.downcast_ref(), Some(&BigintError::IdTooLarge { id: Id::MAX }));
    /// ```
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        i64::try_from(*self)?.to_sql(ty, out)
    }

    accepts!(INT8);

    to_sql_checked!();
}

impl<'a> FromSql<'a> for Id {
    /// Reads a `BIGINT`, or fails with [`BigintError::Negative`](crate::BigintError::Negative) when it is negative.
    ///
    /// ```
    /// use postgres_types::{FromSql, Type};
    /// use snowmint::{BigintError, Id};
    ///
    /// assert_eq!(Id::from_sql(&Type::INT8, &42_i64.to_be_bytes()).unwrap(), Id::from_u64(42));
    /// let err = Id::from_sql(&Type::INT8, &(-1_i64).to_be_bytes()).unwrap_err();
    /// assert_eq!(err.downcast_ref(), Some(&BigintError::Negative { value: -1 }));
    /// ```
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Id, Box<dyn Error + Sync + Send>> {
        Ok(Id::try_from(i64::from_sql(ty, raw)?)?)
    }

    accepts!(INT8);
}

/// [`Uuid7`](crate::Uuid7) as a PostgreSQL `uuid`: the 16 bytes in RFC order, so
/// `ORDER BY` the column is the IDs' order (PostgreSQL compares `uuid`s bytewise).
impl ToSql for crate::id128::Uuid7 {
    /// Writes the 16 bytes.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use postgres_types::{ToSql, Type};
    /// use snowmint::Uuid7;
    ///
    /// let id: Uuid7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse()?;
    /// let mut buf = BytesMut::new();
    /// id.to_sql(&Type::UUID, &mut buf).unwrap();
    /// assert_eq!(&buf[..], &id.to_bytes());
    /// # Ok::<(), snowmint::Id128Error>(())
    /// ```
    fn to_sql(
        &self,
        _ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        out.extend_from_slice(&self.to_bytes());
        Ok(IsNull::No)
    }

    accepts!(UUID);

    to_sql_checked!();
}

impl<'a> FromSql<'a> for crate::id128::Uuid7 {
    /// Reads 16 bytes, or fails with the [`Id128Error`](crate::Id128Error) of a UUID that is
    /// not version 7 and the RFC variant (or of a value that is not 16 bytes long).
    ///
    /// ```
    /// use postgres_types::{FromSql, Type};
    /// use snowmint::{Id128Error, Uuid7};
    ///
    /// let id: Uuid7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse()?;
    /// assert_eq!(Uuid7::from_sql(&Type::UUID, &id.to_bytes()).unwrap(), id);
    /// let v4 = [0x40; 16];
    /// let err = Uuid7::from_sql(&Type::UUID, &v4).unwrap_err();
    /// assert_eq!(err.downcast_ref(), Some(&Id128Error::NotVersion7 { version: 4 }));
    /// # Ok::<(), Id128Error>(())
    /// ```
    fn from_sql(_ty: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn Error + Sync + Send>> {
        let bytes: [u8; 16] = raw
            .try_into()
            .map_err(|_| format!("a PostgreSQL uuid is 16 bytes, this is {} bytes", raw.len()))?;
        Ok(crate::id128::Uuid7::from_bytes(bytes)?)
    }

    accepts!(UUID);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::BigintError;

    #[test]
    fn accepts_only_bigint() {
        assert!(<Id as ToSql>::accepts(&Type::INT8));
        assert!(<Id as FromSql>::accepts(&Type::INT8));
        for ty in [Type::INT4, Type::INT2, Type::NUMERIC, Type::TEXT, Type::OID] {
            assert!(!<Id as ToSql>::accepts(&ty), "{ty}");
            assert!(!<Id as FromSql>::accepts(&ty), "{ty}");
        }
        // Arrays come with the element type.
        assert!(<Vec<Id> as ToSql>::accepts(&Type::INT8_ARRAY));
        assert!(<Vec<Id> as FromSql>::accepts(&Type::INT8_ARRAY));
    }

    #[test]
    fn bytes_are_the_bigint_bytes() {
        for v in [0_i64, 1, 1 << 40, i64::MAX] {
            let mut buf = BytesMut::new();
            let id = Id::from_u64(v as u64);
            assert!(matches!(
                id.to_sql_checked(&Type::INT8, &mut buf),
                Ok(IsNull::No)
            ));
            assert_eq!(&buf[..], &v.to_be_bytes());
            assert_eq!(Id::from_sql(&Type::INT8, &buf).unwrap(), id);
        }
    }

    #[test]
    fn refuses_wrong_types_and_out_of_range_values() {
        let mut buf = BytesMut::new();
        // The checked entry point refuses a column of another type.
        assert!(Id::from_u64(1)
            .to_sql_checked(&Type::INT4, &mut buf)
            .is_err());
        let err = Id::from_u64(1 << 63)
            .to_sql(&Type::INT8, &mut buf)
            .err()
            .expect("an encode error");
        assert_eq!(
            err.to_string(),
            "ID 9223372036854775808 does not fit in BIGINT: allowed 0 to 9223372036854775807"
        );
        assert!(buf.is_empty(), "nothing is written for a refused ID");
        let err = Id::from_sql(&Type::INT8, &i64::MIN.to_be_bytes()).unwrap_err();
        assert_eq!(
            err.downcast_ref(),
            Some(&BigintError::Negative { value: i64::MIN })
        );
    }
}
