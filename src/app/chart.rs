//! A canvas that redraws a [`LineChart`] whenever it changes, with SVG and PNG export.

use leptos::prelude::*;
use plotters::prelude::*;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use super::state::AppState;
use super::util::{download, download_url, slug};
use crate::plot::{draw_export, draw_line_chart, draw_markers, Frame, LineChart, EXPORT_STRIP};

thread_local! {
    /// Text sizes measured so far, by font size, family, style and text (a
    /// few dozen texts: titles and series names).
    static MEASURED: std::cell::RefCell<Vec<(String, (u32, u32))>> = Default::default();
}

/// The page's one drawing backend: the canvas on screen or SVG for export.
/// Drawing code is generic over the backend; going through this enum compiles
/// it once for both instead of once per backend (a smaller wasm).
/// The canvas is drawn at the chart's size in CSS pixels (its box's width,
/// or [`WIDTH`], x [`HEIGHT`]) through a context scaled to the screen's pixel
/// ratio, so lines and text stay sharp on high-density screens.
enum Backend<'a> {
    Canvas(CanvasBackend, u32),
    Svg(SVGBackend<'a>),
}

/// A backend's failure, without its text: nothing shows it (a chart that
/// cannot be drawn stays as it was), and the SVG backend's `io::Error` text
/// would bring every I/O error's message into the page.
#[derive(Debug)]
pub struct DrawError;

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the chart could not be drawn")
    }
}

impl std::error::Error for DrawError {}

