//! Numeric columns serialised as one byte string each (little-endian), for
//! `#[serde(with = "raw")]`: a 10M-row column is one copy, not 10M serde
//! calls. Used by the worker -> page transfer ([`crate::parse::transfer`]).

use serde::de::{Error, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A fixed-size value stored as `SIZE` little-endian bytes.
pub trait Pod: Sized + Copy {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(bytes: &[u8]) -> Self;
    /// The column's bytes without a copy, where memory order is the stored order.
    fn as_bytes(_column: &[Self]) -> Option<&[u8]> {
        None
    }
    /// The column from its bytes in one copy, where memory order is the stored order.
    fn from_bytes(_bytes: &[u8]) -> Option<Vec<Self>> {
        None
    }
}

macro_rules! pod_number {
    ($($t:ty),*) => {$(
        impl Pod for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn get(bytes: &[u8]) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(bytes);
                <$t>::from_le_bytes(b)
            }
            #[cfg(target_endian = "little")]
            fn as_bytes(column: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(column))
            }
            #[cfg(target_endian = "little")]
            fn from_bytes(bytes: &[u8]) -> Option<Vec<Self>> {
                Some(bytemuck::pod_collect_to_vec(bytes))
            }
        }
    )*};
}
pod_number!(f64, u32, i32, u64);

impl Pod for bool {
    const SIZE: usize = 1;
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

impl Pod for (u32, u32) {
    const SIZE: usize = 8;
    fn put(self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out);
    }
    fn get(bytes: &[u8]) -> Self {
        (u32::get(&bytes[..4]), u32::get(&bytes[4..]))
    }
}

pub fn serialize<T: Pod, S: Serializer>(column: &[T], s: S) -> Result<S::Ok, S::Error> {
    if let Some(bytes) = T::as_bytes(column) {
        return s.serialize_bytes(bytes);
    }
    let mut out = Vec::with_capacity(column.len() * T::SIZE);
    for &x in column {
        x.put(&mut out);
    }
    s.serialize_bytes(&out)
}

struct Bytes<T>(std::marker::PhantomData<T>);

impl<T: Pod> Visitor<'_> for Bytes<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a byte string of {}-byte values", T::SIZE)
    }

    fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<Vec<T>, E> {
        if v.len() % T::SIZE != 0 {
            return Err(E::custom(format!(
                "a column of {} bytes is not a whole number of {}-byte values",
                v.len(),
                T::SIZE
            )));
        }
        Ok(T::from_bytes(v).unwrap_or_else(|| v.chunks_exact(T::SIZE).map(T::get).collect()))
    }
}

pub fn deserialize<'de, T: Pod, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    d.deserialize_bytes(Bytes(std::marker::PhantomData))
}

/// A named numeric column (`(model name, scores)`), raw like the others.
pub mod named {
    use super::*;

    #[derive(Serialize)]
    struct Out<'a>(&'a str, #[serde(with = "super")] &'a Vec<f64>);

    #[derive(Deserialize)]
    struct In(String, #[serde(with = "super")] Vec<f64>);

    pub fn serialize<S: Serializer>(v: &[(String, Vec<f64>)], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|(n, c)| Out(n, c)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<(String, Vec<f64>)>, D::Error> {
        Ok(Vec::<In>::deserialize(d)?
            .into_iter()
            .map(|In(n, c)| (n, c))
            .collect())
    }
}
