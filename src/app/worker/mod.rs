//! Work off the main thread: dedicated Web Workers run the same wasm on the
//! page's jobs (parse a dropped file or URL, the example, the tests, the
//! diagnostics, the panels of values, the exports) and hand back the answer.
//!
//! The protocol is typed ([`protocol`]): the page sends one [`Job`], the
//! worker answers [`Reply`]s (`Ready` once its wasm runs, `Progress`, then
//! one answer), each as postcard bytes after the job's id, big buffers and
//! files beside ([`wire`]). `inside` is what a worker runs (its one dispatch,
//! a handler per job), `job` the page's side of each job, `pool` the workers
//! started ahead of need and [`run`], the one call that runs a job.
//!
//! One worker per job: terminating it is how a job is cancelled (the
//! loader's Cancel, a job superseded by a newer one of its view:
//! [`protocol::Book`]), and it gives the worker's memory back at once.

use futures::channel::mpsc;
use futures::StreamExt;
use js_sys::{Object, Reflect, Uint8Array};
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::binary::BinaryCurve;
use crate::core::raw::{Column, Side as RawSide};
use crate::parse::split::{self, Part, PartEnd};
use crate::parse::transfer::{self, Outcome};
use crate::parse::{parse_bytes, Format, LoadError, LoadOptions, Parsed, Parser};
pub use crate::protocol;
use crate::protocol::{Id, Job, Lane, Progress, Reply, Side};

/// Bytes fed to the parser per step inside the worker: small enough that the
/// stream keeps reading ahead while the parser works (8 MiB steps left it
/// waiting: a 1.1 GB matrix took 6.9 s, 4.3 s in 1 MiB steps; 256 KiB gained nothing).
const CHUNK: f64 = 1024.0 * 1024.0;
/// The worker's loader script, next to index.html (built by Trunk from `rankscope-worker`).
pub const SCRIPT: &str = "./rankscope-worker_loader.js";

thread_local! {
    /// Where this page finds [`SCRIPT`] (a page in a folder of dist/, the
    /// leaderboard, finds it one folder up).
    static SCRIPT_AT: std::cell::Cell<&'static str> = const { std::cell::Cell::new(SCRIPT) };
}

/// The worker's loader script as this page reaches it.
pub fn script() -> &'static str {
    SCRIPT_AT.with(|s| s.get())
}

/// Sets where this page finds the worker's loader script (before any job).
pub fn set_script(path: &'static str) {
    SCRIPT_AT.with(|s| s.set(path));
}

/// A field of a browser API's object (a stream's read result, a global).
fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A plain object of `fields` (the load times the benchmark reads).
fn object(fields: &[(&str, JsValue)]) -> Object {
    let m = Object::new();
    for (k, v) in fields {
        let _ = Reflect::set(&m, &JsValue::from_str(k), v);
    }
    m
}

/// A message on the wire: `body` of job `id` encoded, then its `sides`.
pub(super) fn wire(id: Id, body: &impl Serialize, sides: &[JsValue]) -> js_sys::Array {
    let message = js_sys::Array::of1(&Uint8Array::from(&protocol::encode(id, body)[..]));
    for side in sides {
        message.push(side);
    }
    message
}

/// The buffers of a message [`wire`] wrote, to transfer (not copy) with it:
/// its byte arrays' (a file is sent as a handle).
pub(super) fn transfers(message: &js_sys::Array) -> js_sys::Array {
    (message.iter())
        .filter_map(|v| v.dyn_into::<Uint8Array>().ok())
        .map(|a| JsValue::from(a.buffer()))
        .collect()
}

/// The id, body and sides of a message [`wire`] wrote.
pub(super) fn unwire<T: DeserializeOwned>(data: &JsValue) -> Result<(Id, T, Sides), String> {
    let parts = data
        .dyn_ref::<js_sys::Array>()
        .ok_or("an unreadable message from the worker")?;
    let head = parts.get(0).dyn_into::<Uint8Array>();
    let head = head.map_err(|_| "an unreadable message from the worker")?;
    let (id, body) = protocol::decode(&head.to_vec())?;
    Ok((id, body, Sides(parts.iter().skip(1).collect())))
}

/// The values sent beside a message.
#[derive(Default)]
pub(super) struct Sides(Vec<JsValue>);

impl Sides {
    fn at(&self, side: Side) -> JsValue {
        self.0
            .get(side.0 as usize)
            .cloned()
            .unwrap_or(JsValue::UNDEFINED)
    }

    /// Side `side` as a byte array (`None` when it is not one).
    pub(super) fn array(&self, side: Side) -> Option<Uint8Array> {
        self.at(side).dyn_into().ok()
    }

    /// Side `side`'s bytes copied into wasm memory (empty when it is not a byte array).
    pub(super) fn bytes(&self, side: Side) -> Vec<u8> {
        self.array(side).map(|a| a.to_vec()).unwrap_or_default()
    }

    /// Side `side`'s whole 8-byte values copied straight into a column
    /// (empty when it is not a byte array).
    pub(super) fn column<T: bytemuck::Pod + bytemuck::Zeroable>(&self, side: Side) -> Vec<T> {
        let Some(a) = self.array(side) else {
            return Vec::new();
        };
        let mut column = vec![T::zeroed(); a.length() as usize / 8];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut column);
        a.subarray(0, bytes.len() as u32).copy_to(bytes);
        column
    }

    /// Side `side` as a file (`None` when it is not one).
    pub(super) fn file(&self, side: Side) -> Option<web_sys::File> {
        self.at(side).dyn_into().ok()
    }
}

