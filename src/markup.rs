//! The page's static markup, written as strings for an `inner_html` (a
//! string is a fraction of the code a view of every cell compiles to):
//! native, so tests read it without a browser. Every text from a file is
//! escaped ([`crate::text::html`]).

use std::fmt::Write;

use crate::core::binary::Confusion;
use crate::core::per_query::{RrIndex, RrValues};
use crate::report::fixed;
use crate::text::html as esc;

/// One bar chart of a histogram as HTML, for an `inner_html` (static
/// markup: a string is a fraction of the code a view of it compiles to):
/// `<div class="{class}"{attrs}>` with the swatch and `title` (HTML), each
/// bar's tooltip, height in percent, count written under it (if any) and
/// label (text), then the axis caption.
pub fn histogram(
    class: &str,
    attrs: &str,
    color: &str,
    title: &str,
    bars: impl IntoIterator<Item = (String, f64, Option<usize>, String)>,
    axis: &str,
) -> String {
    let mut s = format!(
        r#"<div class="{class}"{attrs}><div class="hist-title"><span class="swatch" style="background:{color}"></span>{title}</div><div class="bars">"#
    );
    for (tip, height, count, label) in bars {
        let _ = write!(
            s,
            r#"<div class="bar" title="{}"><div class="fill" style="height:{height:.1}%;background:{color}"></div>"#,
            crate::text::html(&tip)
        );
        if let Some(c) = count {
            let _ = write!(s, r#"<span class="count">{}</span>"#, short_count(c));
        }
        let _ = write!(
            s,
            r#"<span class="label">{}</span></div>"#,
            crate::text::html(&label)
        );
    }
    let _ = write!(s, r#"</div><div class="axis-x">{axis}</div></div>"#);
    s
}

/// A bar's count in at most four characters (`12345` as `12k`), so that
/// neighbouring bars' counts never overlap; the bar's title has it exact.
pub fn short_count(n: usize) -> String {
    match n {
        0..=9999 => n.to_string(),
        10_000..=999_999 => format!("{}k", n / 1000),
        _ => format!("{}M", n / 1_000_000),
    }
}
/// The per-query table's rows `shown` as markup: per query its id (a
/// button that opens its lists), each run's first relevant rank and value
/// (a button that explains it; — for a query the run has no value of), and
/// the difference `pair` (other, baseline), its sign as its class.
pub fn per_query_rows(
    ix: &RrIndex,
    v: &RrValues,
    shown: &[usize],
    pair: Option<(usize, usize)>,
) -> String {
    let text = |x: f64, sign: bool| {
        if x.is_nan() {
            "—".to_string()
        } else if sign {
            format!("{x:+.4}")
        } else {
            format!("{x:.4}")
        }
    };
    let mut s = String::new();
    for (r, &row) in shown.iter().enumerate() {
        let q = esc(&ix.qids[row]);
        let (ranks, rr) = v.row(row);
        // the table's one Tab stop: the first query (the page's grid keys move it)
        let stop = if r == 0 { "0" } else { "-1" };
        let _ = write!(
            s,
            r#"<tr data-query="{q}"><th scope="row"><button class="link" tabindex="{stop}">{q}</button></th>"#
        );
        for ((rank, rr), model) in ranks.iter().zip(rr).zip(&ix.names) {
            let rank = rank.map_or("none".into(), |x| x.to_string());
            let _ = write!(
                s,
                r#"<td class="num">{rank}</td><td class="num" data-per-query="{rr:?}"><button class="link" title="explain" tabindex="-1" data-model="{}">{}</button></td>"#,
                esc(model),
                text(*rr, false)
            );
        }
        if let Some((o, b)) = pair {
            let d = rr[o] - rr[b];
            let class = if d > 0.0 {
                " pos"
            } else if d < 0.0 {
                " neg"
            } else {
                ""
            };
            let _ = write!(s, r#"<td class="num{class}">{}</td>"#, text(d, true));
        }
        s.push_str("</tr>");
    }
    s
}

/// A model's confusion matrix at its threshold, with the metrics read off it.
pub fn confusion_table(name: &str, color: &str, m: &Confusion) -> String {
    let name = esc(name);
    format!(
        r#"<table class="confusion" data-cm-model="{name}"><caption><span class="swatch" style="background:{color}"></span>{name}</caption><thead><tr><th></th><th scope="col">predicted +</th><th scope="col">predicted −</th></tr></thead><tbody><tr><th scope="row">actual +</th><td class="num" data-cm="tp">{}</td><td class="num" data-cm="fn">{}</td></tr><tr><th scope="row">actual −</th><td class="num" data-cm="fp">{}</td><td class="num" data-cm="tn">{}</td></tr></tbody><tfoot><tr><td colspan="3">accuracy {} · precision {} · recall {} · F1 {} · MCC {:.4}</td></tr></tfoot></table>"#,
        m.tp,
        m.fn_,
        m.fp,
        m.tn,
        fixed("", m.accuracy(), 4),
        fixed("", m.precision(), 4),
        fixed("", m.recall(), 4),
        fixed("", m.f1(), 4),
        m.mcc()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_query_rows_escape_ids_and_mark_the_difference() {
        let ix = RrIndex {
            names: vec!["a<b".into(), "c".into()],
            runs: vec![0, 1],
            qids: vec!["q&1".into(), "q2".into()],
            rows: vec![],
        };
        let v = RrValues {
            models: 2,
            ranks: vec![Some(1), None, Some(3), Some(1)],
            rr: vec![1.0, 0.0, 1.0 / 3.0, f64::NAN],
        };
        let s = per_query_rows(&ix, &v, &[1, 0], Some((0, 1)));
        let rows: Vec<&str> = s.split("</tr>").collect();
        assert!(rows[0].starts_with(
            r#"<tr data-query="q2"><th scope="row"><button class="link" tabindex="0">q2</button>"#
        ));
        assert!(rows[0].contains(
            r#"<td class="num">3</td><td class="num" data-per-query="0.3333333333333333">"#
        ));
        // no value: a dash, and no difference to take
        assert!(rows[0].contains(r#"data-model="c">—</button>"#));
        assert!(rows[0].ends_with(r#"<td class="num">—</td>"#));
        assert!(
            rows[1].contains(r#"data-query="q&amp;1""#)
                && rows[1].contains(r#"tabindex="-1">q&amp;1<"#)
        );
        assert!(rows[1].contains(r#"data-model="a&lt;b">1.0000<"#));
        assert!(rows[1].contains(r#"<td class="num">none</td>"#));
        assert!(rows[1].ends_with(r#"<td class="num pos">+1.0000</td>"#));
    }

    #[test]
    fn a_confusion_table_has_its_cells_and_the_metrics_of_them() {
        let m = Confusion {
            tp: 3,
            fp: 1,
            fn_: 2,
            tn: 4,
        };
        let s = confusion_table("m<1>", "#0072b2", &m);
        for cell in [
            r#"data-cm="tp">3<"#,
            r#"data-cm="fn">2<"#,
            r#"data-cm="fp">1<"#,
            r#"data-cm="tn">4<"#,
        ] {
            assert!(s.contains(cell), "{cell}");
        }
        assert!(s.contains(r#"data-cm-model="m&lt;1&gt;""#));
        // accuracy 7/10, precision 3/4, recall 3/5, F1 6/9, MCC (12 − 2)/√(4·5·5·6)
        assert!(
            s.contains(
                "accuracy 0.7000 · precision 0.7500 · recall 0.6000 · F1 0.6667 · MCC 0.4082"
            ),
            "{s}"
        );
    }

    #[test]
    fn counts_under_bars_take_at_most_four_characters() {
        assert_eq!(short_count(9999), "9999");
        assert_eq!(short_count(12_345), "12k");
        assert_eq!(short_count(3_400_000), "3M");
        let h = histogram(
            "hist",
            "",
            "#000",
            "<b>t</b>",
            [("a<".into(), 50.0, Some(12_345), "1".into())],
            "axis",
        );
        assert!(h.contains(r#"title="a&lt;""#) && h.contains(r#"<span class="count">12k</span>"#));
    }
}
