//! Numeric columns serialised as one byte string each (little-endian), for
//! `#[serde(with = "raw")]`: a 10M-row column is one copy, not 10M serde
//! calls. Used by the worker -> page transfer (`rankscope_io::parse::transfer`).
//!
//! With a [`Side`] channel installed ([`with_side`]), the big columns do not go
//! into the serialised bytes at all: each is handed to the channel (the worker
//! copies it straight into its own transferable `ArrayBuffer`) and only its
//! index is written; reading fills each column straight from the channel. That
//! saves a copy of the data on each side of the transfer.

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
    /// The column from the side channel, given the index written in its place
    /// (`None`: this type is never side-channelled).
    fn from_side(_index: &[u8]) -> Option<Result<Vec<Self>, String>> {
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
            #[cfg(target_endian = "little")]
            fn from_side(index: &[u8]) -> Option<Result<Vec<Self>, String>> {
                let index: [u8; 4] = match index.try_into() {
                    Ok(i) => i,
                    Err(_) => return Some(Err("a side column index of 4 bytes".into())),
                };
                Some(side_take::<$t>(u32::from_le_bytes(index)))
            }
        }
    )*};
}
pod_number!(f64, u32, i32, u64, u8);

impl Pod for bool {
    const SIZE: usize = 1;
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
    /// A label column is its bytes (0 or 1 each) as it is.
    fn as_bytes(column: &[Self]) -> Option<&[u8]> {
        Some(bytemuck::cast_slice(column))
    }
    /// Any byte but 0 reads as true (as [`Pod::get`]).
    fn from_side(index: &[u8]) -> Option<Result<Vec<Self>, String>> {
        let bytes = u8::from_side(index)?;
        Some(bytes.map(|b| b.into_iter().map(|b| b != 0).collect()))
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

/// A column read whole from a side channel, as its element type.
pub enum Column {
    F64(Vec<f64>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    U64(Vec<u64>),
    U8(Vec<u8>),
}

impl Column {
    /// The column's values as their bytes (little-endian: the transfer's
    /// order, the order of every target the app runs on).
    pub fn bytes(&self) -> &[u8] {
        match self {
            Column::F64(v) => bytemuck::cast_slice(v),
            Column::U32(v) => bytemuck::cast_slice(v),
            Column::I32(v) => bytemuck::cast_slice(v),
            Column::U64(v) => bytemuck::cast_slice(v),
            Column::U8(v) => v,
        }
    }
}

/// Element types a side channel can hand over as a [`Column`].
pub trait Typed: Sized {
    /// An empty column of this type (it names the type to [`Side::take_typed`]).
    fn kind() -> Column;
    fn from_column(c: Column) -> Option<Vec<Self>>;
}

macro_rules! typed {
    ($($t:ty => $v:ident),*) => {$(
        impl Typed for $t {
            fn kind() -> Column {
                Column::$v(Vec::new())
            }
            fn from_column(c: Column) -> Option<Vec<Self>> {
                match c {
                    Column::$v(v) => Some(v),
                    _ => None,
                }
            }
        }
    )*};
}
typed!(f64 => F64, u32 => U32, i32 => I32, u64 => U64, u8 => U8);

/// Where big columns go instead of the serialised bytes.
pub trait Side {
    /// Keeps a column's bytes; returns its index.
    fn put(&mut self, bytes: &[u8]) -> u32;
    /// The byte length of column `index`, if it exists.
    fn len(&self, index: u32) -> Option<usize>;
    /// Copies column `index` into `out` (exactly `len` bytes).
    fn take(&mut self, index: u32, out: &mut [u8]) -> bool;
    /// Column `index` as a new vector of `kind`'s element type, written once
    /// (no zero-filled buffer first), if this channel can; else [`Side::take`].
    fn take_typed(&mut self, _index: u32, _kind: Column) -> Option<Column> {
        None
    }
    /// Appends column `index`, read as `f64`s, to `out` (which has room for
    /// it); false if it cannot be read. A channel that can write into the
    /// spare capacity directly spares the zero fill of the default.
    fn append_f64(&mut self, index: u32, out: &mut Vec<f64>) -> bool {
        let (at, n) = (out.len(), self.len(index).unwrap_or(0) / 8);
        out.resize(at + n, 0.0);
        let read = self.take(index, bytemuck::cast_slice_mut(&mut out[at..]));
        if !read {
            out.truncate(at);
        }
        read
    }
}

/// A side channel whose first columns are joined to columns held already:
/// column `i < held.len()` reads as `held[i]` then the inner channel's
/// column `i` (or the other way round, `held_first = false`), written once
/// into one vector of the full length. How the page joins the two parts of
/// a split file: the part that answers second is read around the first
/// part's rows, so no joined copy is made afterwards.
pub struct Joined {
    pub inner: Box<dyn Side>,
    pub held: Vec<Column>,
    pub held_first: bool,
}

impl Side for Joined {
    fn put(&mut self, bytes: &[u8]) -> u32 {
        self.inner.put(bytes)
    }
    fn len(&self, index: u32) -> Option<usize> {
        let held = self.held.get(index as usize).map_or(0, |c| c.bytes().len());
        Some(self.inner.len(index)? + held)
    }
    fn take(&mut self, index: u32, out: &mut [u8]) -> bool {
        let Some(held) = self.held.get(index as usize).map(Column::bytes) else {
            return self.inner.take(index, out);
        };
        let at = if self.held_first {
            held.len()
        } else {
            out.len() - held.len()
        };
        let (a, b) = out.split_at_mut(at);
        let (mine, theirs) = if self.held_first { (b, a) } else { (a, b) };
        theirs.copy_from_slice(held);
        self.inner.take(index, mine)
    }
    /// A held column of scores with room for the inner channel's rows (the
    /// page reserves it when it decodes the part that answers first) grows
    /// in place: its rows are not copied again, and only the new rows' memory
    /// is touched. Other held columns are joined by [`Joined::take`].
    fn take_typed(&mut self, index: u32, kind: Column) -> Option<Column> {
        let Some(held) = self.held.get_mut(index as usize) else {
            return self.inner.take_typed(index, kind);
        };
        let theirs = self.inner.len(index)? / 8;
        let (Column::F64(v), Column::F64(_)) = (held, kind) else {
            return None;
        };
        if v.capacity() < v.len() + theirs {
            return None;
        }
        let mut v = std::mem::take(v);
        let ours = v.len();
        let read = if self.held_first {
            self.inner.append_f64(index, &mut v)
        } else {
            v.resize(ours + theirs, 0.0);
            v.copy_within(0..ours, theirs);
            self.inner
                .take(index, bytemuck::cast_slice_mut(&mut v[..theirs]))
        };
        // a column that could not be read comes back empty: an error
        Some(Column::F64(if read { v } else { Vec::new() }))
    }
}

thread_local! {
    static SIDE: std::cell::RefCell<Option<Box<dyn Side>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` (a serialisation or deserialisation) with `side` as the channel
/// for big columns; gives the channel back.
pub fn with_side<R>(side: Box<dyn Side>, f: impl FnOnce() -> R) -> (R, Box<dyn Side>) {
    SIDE.with(|s| *s.borrow_mut() = Some(side));
    let r = f();
    let side = SIDE
        .with(|s| s.borrow_mut().take())
        .expect("the side channel is still installed");
    (r, side)
}

fn side_active() -> bool {
    SIDE.with(|s| s.borrow().is_some())
}

fn side_put(bytes: &[u8]) -> u32 {
    SIDE.with(|s| s.borrow_mut().as_mut().map_or(0, |side| side.put(bytes)))
}

/// Fills a vector of `T` from side column `index`.
fn side_take<T: Pod + bytemuck::Pod + Typed>(index: u32) -> Result<Vec<T>, String> {
    SIDE.with(|s| {
        let mut s = s.borrow_mut();
        let side = s.as_mut().ok_or("no side channel")?;
        let len = side
            .len(index)
            .ok_or_else(|| format!("no column {index}"))?;
        if len % T::SIZE != 0 {
            return Err(format!(
                "column {index} of {len} bytes is not whole {}-byte values",
                T::SIZE
            ));
        }
        if let Some(column) = side.take_typed(index, T::kind()) {
            return T::from_column(column)
                .filter(|v| v.len() * T::SIZE == len)
                .ok_or_else(|| format!("column {index} could not be read"));
        }
        let mut out = vec![T::zeroed(); len / T::SIZE];
        if !side.take(index, bytemuck::cast_slice_mut(&mut out)) {
            return Err(format!("column {index} could not be read"));
        }
        Ok(out)
    })
}

pub fn serialize<T: Pod, S: Serializer>(column: &[T], s: S) -> Result<S::Ok, S::Error> {
    if let Some(bytes) = T::as_bytes(column) {
        if side_active() {
            return s.serialize_bytes(&side_put(bytes).to_le_bytes());
        }
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
        if side_active() {
            if let Some(column) = T::from_side(v) {
                return column.map_err(E::custom);
            }
        }
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

/// A long text (a names arena) as one byte string, side-channelled like the columns.
pub mod text {
    use super::*;

    pub fn serialize<S: Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
        if side_active() {
            return s.serialize_bytes(&side_put(text.as_bytes()).to_le_bytes());
        }
        s.serialize_bytes(text.as_bytes())
    }

    struct Text;

    impl Visitor<'_> for Text {
        type Value = String;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "UTF-8 text as bytes")
        }

        fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<String, E> {
            let bytes = if side_active() {
                side_take::<u8>(u32::from_le_bytes(
                    v.try_into()
                        .map_err(|_| E::custom("a side column index of 4 bytes"))?,
                ))
                .map_err(E::custom)?
            } else {
                v.to_vec()
            };
            String::from_utf8(bytes).map_err(|_| E::custom("text that is not UTF-8"))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        d.deserialize_bytes(Text)
    }
}