/// The side channel of the transfer ([`crate::core::raw::Side`]): on the
/// worker each big column is copied once, from wasm memory into its own
/// `ArrayBuffer`, which is then transferred (not copied) to the page; on the
/// page each is copied once, straight into its final column. With `room`,
/// score columns are read with room for as many rows again (the part of a split
/// file that answers first, which the other part's rows then join in place).
#[derive(Clone, Default)]
struct JsSide {
    columns: std::rc::Rc<std::cell::RefCell<Vec<Uint8Array>>>,
    room: bool,
}

/// Appends the typed array `a` to `v`, which has room for it: copied once
/// into the spare capacity, no zero fill first (80 MB for 10M scores).
fn append(a: &js_sys::Float64Array, v: &mut Vec<f64>) {
    let (at, n) = (v.len(), a.length() as usize);
    v.reserve(n);
    a.copy_to_uninit(&mut v.spare_capacity_mut()[..n]);
    // SAFETY: copy_to_uninit has initialised the n values after `at`
    // (it panics unless the lengths are equal, which they are)
    unsafe { v.set_len(at + n) };
}

impl RawSide for JsSide {
    fn put(&mut self, bytes: &[u8]) -> u32 {
        let mut arrays = self.columns.borrow_mut();
        arrays.push(Uint8Array::from(bytes));
        arrays.len() as u32 - 1
    }
    fn len(&self, index: u32) -> Option<usize> {
        self.columns
            .borrow()
            .get(index as usize)
            .map(|a| a.length() as usize)
    }
    fn take(&mut self, index: u32, out: &mut [u8]) -> bool {
        match self.columns.borrow().get(index as usize) {
            Some(a) if a.length() as usize == out.len() => {
                a.copy_to(out);
                release(&a.buffer());
                true
            }
            _ => false,
        }
    }
    fn append_f64(&mut self, index: u32, out: &mut Vec<f64>) -> bool {
        let arrays = self.columns.borrow();
        let Some(a) = arrays.get(index as usize) else {
            return false;
        };
        let (offset, bytes) = (a.byte_offset(), a.length());
        if bytes % 8 != 0 {
            return false;
        }
        // a typed view needs an aligned start: a column that has none (never
        // one a worker transferred) is read from an aligned copy
        let (buffer, offset) = match offset % 8 {
            0 => (a.buffer(), offset),
            _ => (a.slice(0, bytes).buffer(), 0),
        };
        let typed =
            js_sys::Float64Array::new_with_byte_offset_and_length(&buffer, offset, bytes / 8);
        append(&typed, out);
        release(&a.buffer());
        true
    }
    /// Reads the column through a typed view of its buffer (`to_vec` fills a
    /// fresh vector once; the byte path would zero it first, 10M rows at a time).
    fn take_typed(&mut self, index: u32, kind: Column) -> Option<Column> {
        let arrays = self.columns.borrow();
        let a = arrays.get(index as usize)?;
        let (buffer, offset, bytes) = (a.buffer(), a.byte_offset(), a.length());
        let view = |size: u32| (offset % size == 0 && bytes % size == 0).then_some(bytes / size);
        let column = match kind {
            Column::F64(_) => {
                let a = js_sys::Float64Array::new_with_byte_offset_and_length(
                    &buffer,
                    offset,
                    view(8)?,
                );
                // the first part of a split file: room for the other part's
                // rows (about as many), which `raw::Joined` then reads in place
                if self.room {
                    let n = a.length() as usize;
                    let mut v = Vec::with_capacity(n + n + n / 32);
                    append(&a, &mut v);
                    Column::F64(v)
                } else {
                    Column::F64(a.to_vec())
                }
            }
            Column::U64(_) => Column::U64(
                js_sys::BigUint64Array::new_with_byte_offset_and_length(&buffer, offset, view(8)?)
                    .to_vec(),
            ),
            Column::U32(_) => Column::U32(
                js_sys::Uint32Array::new_with_byte_offset_and_length(&buffer, offset, view(4)?)
                    .to_vec(),
            ),
            Column::I32(_) => Column::I32(
                js_sys::Int32Array::new_with_byte_offset_and_length(&buffer, offset, view(4)?)
                    .to_vec(),
            ),
            Column::U8(_) => Column::U8(a.to_vec()),
        };
        release(&buffer);
        Some(column)
    }
}

/// Frees a transferred column's buffer as soon as it is copied: detaching it
/// (`ArrayBuffer.prototype.transfer(0)`) hands its memory back at once instead
/// of at the next garbage collection, which for a 10M-line run is 0.2-0.3 GB
/// the tab would otherwise hold next to the wasm columns. Without `transfer`
/// (older browsers) the collector frees it later.
fn release(buffer: &js_sys::ArrayBuffer) {
    if let Ok(transfer) = js_sys::Reflect::get(buffer, &JsValue::from_str("transfer")) {
        if let Some(transfer) = transfer.dyn_ref::<js_sys::Function>() {
            let _ = transfer.call1(buffer, &JsValue::from(0));
        }
    }
}

/// Where a loaded file came from: a dropped file (its handle: no bytes are
/// held) or a URL (downloaded again when read again).
#[derive(Clone)]
pub enum Source {
    File(web_sys::File),
    /// The URL and the name its data is shown under.
    Url(String, String),
}

mod inside;
mod job;
mod pool;

pub use inside::*;
pub use job::*;
pub use pool::*;
