//! [`etcd_error`]: an etcd failure in the lease crate's terms, for every file of the store.

use crate::{LeaseError, StoreError, StoreErrorKind};

/// An etcd failure while `action`, in this crate's terms.
pub(super) fn etcd_error(
    action: &'static str,
    kind: StoreErrorKind,
    message: impl ToString,
) -> LeaseError {
    LeaseError::Store {
        store: "etcd",
        action,
        cause: StoreError::new(kind, message.to_string()),
    }
}
