//! The compact binary form of a parsed file ([postcard]): how the loading
//! worker hands its result to the page (one transferred buffer, no text and no
//! JSON), and how a saved session stores its data.
//!
//! [`decode`] checks every invariant the rest of the code relies on (ids within
//! their interners, equal column lengths), so bytes from anywhere are safe to read.

use super::{LoadError, Parsed};
use rankscope_core::binary::BinaryCurve;
#[cfg(doc)]
use rankscope_core::evaluate::BinaryData;
use rankscope_core::ids::{Interner, Names};
use rankscope_core::raw::{self, Side};

/// What a load produced: the parsed file or its errors.
pub type Outcome = Result<Parsed, LoadError>;

pub fn encode(outcome: &Outcome) -> Vec<u8> {
    // serialising plain data into a Vec cannot fail
    postcard::to_allocvec(outcome).unwrap_or_default()
}

/// [`encode`] with the big columns handed to `side` instead of written inline.
pub fn encode_with(outcome: &Outcome, side: Box<dyn Side>) -> (Vec<u8>, Box<dyn Side>) {
    raw::with_side(side, || postcard::to_allocvec(outcome).unwrap_or_default())
}

/// [`decode`] of bytes written by [`encode_with`], the columns read from `side`.
pub fn decode_with(bytes: &[u8], side: Box<dyn Side>) -> Result<Outcome, String> {
    raw::with_side(side, || decode(bytes)).0
}

/// The curves a loading worker built for a binary file (one per model, in
/// order), as one block with their columns handed to `side` after the file's.
pub fn encode_curves_with(curves: &[BinaryCurve], side: Box<dyn Side>) -> (Vec<u8>, Box<dyn Side>) {
    raw::with_side(side, || postcard::to_allocvec(curves).unwrap_or_default())
}

/// Reads a block of [`encode_curves_with`] (columns from `side`) and keeps
/// the curves with the binary data they were built from, once each is
/// checked against its labels ([`BinaryData::set_curves`]). A failed load
/// takes none.
pub fn attach_curves_with(
    outcome: &mut Outcome,
    bytes: &[u8],
    side: Box<dyn Side>,
) -> Result<(), String> {
    let curves = decode_curves_with(bytes, side)?;
    match outcome.as_mut().map(Parsed::data_mut) {
        Ok(Parsed::Binary(b)) => b.set_curves(curves),
        _ if curves.is_empty() => Ok(()),
        _ => Err("curves for data that is not binary".into()),
    }
}

/// Reads a block of [`encode_curves_with`] (columns from `side`), unchecked:
/// the caller checks them against their labels ([`BinaryData::set_curves`]).
pub fn decode_curves_with(bytes: &[u8], side: Box<dyn Side>) -> Result<Vec<BinaryCurve>, String> {
    raw::with_side(side, || exact(bytes)).0
}

/// A side channel in memory (tests; the page and the worker use `ArrayBuffer`s).
#[derive(Default)]
pub struct VecSide(pub Vec<Vec<u8>>);

impl Side for VecSide {
    fn put(&mut self, bytes: &[u8]) -> u32 {
        self.0.push(bytes.to_vec());
        self.0.len() as u32 - 1
    }
    fn len(&self, index: u32) -> Option<usize> {
        self.0.get(index as usize).map(Vec::len)
    }
    fn take(&mut self, index: u32, out: &mut [u8]) -> bool {
        match self.0.get(index as usize) {
            Some(b) if b.len() == out.len() => {
                out.copy_from_slice(b);
                true
            }
            _ => false,
        }
    }
}

/// Several named outcomes in one block (the bundled example's files).
pub fn encode_many(files: &[(String, Outcome)]) -> Vec<u8> {
    postcard::to_allocvec(files).unwrap_or_default()
}

/// Reads bytes written by [`encode_many`], checking each outcome like [`decode`].
pub fn decode_many(bytes: &[u8]) -> Result<Vec<(String, Outcome)>, String> {
    let files: Vec<(String, Outcome)> = exact(bytes)?;
    for (_, outcome) in &files {
        if let Ok(parsed) = outcome {
            check(parsed)?;
        }
    }
    Ok(files)
}

