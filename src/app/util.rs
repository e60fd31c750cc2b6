//! Browser helpers: downloads, theme colours.

use wasm_bindgen::JsCast;

/// A User Timing mark (`performance.mark`), read by the browser benchmark.
pub fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// Offers `contents` as a file download (nothing leaves the browser).
pub fn download(name: &str, mime: &str, contents: &str) {
    download_parts(
        name,
        mime,
        &js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(contents)),
    );
}

/// [`download`] of bytes.
pub fn download_bytes(name: &str, mime: &str, contents: &[u8]) {
    download_parts(
        name,
        mime,
        &js_sys::Array::of1(&js_sys::Uint8Array::from(contents)),
    );
}

fn download_parts(name: &str, mime: &str, parts: &js_sys::Array) {
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_blob_sequence_and_options(parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    download_url(name, &url);
    // revoke later: revoking at once can cancel the download in some browsers
    later(10_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
}

pub fn download_url(name: &str, url: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(a) = doc.create_element("a") else {
        return;
    };
    let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>() else {
        return;
    };
    a.set_href(url);
    a.set_download(name);
    a.click();
}

/// Whether the page currently renders dark (explicit theme or system preference).
pub fn is_dark() -> bool {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return false;
    };
    match doc
        .document_element()
        .and_then(|e| e.get_attribute("data-theme"))
        .as_deref()
    {
        Some("dark") => true,
        Some("light") => false,
        _ => web_sys::window()
            .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            .is_some_and(|m| m.matches()),
    }
}

pub fn ink() -> (u8, u8, u8) {
    if is_dark() {
        (226, 232, 240)
    } else {
        (30, 41, 59)
    }
}

/// The element matching `selector` that a click (or Enter, through
/// [`grid_keys`]) landed in: markup written as a string is listened to once,
/// on its box, and each handler asks which of its elements was meant.
pub fn clicked(ev: &web_sys::MouseEvent, selector: &str) -> Option<web_sys::Element> {
    ev.target()?
        .dyn_into::<web_sys::Element>()
        .ok()?
        .closest(selector)
        .ok()
        .flatten()
}

/// A safe file-name stem.
pub fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// Runs `f` in a task of its own, `ms` milliseconds from now.
pub fn later(ms: i32, f: impl FnOnce() + 'static) {
    let f = wasm_bindgen::closure::Closure::once_into_js(f);
    if let Some(w) = web_sys::window() {
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(f.unchecked_ref(), ms);
    }
}

/// Draws a worker's new panel (`apply` shows `html`) now, unless someone is
/// typing into one of its controls something the new panel does not hold
/// (an answer to an earlier change, arriving while they type, would redraw
/// the control without their text): then when they leave the control, and
/// a later answer replaces this one (Chrome blurs a focused control that a
/// redraw removes: a panel held back is dropped once a later one is drawn).
/// The focused control keeps the focus when the panel is drawn now.
pub fn keep_edit(html: &str, apply: Box<dyn FnOnce()>) {
    thread_local! {
        static LATEST: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    let ticket = LATEST.with(|l| l.get().wrapping_add(1));
    LATEST.with(|l| l.set(ticket));
    let input = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
        .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok());
    if let Some(input) = input {
        let id = input.id();
        match crate::text::input_value(html, &id).filter(|_| !id.is_empty()) {
            Some(v) if v != crate::text::html(&input.value()) => {
                let f = wasm_bindgen::closure::Closure::once_into_js(move || {
                    if LATEST.with(|l| l.get()) == ticket {
                        apply()
                    }
                });
                input.set_onblur(Some(f.unchecked_ref()));
                return;
            }
            Some(_) => focus_soon(format!("#{id}")),
            None => {}
        }
    }
    apply()
}

/// Focuses the element matching `selector` once the current update has been
/// rendered (a list re-rendered by a key press keeps the keyboard's place).
/// Works for SVG elements too (`focus` is called on the element, whatever it is).
pub fn focus_soon(selector: String) {
    later(0, move || {
        let Some(e) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector(&selector).ok().flatten())
        else {
            return;
        };
        if let Some(focus) = js_sys::Reflect::get(&e, &"focus".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        {
            let _ = focus.call0(&e);
        }
    });
}

/// The text of a JavaScript error value (a string, an `Error`'s message).
pub fn js_text(e: &wasm_bindgen::JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "no details".into())
}

/// The position of `e` among its parent's element children.
fn position(e: &web_sys::Element) -> usize {
    let (mut i, mut p) = (0, e.previous_element_sibling());
    while let Some(x) = p {
        i += 1;
        p = x.previous_element_sibling();
    }
    i
}

/// The row above or below `row`, across `thead` and `tbody`.
fn next_row(row: &web_sys::Element, down: bool) -> Option<web_sys::Element> {
    let step = |e: &web_sys::Element| {
        if down {
            e.next_element_sibling()
        } else {
            e.previous_element_sibling()
        }
    };
    step(row).or_else(|| {
        let section = step(&row.parent_element()?)?;
        if down {
            section.first_element_child()
        } else {
            section.last_element_child()
        }
    })
}

/// Keys inside a table that is one Tab stop (a roving tabindex: the cell, or
/// the control in it, reached last holds tabindex 0, every other -1): the
/// arrows, Home and End move between cells, Enter clicks a focused cell (a
/// metric cell explains itself; a button clicks itself).
pub fn grid_keys(ev: web_sys::KeyboardEvent) {
    let Some(target) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    let Some(cell) = target.closest("td, th").ok().flatten() else {
        return;
    };
    let Some(row) = cell.parent_element() else {
        return;
    };
    let key = ev.key();
    let next = match key.as_str() {
        "Enter" if matches!(target.tag_name().as_str(), "TD" | "TH") => {
            if let Some(h) = target.dyn_ref::<web_sys::HtmlElement>() {
                h.click();
            }
            return;
        }
        "ArrowLeft" => cell.previous_element_sibling(),
        "ArrowRight" => cell.next_element_sibling(),
        "Home" => row.first_element_child(),
        "End" => row.last_element_child(),
        "ArrowUp" | "ArrowDown" => next_row(&row, key == "ArrowDown").and_then(|r| {
            let mut c = r.first_element_child();
            for _ in 0..position(&cell) {
                c = c?.next_element_sibling();
            }
            c
        }),
        _ => return,
    };
    // the cell's control if it holds one, else the cell
    let next = next.map(|n| (n.query_selector("button").ok().flatten()).unwrap_or(n));
    if let Some(next) = next.and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok()) {
        ev.prevent_default();
        let _ = target.set_attribute("tabindex", "-1");
        let _ = next.set_attribute("tabindex", "0");
        let _ = next.focus();
    }
}
