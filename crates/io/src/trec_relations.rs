//! trec_eval's other relation files (preferences, qrels read as preferences,
//! judgment groups, z-scores) evaluated against a workspace's runs: each
//! (relation file, run) pair is one `rankscope trec_eval -q` command line on
//! the files written back as trec_eval reads them, and its output is read as
//! a trec_eval output file. The CLI's `eval` and the page's loading worker
//! (the page's own wasm has no trec_eval) call [`evaluate`].

use crate::parse::{relations_command, Format, LoadOptions, Parsed, Precomputed};
use rankscope_trec_eval::Version;

/// One pair's evaluation: trec_eval's standard output, and its values read back.
pub struct Evaluated {
    pub stdout: Vec<u8>,
    pub values: Precomputed,
}

/// An id as one whitespace-free field (ids from a CSV may hold spaces;
/// the relation files, split on whitespace, never do).
fn field(out: &mut Vec<u8>, id: &str) {
    out.extend(
        id.bytes()
            .map(|b| if b.is_ascii_whitespace() { b'_' } else { b }),
    );
}

/// A run as a trec_eval results file: `qid Q0 docno rank score tag` per row,
/// scores written so that they read back to the same bits.
fn results_text(parsed: &Parsed) -> Option<Vec<u8>> {
    let Parsed::Run {
        name,
        tag,
        queries,
        q,
        docs,
        score,
    } = parsed.data()
    else {
        return None;
    };
    let tag = if tag.is_empty() { name } else { tag };
    let mut out = Vec::with_capacity(q.len() * 40);
    let mut rank = 0;
    for i in 0..q.len() {
        rank = if i > 0 && q[i] == q[i - 1] {
            rank + 1
        } else {
            1
        };
        field(&mut out, queries.name(q[i]));
        out.extend_from_slice(b" Q0 ");
        field(&mut out, docs.get(i));
        out.extend_from_slice(format!(" {rank} {:?} ", score[i]).as_bytes());
        field(&mut out, tag);
        out.push(b'\n');
    }
    Some(out)
}

/// Judgments as a trec_eval qrels file (`qid 0 docno rel`).
fn qrels_text(parsed: &Parsed) -> Option<Vec<u8>> {
    let Parsed::Qrels {
        queries, judgments, ..
    } = parsed.data()
    else {
        return None;
    };
    let mut out = Vec::new();
    for query in 0..queries.len() as u32 {
        for (doc, grade) in judgments.judgments(query) {
            field(&mut out, queries.name(query));
            out.extend_from_slice(b" 0 ");
            field(&mut out, doc);
            out.extend_from_slice(format!(" {grade}\n").as_bytes());
        }
    }
    Some(out)
}