/// A per-query values file ([`Parsed::PerQuery`]) as a block of
/// [`encode_many`], one [`Parsed::Measures`] per model (the reader's notes
/// with the first); `None` for any other outcome.
pub fn encode_per_query(outcome: &Outcome) -> Option<Vec<u8>> {
    let (notes, list) = match outcome {
        Ok(Parsed::PerQuery(list)) => (Vec::new(), list),
        Ok(Parsed::Noted { notes, parsed }) => match &**parsed {
            Parsed::PerQuery(list) => (notes.clone(), list),
            _ => return None,
        },
        _ => return None,
    };
    let mut notes = Some(notes);
    let files: Vec<(String, Outcome)> = list
        .iter()
        .map(|p| {
            let parsed = Parsed::Measures(p.clone()).noted(notes.take().unwrap_or_default());
            (p.name.clone(), Ok(parsed))
        })
        .collect();
    Some(encode_many(&files))
}

/// The per-query values file a block of [`encode_per_query`] holds, each
/// model checked as [`decode`] checks a file.
pub fn decode_per_query(bytes: &[u8]) -> Result<Outcome, String> {
    let (mut notes, mut list) = (Vec::new(), Vec::new());
    for (_, outcome) in decode_many(bytes)? {
        let (parsed, more) = outcome
            .map_err(|_| "not a per-query values block".to_string())?
            .into_parts();
        notes.extend(more);
        match parsed {
            Parsed::Measures(p) => list.push(p),
            _ => return Err("not a per-query values block".into()),
        }
    }
    if list.is_empty() {
        return Err("an empty per-query values block".into());
    }
    Ok(Ok(Parsed::PerQuery(list).noted(notes)))
}

/// Reads bytes written by [`encode`]; `Err` says why they are not a valid load result.
pub fn decode(bytes: &[u8]) -> Result<Outcome, String> {
    let outcome: Outcome = exact(bytes)?;
    if let Ok(parsed) = &outcome {
        check(parsed)?;
    }
    Ok(outcome)
}

/// The value the bytes hold, with nothing left over (a block with trailing
/// bytes was cut or joined wrongly).
fn exact<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    match postcard::take_from_bytes(bytes) {
        Ok((value, [])) => Ok(value),
        Ok((_, rest)) => Err(format!(
            "not a Rankscope data block ({} unexpected bytes after its end)",
            rest.len()
        )),
        // postcard's own words would bring its error texts into the page
        Err(_) => Err("not a Rankscope data block (cut short, or not one)".into()),
    }
}

fn ids_within(ids: &[u32], names: &Interner, what: &str) -> Result<(), String> {
    if !names.is_consistent() {
        return Err(format!("the {what} id table is damaged"));
    }
    match ids.iter().find(|&&i| i as usize >= names.len()) {
        Some(i) => Err(format!("{what} id {i} is out of range")),
        None => Ok(()),
    }
}

fn names_ok(names: &Names) -> Result<(), String> {
    if names.is_consistent() {
        Ok(())
    } else {
        Err("the document names are damaged".into())
    }
}

fn same_length(lengths: &[usize]) -> Result<(), String> {
    if lengths.windows(2).all(|w| w[0] == w[1]) {
        Ok(())
    } else {
        let lengths: Vec<String> = lengths.iter().map(usize::to_string).collect();
        Err(format!(
            "columns of different lengths ({})",
            lengths.join(", ")
        ))
    }
}

/// [`decode_many`] for bytes of unknown origin (a session file, a saved
/// report): every outcome must be a parsed file, and each must hold only
/// what parsing a file could have produced ([`validate`]).
pub fn decode_many_validated(bytes: &[u8]) -> Result<Vec<(String, Parsed)>, String> {
    let mut out = Vec::new();
    for (name, outcome) in decode_many(bytes)? {
        match outcome {
            Ok(parsed) => match validate(&parsed) {
                Ok(()) => out.push((name, parsed)),
                Err(why) => return Err(format!("{name}: {why}")),
            },
            Err(e) => {
                return Err(format!(
                    "{name}: a failed load where data was expected ({e})"
                ))
            }
        }
    }
    Ok(out)
}

