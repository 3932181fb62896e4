//! [`pinned_module!`]: the body of a `#[serde(with = "...")]` module that pins an [`Id`] to
//! one representation, with its `option` and `vec` forms, written once for
//! [`as_u64`](super::as_u64) and [`as_string`](super::as_string), which differ only in that
//! representation (the `STRING` of [`pinned`](super::pinned)) and the words and JSON of their
//! examples.
//!
//! [`Id`]: crate::Id

/// The items of a pinned `with` module: `serialize`, `deserialize`, and the `option` and
/// `vec` modules, each documented with an example in the module's own representation.
macro_rules! pinned_module {
    (
        module: $module:literal,
        string: $string:literal,
        as_one: $as_one:literal,
        from_one: $from_one:literal,
        each: $each:literal,
        one: $one:literal,
        seq: $seq:literal,
        other_one: $other_one:literal,
        mixed_seq: $mixed_seq:literal $(,)?
    ) => {
        use ::serde::{Deserializer, Serializer};

        use crate::id::Id;

        #[doc = concat!("Serializes `id` as ", $as_one, ".")]
        ///
        /// # Errors
        ///
        /// The serializer's own error, if it cannot write the value.
        ///
        /// ```
        /// let mut json = Vec::new();
        /// let id = snowmint::Id::from_u64(7);
        #[doc = concat!("snowmint::integrations::serde::", $module, "::serialize(&id, &mut serde_json::Serializer::new(&mut json))")]
        ///     .unwrap();
        #[doc = concat!("assert_eq!(json, br#\"", $one, "\"#);")]
        /// ```
        pub fn serialize<S: Serializer>(id: &Id, serializer: S) -> Result<S::Ok, S::Error> {
            super::pinned::serialize_pinned::<$string, S>(id, serializer)
        }

        #[doc = concat!("Deserializes an [`Id`] from ", $from_one, ".")]
        ///
        /// # Errors
        ///
        #[doc = concat!("The deserializer's error when the input is not ", $each, ", or is one that is not an ID.")]
        ///
        /// ```
        #[doc = concat!("let mut json = serde_json::Deserializer::from_str(r#\"", $one, "\"#);")]
        #[doc = concat!("let id = snowmint::integrations::serde::", $module, "::deserialize(&mut json).unwrap();")]
        /// assert_eq!(id, snowmint::Id::from_u64(7));
        /// ```
        pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
            super::pinned::deserialize_pinned::<$string, D>(deserializer)
        }

        #[doc = concat!("[`", $module, "`](super) for an `Option<Id>` field: `#[serde(with =")]
        #[doc = concat!("\"snowmint::integrations::serde::", $module, "::option\")]`, `None` as `null`. Add `#[serde(default)]` to")]
        /// read a missing field as `None`.
        ///
        /// ```
        /// use serde::{Deserialize, Serialize};
        /// use snowmint::Id;
        ///
        /// #[derive(Serialize, Deserialize, Debug, PartialEq)]
        /// struct Reply {
        #[doc = concat!("    #[serde(default, with = \"snowmint::integrations::serde::", $module, "::option\")]")]
        ///     parent: Option<Id>,
        /// }
        ///
        /// let reply = Reply { parent: Some(Id::from_u64(7)) };
        #[doc = concat!("assert_eq!(serde_json::to_string(&reply).unwrap(), r#\"{\"parent\":", $one, "}\"#);")]
        /// assert_eq!(serde_json::from_str::<Reply>(r#"{"parent":null}"#).unwrap(), Reply { parent: None });
        /// assert_eq!(serde_json::from_str::<Reply>("{}").unwrap(), Reply { parent: None });
        #[doc = concat!("assert!(serde_json::from_str::<Reply>(r#\"{\"parent\":", $other_one, "}\"#).is_err());")]
        /// ```
        pub mod option {
            use ::serde::{Deserializer, Serializer};

            use crate::id::Id;

            #[doc = concat!("Serializes `Some(id)` as ", $each, ", `None` as none (`null` in JSON).")]
            ///
            /// # Errors
            ///
            /// The serializer's own error, if it cannot write the value.
            ///
            /// ```
            /// let mut json = Vec::new();
            /// let id = Some(snowmint::Id::from_u64(7));
            #[doc = concat!("snowmint::integrations::serde::", $module, "::option::serialize(&id, &mut serde_json::Serializer::new(&mut json))")]
            ///     .unwrap();
            #[doc = concat!("assert_eq!(json, br#\"", $one, "\"#);")]
            /// ```
            pub fn serialize<S: Serializer>(
                id: &Option<Id>,
                serializer: S,
            ) -> Result<S::Ok, S::Error> {
                super::super::pinned::serialize_option::<$string, S>(id, serializer)
            }

            #[doc = concat!("Deserializes none (`null`) as `None`, ", $each, " as `Some(id)`.")]
            ///
            /// # Errors
            ///
            #[doc = concat!("The deserializer's error when the input is neither none nor ", $each, ", or is one that is not an ID.")]
            ///
            /// ```
            /// let mut json = serde_json::Deserializer::from_str("null");
            #[doc = concat!("assert_eq!(snowmint::integrations::serde::", $module, "::option::deserialize(&mut json).unwrap(), None);")]
            /// ```
            pub fn deserialize<'de, D: Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Option<Id>, D::Error> {
                super::super::pinned::deserialize_option::<$string, D>(deserializer)
            }
        }

        #[doc = concat!("[`", $module, "`](super) for a `Vec<Id>` field: `#[serde(with =")]
        #[doc = concat!("\"snowmint::integrations::serde::", $module, "::vec\")]`, each element ", $each, ".")]
        ///
        /// ```
        /// use serde::{Deserialize, Serialize};
        /// use snowmint::Id;
        ///
        /// #[derive(Serialize, Deserialize, Debug, PartialEq)]
        /// struct Page {
        #[doc = concat!("    #[serde(with = \"snowmint::integrations::serde::", $module, "::vec\")]")]
        ///     ids: Vec<Id>,
        /// }
        ///
        /// let page = Page { ids: vec![Id::from_u64(7), Id::from_u64(8)] };
        /// let json = serde_json::to_string(&page).unwrap();
        #[doc = concat!("assert_eq!(json, r#\"{\"ids\":", $seq, "}\"#);")]
        /// assert_eq!(serde_json::from_str::<Page>(&json).unwrap(), page);
        #[doc = concat!("assert!(serde_json::from_str::<Page>(r#\"{\"ids\":", $mixed_seq, "}\"#).is_err());")]
        /// ```
        pub mod vec {
            use ::serde::{Deserializer, Serializer};

            use crate::id::Id;

            #[doc = concat!("Serializes the IDs as a sequence, each ", $each, ". Takes any slice, so a `Box<[Id]>`")]
            /// field can use it too.
            ///
            /// # Errors
            ///
            /// The serializer's own error, if it cannot write the value.
            ///
            /// ```
            /// let mut json = Vec::new();
            /// let ids = vec![snowmint::Id::from_u64(7), snowmint::Id::from_u64(8)];
            #[doc = concat!("snowmint::integrations::serde::", $module, "::vec::serialize(&ids, &mut serde_json::Serializer::new(&mut json))")]
            ///     .unwrap();
            #[doc = concat!("assert_eq!(json, br#\"", $seq, "\"#);")]
            /// ```
            pub fn serialize<S: Serializer>(ids: &[Id], serializer: S) -> Result<S::Ok, S::Error> {
                super::super::pinned::serialize_seq::<$string, S>(ids, serializer)
            }

            #[doc = concat!("Deserializes a sequence, each element ", $each, ".")]
            ///
            /// # Errors
            ///
            #[doc = concat!("The deserializer's error when the input is not a sequence, or an element is not ", $each, " or not an ID.")]
            ///
            /// ```
            #[doc = concat!("let mut json = serde_json::Deserializer::from_str(r#\"", $seq, "\"#);")]
            #[doc = concat!("let ids = snowmint::integrations::serde::", $module, "::vec::deserialize(&mut json).unwrap();")]
            /// assert_eq!(ids, [snowmint::Id::from_u64(7), snowmint::Id::from_u64(8)]);
            /// ```
            pub fn deserialize<'de, D: Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Vec<Id>, D::Error> {
                super::super::pinned::deserialize_vec::<$string, D>(deserializer)
            }
        }
    };
}

pub(super) use pinned_module;
