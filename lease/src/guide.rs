//! The guide to leases (prose only).
#![doc = include_str!("guide.md")]