/// Beyond [`check`] (which makes reading safe): the values are ones a file's
/// parse gives, with the same rules (no NaN score, rating or value; every
/// id found by a lookup under its own id; judgments hashed and ordered as a
/// lookup expects; multi-class summaries matching their targets). Checked
/// for data read from a session file or a report, where a flipped bit could
/// otherwise change numbers silently; the workers' own hand-over is trusted
/// (this costs a hash per name).
fn no_nan(values: &[f64], what: &str) -> Result<(), String> {
    match values.iter().position(|v| v.is_nan()) {
        Some(i) => Err(format!(
            "{what} {} is not a number (NaN), which no file can hold",
            i + 1
        )),
        None => Ok(()),
    }
}

fn sound(names: &Interner, what: &str) -> Result<(), String> {
    if names.is_sound() {
        Ok(())
    } else {
        Err(format!("the {what} id table is damaged"))
    }
}

/// [`validate`] of values computed elsewhere.
fn valid_values(p: &crate::parse::Precomputed) -> Result<(), String> {
    sound(&p.measures, "measure")?;
    sound(&p.queries, "query")?;
    no_nan(&p.value, "value")
}

/// [`check`] of values computed elsewhere.
fn consistent_values(p: &crate::parse::Precomputed) -> Result<(), String> {
    same_length(&[p.m.len(), p.q.len(), p.value.len()])?;
    ids_within(&p.m, &p.measures, "measure")?;
    ids_within(&p.q, &p.queries, "query")
}

pub fn validate(parsed: &Parsed) -> Result<(), String> {
    check(parsed)?;
    match parsed {
        Parsed::Noted { parsed, .. } => validate(parsed),
        Parsed::Classes { names, parsed } => {
            sound(names, "class")?;
            validate(parsed)
        }
        Parsed::Run { queries, score, .. } => {
            sound(queries, "query")?;
            no_nan(score, "score")
        }
        Parsed::Qrels {
            queries, judgments, ..
        } => {
            sound(queries, "query")?;
            if judgments.is_sound(queries.len()) {
                Ok(())
            } else {
                Err("the judgments are damaged (a document is not where a lookup finds it)".into())
            }
        }
        Parsed::RankingTable {
            queries, models, ..
        } => {
            sound(queries, "query")?;
            for (name, scores) in models {
                if scores.iter().any(|s| s.is_some_and(f64::is_nan)) {
                    return Err(format!("a score of model '{name}' is not a number (NaN)"));
                }
            }
            Ok(())
        }
        Parsed::Binary(b) => {
            for (name, scores) in &b.models {
                no_nan(scores, &format!("model '{name}': score"))?;
            }
            Ok(())
        }
        Parsed::Multiclass(m) => {
            for p in &m.models {
                let fits = p
                    .rows
                    .iter()
                    .zip(&m.targets)
                    .all(|(r, &t)| r.target == t && !r.target_value.is_nan());
                if !fits {
                    return Err(format!(
                        "model '{}': a row's summary does not fit its target",
                        p.name
                    ));
                }
            }
            if m.rows_off_one.iter().any(|&n| n > m.targets.len()) {
                return Err("more rows off 1 than rows".into());
            }
            Ok(())
        }
        Parsed::Ratings(r) => {
            sound(&r.users, "user")?;
            sound(&r.items, "item")?;
            no_nan(&r.rating, "rating")?;
            for (name, predictions) in &r.models {
                no_nan(predictions, &format!("model '{name}': prediction"))?;
            }
            Ok(())
        }
        Parsed::Measures(p) => std::slice::from_ref(p).iter().try_for_each(valid_values),
        Parsed::PerQuery(list) => list.iter().try_for_each(valid_values),
        Parsed::Relations(r) => {
            let relational =
                crate::parse::Format::from_id(&r.format_id).is_some_and(|f| f.is_relation());
            // lines of printable text, as the reader keeps them
            let lines = r.text.iter().filter(|&&b| b == b'\n').count();
            if relational && lines == r.rows && r.text.last().is_none_or(|&b| b == b'\n') {
                Ok(())
            } else {
                Err("a relation file's lines are damaged".into())
            }
        }
    }
}

