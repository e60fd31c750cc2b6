//! The page's panel of values computed elsewhere (trec_eval output,
//! per-query values files, the relation files' evaluations) as HTML,
//! written in a loading worker (the page's wasm holds none of it): each
//! file's or model's value per measure (its `all` line, else the mean over
//! its queries: [`values_report`], what `rankscope eval` prints), the
//! per-query values of one measure filtered by query id, and, when the
//! page holds nothing else, the Compare view of the models on their
//! per-query values ([`crate::compare::page`], the ranking view's tests).
//! Every text from a file is escaped ([`crate::text::html`]); the page
//! listens to the panel by event delegation (`app/precomputed.rs`).

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::compare::html::{distribution, Spread};
use crate::compare::page::{answer, Request, Settings};
use crate::parse::Precomputed;
use crate::text::html as esc;

/// Per-query rows shown at most (filter to find others).
pub const SHOWN: usize = 200;

pub use crate::parse::values_report;

/// What the panel shows.
pub struct View<'a> {
    pub files: &'a [Precomputed],
    /// The measure of the per-query table (the first when empty or unknown).
    pub measure: &'a str,
    /// Query ids shown in the per-query table match this (`text::glob`: the
    /// id itself, `*` for any text); empty: every query.
    pub filter: &'a str,
    /// The Compare view's baseline and settings, when it is shown.
    pub compare: Option<(Option<&'a str>, &'a Settings)>,
}