/// Every relation file of `files` evaluated against every run of `files`
/// (z-scores against the runs and the judgments): per pair, the name
/// `"{run} × {file}"` and trec_eval's per-query and `all` values, or what
/// trec_eval said instead.
pub fn evaluate(
    files: &[(String, Parsed)],
    version: Version,
) -> Vec<(String, Result<Evaluated, String>)> {
    let runs: Vec<(&str, Vec<u8>)> = files
        .iter()
        .filter_map(|(_, p)| match p.data() {
            Parsed::Run { name, .. } => Some((name.as_str(), results_text(p)?)),
            _ => None,
        })
        .collect();
    let qrels = files.iter().find_map(|(_, p)| qrels_text(p));
    let mut out = Vec::new();
    for (_, parsed) in files {
        let Parsed::Relations(r) = parsed.data() else {
            continue;
        };
        let (option, measures) = relations_command(r.format());
        for (run, results) in &runs {
            let name = format!("{run} × {}", r.name);
            let (rel_name, results_name) = (r.name.as_str(), format!("{run}.run"));
            let mut args: Vec<String> = vec!["-q".into()];
            let rel: &[u8] = if r.format() == Format::TrecZscores {
                let Some(qrels) = &qrels else {
                    out.push((name, Err(format!("{}: z-scores standardise the values of runs evaluated with their qrels; load the qrels too", r.name))));
                    continue;
                };
                args.extend(["-Z".into(), rel_name.into()]);
                qrels
            } else {
                args.extend(option.split(' ').map(String::from));
                &r.text
            };
            let judged = if r.format() == Format::TrecZscores {
                "qrels"
            } else {
                rel_name
            };
            args.extend([
                "-m".into(),
                measures.into(),
                judged.into(),
                results_name.clone(),
            ]);
            let files: [(&str, &[u8]); 3] =
                [(judged, rel), (&results_name, results), (rel_name, &r.text)];
            let result =
                rankscope_trec_eval::in_memory(version, &args, &files).and_then(|stdout| {
                    let options = LoadOptions {
                        format: Some(Format::TrecEvalOutput),
                        ..Default::default()
                    };
                    // (relstring's text and nan values are set aside by the reader)
                    match crate::parse::parse_bytes(&name, &stdout, &options)
                        .map(|p| p.into_parts().0)
                    {
                        Ok(Parsed::Measures(mut values)) => {
                            values.name = name.clone();
                            Ok(Evaluated { stdout, values })
                        }
                        Ok(_) => Err(format!("{name}: trec_eval printed no value")),
                        Err(e) => Err(e.to_string()),
                    }
                });
            out.push((name, result));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_bytes;

    fn trec_file(name: &str) -> Vec<u8> {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/trec_eval")
                .join(name),
        )
        .unwrap()
    }

    /// The pairs' values are the command line's on the files themselves
    /// (trec_eval's quicktest: prefs, qrels_prefs, qrels_jg, z-scores).
    #[test]
    fn each_relation_format_gives_trec_eval_s_values() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/trec_eval");
        for (relation, format, results, expected) in [
            ("prefs.test", None, "prefs.results.test", "out.test.prefs"),
            (
                "qrels.test",
                Some(Format::TrecQrelsPrefs),
                "results.test",
                "out.test.qrels_prefs",
            ),
            (
                "qrels.123",
                Some(Format::TrecQrelsJg),
                "results.test",
                "out.test.qrels_jg",
            ),
            ("zscores_file", None, "results.test", "out.test.aqZ"),
        ] {
            let options = LoadOptions {
                format,
                ..Default::default()
            };
            let mut files = vec![
                (
                    relation.to_string(),
                    parse_bytes(relation, &trec_file(relation), &options).unwrap(),
                ),
                (
                    results.to_string(),
                    parse_bytes(results, &trec_file(results), &Default::default()).unwrap(),
                ),
            ];
            if relation == "zscores_file" {
                let qrels =
                    parse_bytes("qrels.test", &trec_file("qrels.test"), &Default::default())
                        .unwrap();
                files.push(("qrels.test".into(), qrels));
            }
            let got = evaluate(&files, Version::V10);
            assert_eq!(got.len(), 1, "{relation}");
            let p = &got[0]
                .1
                .as_ref()
                .unwrap_or_else(|e| panic!("{relation}: {e}"))
                .values;
            let want = String::from_utf8(std::fs::read(dir.join(expected)).unwrap()).unwrap();
            let mut compared = 0;
            for line in want.lines() {
                let f: Vec<&str> = line.split('\t').collect();
                let (m, q) = (f[0].trim(), f[1]);
                if m == "runid" || m == "relstring" {
                    continue;
                }
                let v = p.get(m, q).unwrap_or_else(|| panic!("{relation}: {m} {q}"));
                let printed: f64 = f[2].parse().unwrap();
                assert!(
                    (v - printed).abs() <= 0.5e-4 + 1e-9,
                    "{relation}: {m} {q}: {v} vs {printed}"
                );
                compared += 1;
            }
            assert!(compared > 20, "{relation}: {compared}");
        }
    }
}
