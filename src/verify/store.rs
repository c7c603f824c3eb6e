//! PURE: how a record read from JSON is held: [`Owned`] (every field its
//! own value, as writers build it) or [`Borrowed`] from the text it was
//! read from (strings borrowed, compound values kept as their raw JSON and
//! read only when asked). One type declares a layout once for both: the
//! audit line ([`crate::audit::Record`]) and the verifier result inside it
//! ([`crate::verify::verdict::VerifierResult`]) take a [`Store`] parameter
//! that defaults to [`Owned`].
//!
//! Why: `git vouch stats` reads a hundred thousand audit lines, and
//! allocating every string, list and JSON map of each whole record was
//! most of its time (BENCHMARKS.md); a borrowed record costs what a scan
//! of the line costs. Nothing here touches the file system.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

/// How a record's fields are held. A field declared `S::Str` is a string;
/// one declared `S::Lazy<T>` is a `T` when owned, and its raw JSON text,
/// read into a `T` only when asked ([`Raw::read`]), when borrowed.
pub trait Store {
    /// A string.
    type Str: AsRef<str> + Default + Clone + fmt::Debug + PartialEq;
    /// A value read only when asked.
    type Lazy<T: Clone + fmt::Debug + PartialEq>: Clone + fmt::Debug + PartialEq;
}

/// Every field is its own value: what writers build and what `git vouch
/// log` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Owned;

impl Store for Owned {
    type Str = String;
    type Lazy<T: Clone + fmt::Debug + PartialEq> = T;
}

/// Fields borrowed from the text `'a` the record was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Borrowed<'a>(PhantomData<&'a str>);

impl<'a> Store for Borrowed<'a> {
    type Str = Text<'a>;
    type Lazy<T: Clone + fmt::Debug + PartialEq> = Raw<'a, T>;
}

/// A string borrowed from the text it was read from when it holds no
/// escape, owned when it does (serde's own `Cow` is always owned inside an
/// `Option` or a `Vec`).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text<'a>(pub Cow<'a, str>);

impl Text<'_> {
    /// The string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text<'_> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Str;
        impl<'de> serde::de::Visitor<'de> for Str {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(Str)
    }
}

/// A value kept as its raw JSON text, read into a `T` only when asked;
/// empty when the field was absent. Reading it costs what skipping it
/// costs.
pub struct Raw<'a, T>(Option<&'a RawValue>, PhantomData<fn() -> T>);

impl<'a, T> Raw<'a, T> {
    /// The raw JSON text; `None` when the field was absent.
    pub fn text(&self) -> Option<&'a str> {
        self.0.map(RawValue::get)
    }
}

impl<T: DeserializeOwned> Raw<'_, T> {
    /// The value; `None` when the field was absent.
    ///
    /// # Errors
    ///
    /// serde's words, when the text is not a `T`.
    pub fn read(&self) -> serde_json::Result<Option<T>> {
        self.text().map(serde_json::from_str).transpose()
    }
}

impl<T> Clone for Raw<'_, T> {
    fn clone(&self) -> Self {
        Self(self.0, PhantomData)
    }
}

impl<T> Default for Raw<'_, T> {
    fn default() -> Self {
        Self(None, PhantomData)
    }
}

impl<T> fmt::Debug for Raw<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Raw").field(&self.text()).finish()
    }
}

impl<T> PartialEq for Raw<'_, T> {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

impl<'de: 'a, 'a, T> Deserialize<'de> for Raw<'a, T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Self(Some(<&'a RawValue>::deserialize(d)?), PhantomData))
    }
}

/// Whether a value is left out of the line it is written to (`null`, an
/// empty list): the `skip_serializing_if` of a field whose type is a
/// [`Store`]'s. Only owned values are written.
pub trait Empty {
    /// Whether it is left out.
    fn is_empty(&self) -> bool;
}

impl Empty for serde_json::Value {
    fn is_empty(&self) -> bool {
        self.is_null()
    }
}

impl<T> Empty for Vec<T> {
    fn is_empty(&self) -> bool {
        Vec::is_empty(self)
    }
}

/// [`Empty::is_empty`], as serde's `skip_serializing_if` calls it.
pub fn is_empty<T: Empty>(v: &T) -> bool {
    v.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_borrows_unless_the_string_has_an_escape() {
        let plain: Text<'_> = serde_json::from_str("\"main\"").unwrap();
        assert!(matches!(plain.0, Cow::Borrowed("main")));
        let escaped: Text<'_> = serde_json::from_str(r#""a \"b\"""#).unwrap();
        assert!(matches!(escaped.0, Cow::Owned(ref s) if s == "a \"b\""));
        let inside: Option<Text<'_>> = serde_json::from_str("\"x\"").unwrap();
        assert!(matches!(inside, Some(Text(Cow::Borrowed("x")))));
    }

    #[test]
    fn raw_keeps_the_text_and_reads_it_when_asked() {
        let raw: Raw<'_, Vec<u32>> = serde_json::from_str("[1, 2]").unwrap();
        assert_eq!(raw.text(), Some("[1, 2]"));
        assert_eq!(raw.read().unwrap(), Some(vec![1, 2]));
        assert_eq!(Raw::<Vec<u32>>::default().read().unwrap(), None);
        let wrong: Raw<'_, Vec<u32>> = serde_json::from_str("\"no\"").unwrap();
        assert!(wrong.read().is_err());
    }
}