/// The panel in three parts: the table of values (with the per-query
/// table's heading), the per-query table, and the Compare view's card
/// (empty when it is not asked for, or with fewer than two models).
pub fn panel(v: &View) -> [String; 3] {
    let report = values_report(v.files.iter());
    let names: Vec<&str> = v.files.iter().map(|p| p.name.as_str()).collect();
    let measure = if report.columns.iter().any(|c| c == v.measure) {
        v.measure
    } else {
        report.columns.first().map_or("", String::as_str)
    };
    let cell = |s: &mut String, m: &str, model: &str, value: Option<f64>| {
        let text = value.map_or_else(|| "–".to_string(), |x| x.to_string());
        let _ = write!(
            s,
            r#"<td class="num" data-measure="{}" data-model="{}" data-value="{}">{text}</td>"#,
            esc(m),
            esc(model),
            value.map(|x| x.to_string()).unwrap_or_default()
        );
    };
    let mut top = String::from(r#"<table class="metrics"><thead><tr><th>measure</th>"#);
    for n in &names {
        let _ = write!(
            top,
            r#"<th>{n} <button class="small" data-remove="{n}" aria-label="remove {n}">×</button></th>"#,
            n = esc(n)
        );
    }
    top.push_str("</tr></thead><tbody>");
    for c in &report.columns {
        let _ = write!(
            top,
            r#"<tr><th scope="row"><button class="link" data-measure="{c}">{c}</button></th>"#,
            c = esc(c)
        );
        for m in &report.models {
            cell(&mut top, c, &m.name, m.metrics.get(c).copied().flatten());
        }
        top.push_str("</tr>");
    }
    let _ = write!(top, "</tbody></table><h3>Per query: {}</h3>", esc(measure));
    // (query, value per file) of the chosen measure, `all` left out
    let mut rows: BTreeMap<&str, Vec<Option<f64>>> = BTreeMap::new();
    for (j, p) in v.files.iter().enumerate() {
        let Some(mid) = p.measures.get(measure) else {
            continue;
        };
        for i in 0..p.m.len() {
            let q = p.queries.name(p.q[i]);
            if p.m[i] == mid
                && q != "all"
                && (v.filter.is_empty() || crate::text::glob(v.filter, q))
            {
                rows.entry(q).or_insert_with(|| vec![None; names.len()])[j] = Some(p.value[i]);
            }
        }
    }
    let mut bottom = String::from(r#"<table class="metrics per-query"><thead><tr><th>query</th>"#);
    for n in &names {
        let _ = write!(bottom, "<th>{}</th>", esc(n));
    }
    bottom.push_str("</tr></thead><tbody>");
    for (q, values) in rows.iter().take(SHOWN) {
        let _ = write!(
            bottom,
            r#"<tr data-query="{q}"><th scope="row">{q}</th>"#,
            q = esc(q)
        );
        for (value, n) in values.iter().zip(&names) {
            cell(&mut bottom, measure, n, *value);
        }
        bottom.push_str("</tr>");
    }
    let total = rows.len();
    let _ = write!(
        bottom,
        r#"</tbody></table><p class="muted small">{}</p>"#,
        if total > SHOWN {
            format!("{SHOWN} of {total} queries shown; filter to find others.")
        } else {
            format!("{total} queries.")
        }
    );
    // every query's value of the measure, per file, unfiltered
    let spread: Vec<(String, Vec<f64>)> = v
        .files
        .iter()
        .map(|p| {
            let mid = p.measures.get(measure);
            let values = (0..p.m.len())
                .filter(|&i| Some(p.m[i]) == mid && p.queries.name(p.q[i]) != "all")
                .map(|i| p.value[i])
                .filter(|x| x.is_finite())
                .collect();
            (esc(&p.name), values)
        })
        .collect();
    if spread.iter().any(|(_, values)| !values.is_empty()) {
        let series: Vec<Spread> = spread
            .iter()
            .enumerate()
            .map(|(i, (name, values))| Spread {
                name,
                attributes: format!(r#"stroke="{}""#, crate::plot::series_hex(i)),
                values,
            })
            .collect();
        let legend: Vec<String> = spread
            .iter()
            .enumerate()
            .map(|(i, (name, _))| {
                format!(
                    r#"<span style="color:{}">{name}</span>"#,
                    crate::plot::series_hex(i)
                )
            })
            .collect();
        distribution(
            &mut bottom,
            &series,
            &esc(measure),
            "query",
            &legend.join(", "),
        );
    }
    let compare = v
        .compare
        .and_then(|(baseline, settings)| Request::from_report(&report, baseline, settings))
        .map(|req| answer(&req, &mut |_, _| {}).html)
        .unwrap_or_default();
    [top, bottom, compare]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_bytes, LoadOptions, Parsed};

    fn files(name: &str, text: &[u8]) -> Vec<Precomputed> {
        match parse_bytes(name, text, &LoadOptions::default()).map(|p| p.into_parts().0) {
            Ok(Parsed::PerQuery(list)) => list,
            Ok(Parsed::Measures(p)) => vec![p],
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn means_per_query_values_filter_and_escapes() {
        let text = b"query_id,model,metric,value\nq1,a<b,map,0.5\nq2,a<b,map,0.25\nq10,a<b,map,1\nq1,c,map,1\nq2,c,map,0\nq10,c,map,0.5\nq1,c,ndcg@10,0.5\n";
        let files = files("pq.csv", text);
        let settings = Settings::default();
        let [top, bottom, compare] = panel(&View {
            files: &files,
            measure: "",
            filter: "q1*",
            compare: Some((None, &settings)),
        });
        // means as the core takes them; ndcg@10 lacks queries for c and a has none
        assert!(
            top.contains(
                r#"data-measure="map" data-model="a&lt;b" data-value="0.5833333333333334""#
            ),
            "{top}"
        );
        assert!(
            top.contains(r#"data-measure="ndcg@10" data-model="c" data-value="""#),
            "{top}"
        );
        assert!(top.contains(r#"aria-label="remove a&lt;b""#) && !top.contains("a<b"));
        assert!(top.ends_with("<h3>Per query: map</h3>"));
        // the filter keeps q1 and q10 (a query id is matched whole, * for any text), in byte order
        let q1 = bottom.find(r#"data-query="q1""#).unwrap();
        let q10 = bottom.find(r#"data-query="q10""#).unwrap();
        assert!(
            q1 < q10 && !bottom.contains(r#"data-query="q2""#),
            "{bottom}"
        );
        assert!(bottom.contains("2 queries.</p>"));
        // the distribution of every query's map, per model, unfiltered
        let counts: Vec<u32> = bottom
            .match_indices("data-counts=\"")
            .map(|(at, m)| {
                let tail = &bottom[at + m.len()..];
                tail[..tail.find('"').unwrap()]
                    .split(' ')
                    .map(|c| c.parse::<u32>().unwrap())
                    .sum()
            })
            .collect();
        assert_eq!(counts, [3, 3]);
        // ndcg@10: one model has none, and draws nothing (no NaN anywhere)
        let [_, bottom, _] = panel(&View {
            files: &files,
            measure: "ndcg@10",
            filter: "",
            compare: None,
        });
        assert_eq!(bottom.matches("data-counts=").count(), 1);
        assert!(!bottom.contains("NaN"), "{bottom}");
        // two models: the Compare view of c against a<b on map
        assert!(
            compare.contains(r#"data-metric="map""#) && compare.contains(r#"data-n="3""#),
            "{compare}"
        );
        let [_, _, none] = panel(&View {
            files: &files,
            measure: "map",
            filter: "",
            compare: None,
        });
        assert!(none.is_empty());
    }

    #[test]
    fn trec_eval_output_shows_its_all_line() {
        let text = b"runid\tall\tbm25\nmap\tq1\t0.5000\nmap\tq2\t0.2500\nmap\tall\t0.4000\nP_10\tq1\t0.1000\n";
        let files = files("bm25.eval", text);
        let [top, bottom, compare] = panel(&View {
            files: &files,
            measure: "P_10",
            filter: "",
            compare: None,
        });
        assert!(
            top.contains(r#"data-measure="map" data-model="bm25" data-value="0.4""#),
            "{top}"
        );
        assert!(top.contains("<h3>Per query: P_10</h3>"));
        assert!(
            bottom.contains(r#"data-value="0.1""#) && bottom.contains("1 queries.</p>"),
            "{bottom}"
        );
        assert!(compare.is_empty(), "one model: nothing to compare");
    }
}
