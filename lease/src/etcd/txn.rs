//! The parts of etcd's requests and answers the store and the operator's calls use: a
//! transaction's conditions and operations, the key-values of its answers, and the text of
//! keys and values.

use super::proto::compare::{CompareResult, CompareTarget, TargetUnion};
use super::proto::request_op::Request;
use super::proto::response_op::Response;
use super::proto::{
    Compare, DeleteRangeRequest, KeyValue, PutRequest, RangeRequest, RequestOp, TxnRequest,
    TxnResponse,
};

/// A transaction: if every one of `compare` holds, `success`, else `failure`.
pub(super) fn txn(
    compare: Vec<Compare>,
    success: Vec<RequestOp>,
    failure: Vec<RequestOp>,
) -> TxnRequest {
    TxnRequest {
        compare,
        success,
        failure,
    }
}

/// A transaction's condition: `key` was last written at `revision` (0: it does not exist).
pub(super) fn modified_at(key: &str, revision: u64) -> Compare {
    equal(
        key,
        CompareTarget::Mod,
        TargetUnion::ModRevision(signed(revision)),
    )
}

/// A transaction's condition: `key` was created at `revision` (0: it does not exist).
pub(super) fn created_at(key: &str, revision: u64) -> Compare {
    equal(
        key,
        CompareTarget::Create,
        TargetUnion::CreateRevision(signed(revision)),
    )
}

fn equal(key: &str, target: CompareTarget, value: TargetUnion) -> Compare {
    Compare {
        result: CompareResult::Equal.into(),
        target: target.into(),
        key: key.as_bytes().to_vec(),
        target_union: Some(value),
    }
}

/// A revision as etcd's `int64` (revisions are positive and far below `i64::MAX`).
fn signed(revision: u64) -> i64 {
    i64::try_from(revision).unwrap_or(i64::MAX)
}

/// An operation that writes `value` at `key`, attached to etcd lease `lease` (0: none).
pub(super) fn put(key: &str, value: &str, lease: i64) -> RequestOp {
    RequestOp {
        request: Some(Request::RequestPut(PutRequest {
            key: key.as_bytes().to_vec(),
            value: value.as_bytes().to_vec(),
            lease,
        })),
    }
}

/// An operation that reads `key`.
pub(super) fn get(key: &str) -> RequestOp {
    RequestOp {
        request: Some(Request::RequestRange(RangeRequest {
            key: key.as_bytes().to_vec(),
            range_end: Vec::new(),
        })),
    }
}

/// An operation that deletes `key`.
pub(super) fn delete(key: &str) -> RequestOp {
    RequestOp {
        request: Some(Request::RequestDeleteRange(DeleteRangeRequest {
            key: key.as_bytes().to_vec(),
            range_end: Vec::new(),
        })),
    }
}

/// A read of every key starting with `prefix`.
pub(super) fn prefixed(prefix: &str) -> RangeRequest {
    RangeRequest {
        key: prefix.as_bytes().to_vec(),
        range_end: prefix_end(prefix.as_bytes()),
    }
}

/// The key-value the `i`-th read of a transaction's answer found, if any.
pub(super) fn found(answer: &TxnResponse, i: usize) -> Option<&KeyValue> {
    match answer.responses.get(i)?.response.as_ref()? {
        Response::ResponseRange(range) => range.kvs.first(),
        _ => None,
    }
}

/// The revision the answer was applied at.
pub(super) fn revision(answer: &TxnResponse) -> u64 {
    answer
        .header
        .as_ref()
        .map_or(0, |h| h.revision.max(0).unsigned_abs())
}

/// A key's or value's bytes as text (`None` if not UTF-8).
pub(super) fn text(bytes: &[u8]) -> Option<&str> {
    core::str::from_utf8(bytes).ok()
}

/// An `int64` revision or lease of etcd's as a `u64` (0 for none, never negative).
pub(super) fn unsigned(value: i64) -> u64 {
    value.max(0).unsigned_abs()
}

/// The key after every key with `prefix` (etcd's `range_end` for a prefix).
pub(super) fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0]
}

#[cfg(test)]
mod tests {
    use super::prefix_end;

    #[test]
    fn a_prefix_ends_after_its_last_byte_is_raised() {
        assert_eq!(prefix_end(b"a/b/"), b"a/b0".to_vec());
        assert_eq!(prefix_end(b"a\xff"), b"b".to_vec());
        assert_eq!(prefix_end(b"\xff"), vec![0]);
    }
}