fn check(parsed: &Parsed) -> Result<(), String> {
    match parsed {
        Parsed::Noted { parsed, .. } => check(parsed),
        Parsed::Classes { names, parsed } => match &**parsed {
            Parsed::Multiclass(m) if names.is_consistent() && m.num_classes == names.len() => {
                check(parsed)
            }
            _ => Err("class names without their multi-class data".into()),
        },
        Parsed::Run {
            queries,
            docs,
            q,
            score,
            ..
        } => {
            same_length(&[q.len(), docs.len(), score.len()])?;
            names_ok(docs)?;
            ids_within(q, queries, "query")
        }
        Parsed::Qrels {
            queries, judgments, ..
        } => {
            if !queries.is_consistent() || !judgments.is_consistent(queries.len()) {
                return Err("the judgments are damaged".into());
            }
            Ok(())
        }

        Parsed::RankingTable {
            queries,
            docs,
            q,
            grade,
            models,
        } => {
            let mut lengths = vec![q.len(), docs.len(), grade.len()];
            lengths.extend(models.iter().map(|m| m.1.len()));
            same_length(&lengths)?;
            names_ok(docs)?;
            ids_within(q, queries, "query")
        }
        Parsed::Binary(b) => {
            if b.models.is_empty() {
                return Err("binary data without a model".into());
            }
            let mut lengths = vec![b.labels.len()];
            lengths.extend(b.models.iter().map(|m| m.1.len()));
            same_length(&lengths)
        }
        Parsed::Multiclass(m) => {
            if m.models.is_empty() || m.rows_off_one.len() != m.models.len() {
                return Err("multi-class data without a model".into());
            }
            let c = m.num_classes as u64;
            for p in &m.models {
                let bad_row = p.rows.iter().any(|r| {
                    r.target as u64 >= c
                        || r.argmax as u64 >= c
                        || r.greater as u64 + r.tied_lower_index as u64 + r.tied_higher_index as u64
                            >= c
                });
                let bad_list = p.list_positions.iter().any(|&x| x as usize > p.list_len)
                    || p.list_first.iter().any(|&x| x != u32::MAX && x as u64 >= c);
                if bad_row || bad_list {
                    return Err("a multi-class row out of range".into());
                }
            }
            if let Some(t) = m.targets.iter().find(|&&t| t as usize >= m.num_classes) {
                return Err(format!("class {t} is out of range"));
            }
            for p in &m.models {
                if p.is_list() {
                    same_length(&[m.targets.len(), p.list_positions.len(), p.list_first.len()])?;
                } else {
                    same_length(&[m.targets.len(), p.rows.len()])?;
                }
            }
            Ok(())
        }
        Parsed::Relations(_) => Ok(()),
        Parsed::Measures(p) => std::slice::from_ref(p)
            .iter()
            .try_for_each(consistent_values),
        Parsed::PerQuery(list) => list.iter().try_for_each(consistent_values),
        Parsed::Ratings(r) => {
            if r.models.is_empty() {
                return Err("ratings without a model".into());
            }
            let mut lengths = vec![r.user.len(), r.item.len(), r.rating.len()];
            lengths.extend(r.models.iter().map(|m| m.1.len()));
            same_length(&lengths)?;
            ids_within(&r.user, &r.users, "user")?;
            ids_within(&r.item, &r.items, "item")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_bytes, LoadOptions, Workspace};

    /// A top-k list with sparse numeric ids reaches the page: its parse
    /// passes the hand-over's checks (it once failed "class ... is out of
    /// range": the classes were counted, not numbered by their largest id).
    #[test]
    fn sparse_top_k_ids_pass_the_hand_over() {
        let text = b"target,pred_1,pred_2\n7919,13,7919\n13,42,7\n";
        let parsed = parse_bytes("topk.csv", text, &LoadOptions::default());
        let Ok(Parsed::Multiclass(m)) = &parsed else {
            panic!("{parsed:?}")
        };
        assert_eq!((m.num_classes, &m.targets[..]), (7920, &[7919, 13][..]));
        assert!(decode(&encode(&parsed)).unwrap().is_ok());
    }

    /// A per-query values file reaches the page as one `Measures` per model
    /// and comes back the file it was, its reader's notes kept.
    #[test]
    fn per_query_values_round_trip_as_measures() {
        let text = b",query_id,model,metric,value\n0,q1,a,map,0.5\n1,q2,a,map,0.25\n2,q1,b,map,1\n3,q2,b,ndcg@10,0.125\n";
        let parsed = parse_bytes("pq.csv", text, &LoadOptions::default());
        let bytes = encode_per_query(&parsed).expect("a per-query file");
        let back = decode_per_query(&bytes).unwrap();
        let parts = |o: &Outcome| match o.clone().map(Parsed::into_parts) {
            Ok((Parsed::PerQuery(list), notes)) => (
                notes,
                list.iter()
                    .map(|p| {
                        (
                            p.name.clone(),
                            p.measure_names().join(","),
                            p.m.clone(),
                            p.q.clone(),
                            p.value.clone(),
                        )
                    })
                    .collect::<Vec<_>>(),
            ),
            other => panic!("{other:?}"),
        };
        let (notes, models) = parts(&back);
        assert_eq!((notes.len(), models.len()), (1, 2), "{notes:?}");
        assert_eq!(parts(&back), parts(&parsed));
        // other files are not per-query blocks, nor is their encoding one
        let run = parse_bytes("r.run", b"q1 Q0 d1 1 0.5 t\n", &LoadOptions::default());
        assert!(encode_per_query(&run).is_none());
        let many = encode_many(&[("r.run".into(), run)]);
        assert!(decode_per_query(&many).is_err());
        // the variant itself is never encoded
        assert!(encode(&parsed).is_empty());
    }

    /// Every example file survives the round trip: the workspace built from the
    /// decoded form evaluates to exactly the same numbers.
    #[test]
    fn round_trip_gives_the_same_workspace() {
        let (mut direct, mut via) = (Workspace::default(), Workspace::default());
        for (name, bytes) in crate::example::example_files() {
            let parsed = parse_bytes(&name, &bytes, &LoadOptions::default());
            let decoded = decode(&encode(&parsed)).unwrap();
            direct.add(&name, parsed.unwrap()).unwrap();
            via.add(&name, decoded.unwrap()).unwrap();
        }
        let conv = rankscope_core::evaluate::Conventions::default();
        for (a, b) in direct.datasets().iter().zip(via.datasets()) {
            let ids = rankscope_core::registry::all_metrics(a.kind(), &[1, 5, 10]);
            let ra = rankscope_core::evaluate::evaluate(a, &conv, &ids);
            let rb = rankscope_core::evaluate::evaluate(&b, &conv, &ids);
            assert_eq!(
                serde_json::to_string(&ra).unwrap(),
                serde_json::to_string(&rb).unwrap()
            );
        }
        assert_eq!(direct.datasets().len(), 4);
    }

    /// With a side channel the big columns leave the bytes, and come back the same.
    #[test]
    fn side_channel_round_trip() {
        for (name, bytes) in crate::example::example_files() {
            let parsed = parse_bytes(&name, &bytes, &LoadOptions::default());
            let plain = encode(&parsed);
            let (skeleton, side) = encode_with(&parsed, Box::new(VecSide::default()));
            assert!(skeleton.len() <= plain.len(), "{name}");
            if name.ends_with(".run") {
                assert!(
                    skeleton.len() * 10 < plain.len(),
                    "a run's columns all go to the side"
                );
            }
            let back = decode_with(&skeleton, side).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(encode(&back), plain, "{name}");
            // a missing or short column is an error, not a panic
            assert!(
                decode_with(&skeleton, Box::new(VecSide::default())).is_err() || plain.len() < 64
            );
            let mut short = VecSide::default();
            short.0.push(vec![1, 2, 3]);
            let _ = decode_with(&skeleton, Box::new(short));
        }
    }

    /// Curves built by the worker come back with their data; curves that do
    /// not fit the labels are refused.
    #[test]
    fn curves_travel_with_their_data_and_must_fit_it() {
        let text = b"label,a,b\n1,0.9,0.2\n0,0.4,0.4\n1,0.4,0.7\n0,0.1,0.9\n";
        let parsed = parse_bytes("x.csv", text, &LoadOptions::default());
        let Ok(Parsed::Binary(b)) = &parsed else {
            panic!("binary")
        };
        let curves: Vec<BinaryCurve> = b
            .models
            .iter()
            .map(|(_, s)| BinaryCurve::new(&b.labels, s))
            .collect();
        let (skeleton, side) = encode_with(&parsed, Box::new(VecSide::default()));
        let (block, side) = encode_curves_with(&curves, side);
        let side = side_vec(side);
        let mut back = decode_with(&skeleton, Box::new(VecSide(side.clone()))).unwrap();
        attach_curves_with(&mut back, &block, Box::new(VecSide(side.clone()))).unwrap();
        let Ok(Parsed::Binary(back)) = back else {
            panic!("binary")
        };
        for (i, curve) in curves.iter().enumerate() {
            let built = back.built_curve(i).expect("kept");
            assert_eq!(built.thresholds, curve.thresholds);
            assert_eq!((&built.tps, &built.fps), (&curve.tps, &curve.fps));
        }
        // the curves of other labels, or in the wrong number, are refused
        let other = parse_bytes(
            "y.csv",
            b"label,a,b\n1,0.9,0.2\n1,0.4,0.4\n1,0.4,0.7\n0,0.1,0.9\n",
            &LoadOptions::default(),
        );
        let (skeleton, side) = encode_with(&other, Box::new(VecSide::default()));
        let (block, side) = encode_curves_with(&curves, side);
        let side = side_vec(side);
        let mut wrong = decode_with(&skeleton, Box::new(VecSide(side.clone()))).unwrap();
        assert!(attach_curves_with(&mut wrong, &block, Box::new(VecSide(side))).is_err());
        let mut one = decode(&encode(&parsed)).unwrap();
        let (block, side) = encode_curves_with(&curves[..1], Box::new(VecSide::default()));
        assert!(attach_curves_with(&mut one, &block, side).is_err());
        // a file with notes (a pandas index column): the curves reach its data
        let noted = parse_bytes(
            "p.csv",
            b",label,a,b\n0,1,0.9,0.2\n1,0,0.4,0.4\n2,1,0.4,0.7\n3,0,0.1,0.9\n",
            &LoadOptions::default(),
        );
        assert!(matches!(&noted, Ok(Parsed::Noted { .. })));
        let (skeleton, side) = encode_with(&noted, Box::new(VecSide::default()));
        let (block, side) = encode_curves_with(&curves, side);
        let side = side_vec(side);
        let mut back = decode_with(&skeleton, Box::new(VecSide(side.clone()))).unwrap();
        attach_curves_with(&mut back, &block, Box::new(VecSide(side))).unwrap();
        let Ok(Parsed::Binary(b)) = back.map(|p| p.into_parts().0) else {
            panic!("binary")
        };
        assert!(b.built_curve(1).is_some());
    }

    fn side_vec(side: Box<dyn Side>) -> Vec<Vec<u8>> {
        let n = (0..).take_while(|&i| side.len(i).is_some()).count() as u32;
        let mut side = side;
        (0..n)
            .map(|i| {
                let mut out = vec![0; side.len(i).unwrap()];
                side.take(i, &mut out);
                out
            })
            .collect()
    }

    #[test]
    fn errors_travel_too_and_damaged_bytes_are_refused() {
        let failed = parse_bytes("x.csv", b"label,score\n2,zz\n", &LoadOptions::default());
        let back = decode(&encode(&failed)).unwrap();
        assert_eq!(back.unwrap_err(), failed.unwrap_err());
        let good = encode(&parse_bytes(
            "r.run",
            b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4 t\n",
            &LoadOptions::default(),
        ));
        assert!(decode(&good).unwrap().is_ok());
        // every truncation and every single-byte change is either refused or consistent
        for cut in 0..good.len() {
            let _ = decode(&good[..cut]);
        }
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x5a;
            if let Ok(Ok(parsed)) = decode(&bad) {
                let mut ws = Workspace::default();
                let _ = ws.add("r.run", parsed);
            }
        }
        assert!(decode(b"\xff\xff\xff").is_err());
    }
}
