//! The seeds of single node and metadata fields: strings, scalars, numbers,
//! flags, `states` and `bounds`.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use uidelta_model::Rect;

use super::NodeFields;

/// `role`: a string, required.
pub(super) struct RoleName;

impl<'de> DeserializeSeed<'de> for RoleName {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for RoleName {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`role`: a role name (a string)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }
}

/// A string or null; the label names the field in errors.
pub(super) struct OptString(pub(super) &'static str);

impl<'de> DeserializeSeed<'de> for OptString {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for OptString {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: a string or null", self.0)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Text that foreign producers sometimes write as a number or a boolean (a
/// slider's value, an attribute flag): kept as its string form. Null is
/// absent.
pub(super) struct Scalar(pub(super) &'static str);

impl<'de> DeserializeSeed<'de> for Scalar {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Scalar {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: a string, number, boolean or null", self.0)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// `id`: a string or a number (CDP backend node ids are numbers).
pub(super) struct Identity;

impl<'de> DeserializeSeed<'de> for Identity {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Identity {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`id`: a string, number or null")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// A non-negative integer up to a maximum, or null.
pub(super) struct Unsigned(pub(super) &'static str, pub(super) u64);

impl<'de> DeserializeSeed<'de> for Unsigned {
    type Value = Option<u64>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Unsigned {
    type Value = Option<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: a non-negative integer or null", self.0)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        let Unsigned(what, max) = self;
        if v > max {
            return Err(E::custom(format_args!(
                "{what} {v} is out of range (at most {max})"
            )));
        }
        Ok(Some(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::custom(format_args!("{} {v} is negative", self.0))),
        }
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Any number, or null.
pub(super) struct Number(pub(super) &'static str);

impl<'de> DeserializeSeed<'de> for Number {
    type Value = Option<f64>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Number {
    type Value = Option<f64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: a number or null", self.0)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v as f64))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v as f64))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// A boolean; null is false.
pub(super) struct Flag(pub(super) &'static str);

impl<'de> DeserializeSeed<'de> for Flag {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Flag {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: true, false or null", self.0)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(v)
    }

    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }
}

/// `states`: an array of state names, or null.
pub(super) struct StatesSeed<'a>(pub(super) &'a mut NodeFields);

impl<'de> DeserializeSeed<'de> for StatesSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StatesSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`states`: an array of state names")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.listed = true;
        while seq.next_element_seed(StateName(&mut *self.0))?.is_some() {}
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// One entry of `states`.
struct StateName<'a>(&'a mut NodeFields);

impl<'de> DeserializeSeed<'de> for StateName<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for StateName<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a state name (a string)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.add_state(v);
        Ok(())
    }
}

/// `bounds`: `[x, y, w, h]`, `{x, y, width, height}`, `{x, y, w, h}` or null.
pub(super) struct BoundsSeed;

const BOUNDS_PARTS: [&str; 4] = ["x", "y", "width", "height"];

impl<'de> DeserializeSeed<'de> for BoundsSeed {
    type Value = Option<Rect>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for BoundsSeed {
    type Value = Option<Rect>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`bounds`: [x, y, width, height], an object {x, y, width, height} or null")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = [0i32; 4];
        for (i, part) in parts.iter_mut().enumerate() {
            match seq.next_element_seed(Coordinate(BOUNDS_PARTS[i]))? {
                Some(v) => *part = v,
                None => {
                    return Err(de::Error::custom(format_args!(
                        "`bounds` has {i} numbers; expected 4: [x, y, width, height]"
                    )))
                }
            }
        }
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(
                "`bounds` has more than 4 numbers; expected 4: [x, y, width, height]",
            ));
        }
        let [x, y, w, h] = parts;
        Ok(Some(Rect::new(x, y, w, h)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut parts: [Option<i32>; 4] = [None; 4];
        while let Some(key) = map.next_key::<String>()? {
            let i = match key.as_str() {
                "x" => 0,
                "y" => 1,
                "w" | "width" => 2,
                "h" | "height" => 3,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            if parts[i].is_some() {
                return Err(de::Error::custom(format_args!(
                    "`bounds` gives `{}` twice",
                    BOUNDS_PARTS[i]
                )));
            }
            parts[i] = Some(map.next_value_seed(Coordinate(BOUNDS_PARTS[i]))?);
        }
        match parts {
            [Some(x), Some(y), Some(w), Some(h)] => Ok(Some(Rect::new(x, y, w, h))),
            _ => {
                let missing: Vec<&str> = parts
                    .iter()
                    .zip(BOUNDS_PARTS)
                    .filter(|(part, _)| part.is_none())
                    .map(|(_, name)| name)
                    .collect();
                Err(de::Error::custom(format_args!(
                    "`bounds` lacks {}",
                    missing.join(", ")
                )))
            }
        }
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// One number of `bounds`, rounded to whole pixels.
struct Coordinate(&'static str);

impl Coordinate {
    fn check<E: de::Error>(&self, rounded: f64, original: impl fmt::Display) -> Result<i32, E> {
        if (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&rounded) {
            Ok(rounded as i32)
        } else {
            Err(E::custom(format_args!(
                "`bounds` {} {original} is out of range",
                self.0
            )))
        }
    }
}

impl<'de> DeserializeSeed<'de> for Coordinate {
    type Value = i32;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<i32, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Coordinate {
    type Value = i32;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`bounds` {}: a number", self.0)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i32, E> {
        i32::try_from(v).or_else(|_| self.check(f64::INFINITY, v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i32, E> {
        i32::try_from(v).or_else(|_| self.check(f64::INFINITY, v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<i32, E> {
        self.check(v.round(), v)
    }
}
