//! JSON values as the iostat JSON reader looks at them: scalars it reads ([`Val`]), keys
//! borrowed from the text ([`KeySeed`]), and anything else parsed and dropped ([`Skip`]).
//!
//! Every value goes through `deserialize_any`, so nothing is skipped unparsed: a document
//! is accepted or refused by the JSON syntax exactly as a `serde_json::Value` parse does,
//! and a syntax error or the end of a cut document is met at the same place.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// A scalar as `serde_json::Value`'s `as_f64` and `as_str` see it; arrays, objects,
/// booleans and null are `Other`.
#[derive(Debug)]
pub(super) enum Val<'de> {
    Num(f64),
    Str(Cow<'de, str>),
    Other,
}

impl<'de> Val<'de> {
    /// The string, owned; `None` for any other value.
    pub(super) fn into_string(self) -> Option<String> {
        match self {
            Val::Str(s) => Some(s.into_owned()),
            _ => None,
        }
    }
}

/// Any JSON value, parsed and dropped.
pub(super) struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(Skip)?.is_some() {
            map.next_value_seed(Skip)?;
        }
        Ok(())
    }
}

/// A value as a [`Val`]; arrays and objects are parsed and become `Other`.
pub(super) struct ValSeed;

impl<'de> DeserializeSeed<'de> for ValSeed {
    type Value = Val<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Val<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValSeed {
    type Value = Val<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Val<'de>, E> {
        Ok(Val::Other)
    }
    // serde_json's `as_f64` of an integer: `as f64`.
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Val<'de>, E> {
        Ok(Val::Num(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Val<'de>, E> {
        Ok(Val::Num(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Val<'de>, E> {
        Ok(Val::Num(v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Val<'de>, E> {
        Ok(Val::Other)
    }
    fn visit_none<E: de::Error>(self) -> Result<Val<'de>, E> {
        Ok(Val::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Val<'de>, A::Error> {
        Skip.visit_seq(seq).map(|()| Val::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Val<'de>, A::Error> {
        Skip.visit_map(map).map(|()| Val::Other)
    }
}

/// An object key, borrowed from the text when it has no escapes.
pub(super) struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// The scalar `visit_*` methods of a visitor that wants an object or an array: any scalar
/// gives `$other` (the value is parsed already).
macro_rules! scalars_give {
    ($other:expr) => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
    };
}
pub(super) use scalars_give;

/// The scalar `visit_*` methods of a visitor that wants an object or an array: any scalar
/// gives what `self.$method()` gives (the value is parsed already).
macro_rules! scalars_call {
    ($method:ident) => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            self.$method()
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            self.$method()
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            self.$method()
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            self.$method()
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
            self.$method()
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            self.$method()
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            self.$method()
        }
    };
}
pub(super) use scalars_call;

/// Implements `DeserializeSeed` (with `deserialize_any`) for a visitor type `$t<'_, 'de>`.
macro_rules! seed {
    ($t:ident) => {
        impl<'de> serde::de::DeserializeSeed<'de> for $t<'_, 'de> {
            type Value = <Self as serde::de::Visitor<'de>>::Value;
            fn deserialize<D: serde::de::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
    };
}
pub(super) use seed;
