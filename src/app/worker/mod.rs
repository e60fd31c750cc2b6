//! Parsing off the main thread: a dedicated Web Worker runs the same wasm
//! parser on the dropped file and hands back the compact parsed form.
//!
//! Protocol (structured-clone messages):
//! - worker -> page `{type: "ready"}` once its wasm is running;
//! - page -> worker `{file: Blob, name: string, format: string?, positive: string?}`;
//! - worker -> page `{type: "progress", bytes, rows}` at most every 100 ms;
//! - worker -> page `{type: "done", data: Uint8Array}`: [`transfer::encode`] of
//!   the outcome (parsed columns or the load errors), its buffer transferred, not copied.
//!
//! - page -> worker `{type: "compare", data: Uint8Array}`: a
//!   [`crate::compare::page::Request`] as [`crate::compare::page::ask`] writes it; the worker posts progress (`bytes`:
//!   steps done, `rows`: steps in all) and `{type: "done", cells: Float64Array,
//!   html: string}` ([`crate::compare::page::answer`]).
//!
//! The module: the protocol's helpers here; `inside` is what a worker runs
//! (its message loop, the parse, the jobs' answers), `job` the page's side of
//! each job (parse a file or URL, the example, one-vs-rest, the tests, the
//! relation files, the values panel, the diagnostics), `pool` the workers
//! started ahead of need and the one call that runs a job on one.
//!
//! One worker per file: terminating it is how Cancel stops a load, and it gives
//! the parser's memory back at once. The bundled example is generated and parsed
//! in a worker too (`{example: true}`), so the page's own wasm carries no parser.

use futures::channel::mpsc;
use futures::StreamExt;
use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::binary::BinaryCurve;
use crate::core::raw::{Column, Side};
use crate::parse::split::{self, Part, PartEnd};
use crate::parse::transfer::{self, Outcome};
use crate::parse::{parse_bytes, Format, LoadError, LoadOptions, Parsed, Parser};

/// Bytes fed to the parser per step inside the worker: small enough that the
/// stream keeps reading ahead while the parser works (8 MiB steps left it
/// waiting: a 1.1 GB matrix took 6.9 s, 4.3 s in 1 MiB steps; 256 KiB gained nothing).
const CHUNK: f64 = 1024.0 * 1024.0;
/// The worker's loader script, next to index.html (built by Trunk from `rankscope-worker`).
pub const SCRIPT: &str = "./rankscope-worker_loader.js";

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn message(kind: &str, fields: &[(&str, JsValue)]) -> Object {
    let m = Object::new();
    let _ = Reflect::set(&m, &"type".into(), &kind.into());
    for (k, v) in fields {
        let _ = Reflect::set(&m, &JsValue::from_str(k), v);
    }
    m
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

impl Side for JsSide {
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