fn lift<E: std::error::Error + Send + Sync>(e: DrawingErrorKind<E>) -> DrawingErrorKind<DrawError> {
    match e {
        DrawingErrorKind::DrawingError(_) => DrawingErrorKind::DrawingError(DrawError),
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

macro_rules! each {
    ($self:expr, $b:ident => $call:expr) => {
        match $self {
            Backend::Canvas($b, _) => $call.map_err(lift),
            Backend::Svg($b) => $call.map_err(lift),
        }
    };
}

impl DrawingBackend for Backend<'_> {
    type ErrorType = DrawError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            Backend::Canvas(_, width) => (*width, HEIGHT),
            Backend::Svg(b) => b.get_size(),
        }
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<DrawError>> {
        each!(self, b => b.ensure_prepared())
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<DrawError>> {
        each!(self, b => b.present())
    }
    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<DrawError>> {
        each!(self, b => b.draw_pixel(point, color))
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<DrawError>> {
        each!(self, b => b.draw_line(from, to, style))
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<DrawError>> {
        each!(self, b => b.draw_rect(upper_left, bottom_right, style, fill))
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<DrawError>> {
        each!(self, b => b.draw_path(path, style))
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<DrawError>> {
        each!(self, b => b.draw_circle(center, radius, style, fill))
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<DrawError>> {
        each!(self, b => b.fill_polygon(vert, style))
    }
    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<DrawError>> {
        each!(self, b => b.draw_text(text, style, pos))
    }
    /// Remembered per text and font: the browser measures text in the DOM,
    /// which forces a layout of the whole page (~0.5 ms each, several per
    /// redraw of a chart for a moved threshold).
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<DrawError>> {
        let key = format!(
            "{}/{}/{}/{text}",
            style.size(),
            style.family().as_str(),
            style.style().as_str()
        );
        let known = MEASURED.with(|m| m.borrow().iter().find(|k| k.0 == key).map(|k| k.1));
        if let Some(size) = known {
            return Ok(size);
        }
        let size = each!(self, b => b.estimate_text_size(text, style))?;
        MEASURED.with(|m| m.borrow_mut().push((key, size)));
        Ok(size)
    }
    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<DrawError>> {
        each!(self, b => b.blit_bitmap(pos, size, src))
    }
}

/// The chart as SVG text, drawn by the same code as the canvas, with its
/// legend and the conventions beside it ([`draw_export`]).
fn to_svg(chart: &LineChart) -> String {
    let mut svg = String::new();
    {
        let size = (WIDTH + EXPORT_STRIP, HEIGHT);
        let area = Backend::Svg(SVGBackend::with_string(&mut svg, size)).into_drawing_area();
        let _ = draw_export(&area, chart, &export_note());
        let _ = area.present();
    }
    crate::text::xml_chars(svg)
}

/// What an exported chart says of the conventions its values follow, a
/// line each: those of the dashboard's shown tab; none on the lessons' page.
fn export_note() -> Vec<String> {
    let Some(state) = use_context::<super::state::AppState>() else {
        return Vec::new();
    };
    let Some(kind) = state.tab.get_untracked() else {
        return Vec::new();
    };
    let changed = state
        .conv
        .with_untracked(|c| crate::session::non_default_conventions(c, kind));
    if changed.is_empty() {
        return vec!["Conventions: Rankscope's defaults".into()];
    }
    std::iter::once("Conventions, not the defaults:".to_string())
        .chain(changed)
        .collect()
}

/// Draws `spec` on `element`, `width` CSS pixels wide, at `ratio` device
/// pixels per CSS pixel: the screen's chart, or (`export`: its note) the
/// exported one with its strip, on an opaque background.
fn paint(
    element: web_sys::HtmlCanvasElement,
    spec: &LineChart,
    ratio: f64,
    width: u32,
    export: Option<&[String]>,
) -> Option<Frame> {
    // setting the size clears the canvas and resets its context's transform
    element.set_width((width as f64 * ratio).round() as u32);
    element.set_height((HEIGHT as f64 * ratio).round() as u32);
    context(&element)?
        .set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0)
        .ok()?;
    let area =
        Backend::Canvas(CanvasBackend::with_canvas_object(element)?, width).into_drawing_area();
    let frame = match export {
        Some(note) => {
            // light ink (the dark theme) on the dark page colour, else white
            let (r, g, b) = spec.ink;
            let dark = r as u32 + g as u32 + b as u32 > 384;
            let _ = area.fill(&if dark { RGBColor(15, 23, 42) } else { WHITE });
            draw_export(&area, spec, note).ok()
        }
        None => {
            let _ = area.fill(&TRANSPARENT);
            draw_line_chart(&area, spec).ok()
        }
    };
    let _ = area.present();
    frame
}

/// The screen's device pixels per CSS pixel (2 on most laptops' screens),
/// within 1..=4: the canvas keeps at most 16 times its CSS size in pixels.
fn pixel_ratio() -> f64 {
    let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    if ratio.is_finite() {
        ratio.clamp(1.0, 4.0)
    } else {
        1.0
    }
}

/// A chart drawn without its markers, a copy of its pixels and where its
/// data landed: a chart whose markers alone changed (a moved threshold, the
/// point under the pointer) is that copy with the markers drawn over it.
struct Layers {
    drawn: LineChart,
    /// The width drawn, in CSS pixels.
    width: u32,
    copy: web_sys::HtmlCanvasElement,
    frame: Frame,
}

/// Whether `a` and `b` draw the same pixels but for their markers: the same
/// curves (the very same points: a chart rebuilt for a moved threshold
/// shares its curves' points, names and colours; any other change builds
/// new ones), ranges and ink, and no bands. Cheap, where comparing the
/// points would not be.
fn same_drawing(a: &LineChart, b: &LineChart) -> bool {
    (a.ink, a.x_range, a.y_range, a.series.len()) == (b.ink, b.x_range, b.y_range, b.series.len())
        && a.bands.is_empty()
        && b.bands.is_empty()
        && (a.series.iter().zip(&b.series))
            .all(|(s, t)| std::sync::Arc::ptr_eq(&s.points, &t.points))
}

fn new_canvas() -> Option<web_sys::HtmlCanvasElement> {
    (document().create_element("canvas").ok()).and_then(|e| e.dyn_into().ok())
}

fn context(c: &web_sys::HtmlCanvasElement) -> Option<web_sys::CanvasRenderingContext2d> {
    (c.get_context("2d").ok().flatten()).and_then(|c| c.dyn_into().ok())
}

/// Draws `spec` on `element`: its markers over the copy in `layers` when
/// nothing else changed, else the whole chart again (and a new copy).
#[inline(never)]
fn paint_layers(
    element: &web_sys::HtmlCanvasElement,
    mut spec: LineChart,
    layers: &mut Option<Layers>,
) {
    let markers = std::mem::take(&mut spec.markers);
    let ink = spec.ink;
    let ratio = pixel_ratio();
    // the card's width: the canvas' box (its CSS width is the figure's)
    let css = match element.client_width() {
        w if w > 0 => (w as u32).clamp(280, 4000),
        _ => WIDTH,
    };
    let width = (css as f64 * ratio).round() as u32;
    let kept = (layers.as_ref())
        .filter(|l| same_drawing(&l.drawn, &spec) && l.copy.width() == width)
        .and_then(|l| {
            // setting the width clears the canvas and resets its transform
            element.set_width(width);
            let c = context(element)?;
            c.draw_image_with_html_canvas_element(&l.copy, 0.0, 0.0)
                .ok()?;
            c.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0).ok()
        });
    if kept.is_none() {
        *layers = None;
        let frame = paint(element.clone(), &spec, ratio, css, None);
        if let (Some(frame), Some(copy)) = (frame, new_canvas()) {
            copy.set_width(element.width());
            copy.set_height(element.height());
            if context(&copy).is_some_and(|c| {
                c.draw_image_with_html_canvas_element(element, 0.0, 0.0)
                    .is_ok()
            }) {
                *layers = Some(Layers {
                    drawn: spec,
                    width: css,
                    copy,
                    frame,
                });
            }
        }
    }
    if let (Some(l), Some(backend)) = (
        layers.as_ref(),
        CanvasBackend::with_canvas_object(element.clone()),
    ) {
        let area = Backend::Canvas(backend, l.width).into_drawing_area();
        let _ = draw_markers(&area, &markers, ink, &l.frame);
    }
}

pub const WIDTH: u32 = 640;
pub const HEIGHT: u32 = 400;

#[component]
pub fn Chart(
    #[prop(into)] chart: Signal<LineChart>,
    #[prop(into)] label: String,
    /// Called with the data coordinates under the pointer (hover read-outs),
    /// with NaN when the pointer leaves the chart.
    #[prop(optional)]
    on_hover: Option<Callback<(f64, f64)>>,
    /// Called with the data coordinates of a click (explanations).
    #[prop(optional)]
    on_pick: Option<Callback<(f64, f64)>>,
) -> impl IntoView {
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    // what the canvas shows under its markers ([`Layers`])
    let layers = StoredValue::new(None::<Layers>);
    Effect::new(move |_| {
        let mut spec = chart.get();
        // the theme's ink, read as it is drawn: a theme change redraws
        if let Some(state) = use_context::<AppState>() {
            let _ = state.theme.get();
            spec.ink = super::util::ink();
        }
        let Some(element) = canvas.get() else { return };
        layers.update_value(|l| paint_layers(&element, spec, l));
    });
    let at = move |e: &web_sys::MouseEvent, cb: Option<Callback<(f64, f64)>>| {
        let f = layers.with_value(|l| l.as_ref().map(|l| (l.frame, l.width)));
        let (Some(cb), Some((f, width)), Some(element)) = (cb, f, canvas.get_untracked()) else {
            return;
        };
        let element: web_sys::HtmlCanvasElement = element;
        let rect = element.get_bounding_client_rect();
        if rect.width() <= 0.0 || rect.height() <= 0.0 {
            return;
        }
        // CSS pixels to canvas pixels (the canvas may be scaled by the layout)
        let x = (e.client_x() as f64 - rect.left()) * width as f64 / rect.width();
        let y = (e.client_y() as f64 - rect.top()) * HEIGHT as f64 / rect.height();
        if let Some(p) = f.to_data(x, y) {
            cb.run(p);
        }
    };
    let hover = move |e: web_sys::MouseEvent| at(&e, on_hover);
    // the pointer left: NaN, so a hover mark and read-out go with it
    let leave = move |_| {
        if let Some(cb) = on_hover {
            cb.run((f64::NAN, f64::NAN));
        }
    };
    let pick = move |e: web_sys::MouseEvent| at(&e, on_pick);
    let file = slug(&label);
    let file2 = file.clone();
    let export_svg = move |_| {
        download(
            &format!("{file}.svg"),
            "image/svg+xml",
            &to_svg(&chart.get_untracked()),
        )
    };
    // a PNG at twice the chart's size, drawn apart from the screen's canvas
    let export_png = move |_| {
        if let Some(element) = new_canvas() {
            paint(
                element.clone(),
                &chart.get_untracked(),
                2.0,
                WIDTH + EXPORT_STRIP,
                Some(&export_note()),
            );
            if let Ok(url) = element.to_data_url() {
                download_url(&format!("{file2}.png"), &url);
            }
        }
    };
    view! {
        <figure class="chart">
            <canvas node_ref=canvas width=WIDTH height=HEIGHT role="img" aria-label=label.clone() on:mousemove=hover on:mouseleave=leave on:click=pick></canvas>
            <figcaption>
                <button class="small" data-export="svg" on:click=export_svg>"SVG"</button>
                <button class="small" data-export="png" on:click=export_png>"PNG"</button>
            </figcaption>
        </figure>
    }
}

/// A chart's "95% bands" switch: the tests' `ci` setting, one switch for
/// the table's intervals and every chart's bands (kept in links).
pub fn bands_toggle(id: &'static str, title: &'static str) -> impl leptos::IntoView {
    let state = expect_context::<AppState>();
    view! {
        <label title=title><input type="checkbox" id=id prop:checked=move || state.tests.with(|t| t.ci)
            on:change=move |ev| state.tests.update(|t| t.ci = event_target_checked(&ev))/>" 95% bands"</label>
    }
}
