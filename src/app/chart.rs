//! A canvas that redraws a [`LineChart`] whenever it changes, with SVG and PNG export.

use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;

use super::util::{download, download_url, slug};
use crate::plot::{draw_line_chart, to_svg, Frame, LineChart};

pub const WIDTH: u32 = 640;
pub const HEIGHT: u32 = 400;

#[component]
pub fn Chart(
    #[prop(into)] chart: Signal<LineChart>,
    #[prop(into)] label: String,
    /// Called with the data coordinates under the pointer (hover read-outs).
    #[prop(optional)]
    on_hover: Option<Callback<(f64, f64)>>,
) -> impl IntoView {
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let frame = StoredValue::new(None::<Frame>);
    Effect::new(move |_| {
        let spec = chart.get();
        let Some(element) = canvas.get() else { return };
        let element: web_sys::HtmlCanvasElement = element;
        element.set_width(WIDTH);
        element.set_height(HEIGHT);
        let Some(backend) = CanvasBackend::with_canvas_object(element) else {
            return;
        };
        let area = backend.into_drawing_area();
        let _ = area.fill(&TRANSPARENT);
        frame.set_value(draw_line_chart(&area, &spec).ok());
        let _ = area.present();
    });
    let hover = move |e: web_sys::MouseEvent| {
        let (Some(cb), Some(f), Some(element)) =
            (on_hover, frame.get_value(), canvas.get_untracked())
        else {
            return;
        };
        let element: web_sys::HtmlCanvasElement = element;
        let rect = element.get_bounding_client_rect();
        if rect.width() <= 0.0 || rect.height() <= 0.0 {
            return;
        }
        // CSS pixels to canvas pixels (the canvas may be scaled by the layout)
        let x = (e.client_x() as f64 - rect.left()) * WIDTH as f64 / rect.width();
        let y = (e.client_y() as f64 - rect.top()) * HEIGHT as f64 / rect.height();
        if let Some(p) = f.to_data(x, y) {
            cb.run(p);
        }
    };
    let file = slug(&label);
    let file2 = file.clone();
    let export_svg = move |_| {
        download(
            &format!("{file}.svg"),
            "image/svg+xml",
            &to_svg(&chart.get_untracked(), WIDTH, HEIGHT),
        )
    };
    let export_png = move |_| {
        if let Some(element) = canvas.get_untracked() {
            let element: web_sys::HtmlCanvasElement = element;
            if let Ok(url) = element.to_data_url() {
                download_url(&format!("{file2}.png"), &url);
            }
        }
    };
    view! {
        <figure class="chart">
            <canvas node_ref=canvas width=WIDTH height=HEIGHT role="img" aria-label=label.clone() on:mousemove=hover></canvas>
            <figcaption>
                <button class="small" data-export="svg" on:click=export_svg>"SVG"</button>
                <button class="small" data-export="png" on:click=export_png>"PNG"</button>
            </figcaption>
        </figure>
    }
}
