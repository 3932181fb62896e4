//! snowmint's benches, a package of their own so that the peers they race (ferroid,
//! snowflake_me, snowdon, snowflaked) and criterion are built only for them. The benches are
//! the files beside this one (see README.md); this library is empty.
