//! trec_eval 10.0's measures (`measures.c` and the `m_*.c` files), in its
//! order, with its parameters, names, accumulation, averaging and printing.
//! Each calculation follows its C source expression by expression, so the
//! floating-point results are the same bits.

use super::cfmt::{atol, c_long, msort};
use super::prefs::{self, ResultsPrefs, Scope};
use super::rels::{ResRels, NONPOOL, UNJUDGED};
use rankscope_core::ranking_metrics::{ap_running, interpolated_walk, ApRun};
use rankscope_core::trec_measures::{
    bin_g_sum, inferred_ap_sum, rbp_residual_of, rbp_sum, set_f_of, set_map_of, set_p_of,
    set_recall_of, set_relative_p_of, utility_of, Pooled, MIN_GEO_MEAN,
};

/// The parameters a measure was initialised with.
#[derive(Clone, Debug)]
pub enum Params {
    None,
    /// integer cutoffs, sorted ascending, distinct, positive
    Cuts(Vec<i64>),
    /// fractional cutoffs (sorted ascending, distinct) or plain values
    Floats(Vec<f64>),
    /// `name=value` pairs (gain maps, `p=` for rbp)
    Pairs(Vec<(String, f64)>),
}

impl Params {
    fn cuts(&self) -> &[i64] {
        match self {
            Params::Cuts(c) => c,
            _ => &[],
        }
    }
    fn floats(&self) -> &[f64] {
        match self {
            Params::Floats(f) => f,
            _ => &[],
        }
    }
    fn pairs(&self) -> &[(String, f64)] {
        match self {
            Params::Pairs(p) => p,
            _ => &[],
        }
    }
}

/// How a measure reserves its values and reads command-line parameters.
#[derive(Clone, Copy)]
pub enum Init {
    /// no value (runid)
    Empty,
    /// one value named after the measure
    Single,
    /// one value per integer cutoff: `name_%ld`
    CutLong(&'static [i64]),
    /// one value per fractional cutoff: `name_%3.2f`
    CutDouble(&'static [f64]),
    /// one value, named `name_<params>` when parameters are given
    ParamDouble(&'static [f64]),
    /// one value, named `name_<params>`; parameters are `a=b` pairs
    ParamPair,
}

/// How a measure's values are accumulated, averaged and printed.
#[derive(Clone, Copy, PartialEq)]
pub enum Shape {
    Runid,
    NumQ,
    /// a count printed with %ld, summed over queries
    Count,
    /// num_rel: a summed count that -c recounts from all judgments
    NumRel,
    /// a value printed with %6.4f, averaged over queries
    Mean,
    /// averaged with the geometric mean, printed only in the summary
    Geometric,
    Relstring,
}

/// What a measure reads for one query.
#[derive(Clone, Copy)]
pub enum Calc {
    Runid,
    NumQ,
    Relstring,
    Rels(fn(&Ctx, &ResRels, &Params, &mut [f64]) -> Result<(), String>),
    Jg(fn(&Ctx, &[ResRels], &Params, &mut [f64])),
    Prefs(fn(&ResultsPrefs) -> Option<f64>),
}

/// One row of trec_eval's measure table.
pub struct Measure {
    pub name: &'static str,
    pub init: Init,
    pub calc: Calc,
    pub shape: Shape,
}

/// The evaluation settings measures read.
pub struct Ctx {
    pub relevance_level: i64,
    pub num_docs_in_coll: i64,
    /// trec_eval 9.0.x turns recall points into document counts with
    /// `(long)(x * R + 0.9)`; 10.0 rounds (`lround`)
    pub truncated_recall_cutoffs: bool,
}

const CUTS: &[i64] = &[5, 10, 15, 20, 30, 100, 200, 500, 1000];
const RECALL_POINTS: &[f64] = &[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
const RPREC_MULTS: &[f64] = &[0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0];

macro_rules! m {
    ($name:expr, $init:expr, $calc:expr, $shape:expr) => {
        Measure {
            name: $name,
            init: $init,
            calc: $calc,
            shape: $shape,
        }
    };
}

/// `te_trec_measures`, in its order (which is the output order).
pub static MEASURES: &[Measure] = &[
    m!("runid", Init::Empty, Calc::Runid, Shape::Runid),
    m!("num_q", Init::Single, Calc::NumQ, Shape::NumQ),
    m!("num_ret", Init::Single, Calc::Rels(num_ret), Shape::Count),
    m!("num_rel", Init::Single, Calc::Rels(num_rel), Shape::NumRel),
    m!(
        "num_rel_ret",
        Init::Single,
        Calc::Rels(num_rel_ret),
        Shape::Count
    ),
    m!("map", Init::Single, Calc::Rels(map), Shape::Mean),
    m!("gm_map", Init::Single, Calc::Rels(gm_map), Shape::Geometric),
    m!("Rprec", Init::Single, Calc::Rels(rprec), Shape::Mean),
    m!("bpref", Init::Single, Calc::Rels(bpref), Shape::Mean),
    m!(
        "recip_rank",
        Init::Single,
        Calc::Rels(recip_rank),
        Shape::Mean
    ),
    m!(
        "iprec_at_recall",
        Init::CutDouble(RECALL_POINTS),
        Calc::Rels(iprec_at_recall),
        Shape::Mean
    ),
    m!("P", Init::CutLong(CUTS), Calc::Rels(precision), Shape::Mean),
    m!(
        "relstring",
        Init::ParamDouble(&[10.0]),
        Calc::Relstring,
        Shape::Relstring
    ),
    m!(
        "recall",
        Init::CutLong(CUTS),
        Calc::Rels(recall),
        Shape::Mean
    ),
    m!("infAP", Init::Single, Calc::Rels(inf_ap), Shape::Mean),
    m!(
        "gm_bpref",
        Init::Single,
        Calc::Rels(gm_bpref),
        Shape::Geometric
    ),
    m!(
        "Rprec_mult",
        Init::CutDouble(RPREC_MULTS),
        Calc::Rels(rprec_mult),
        Shape::Mean
    ),
    m!(
        "utility",
        Init::ParamDouble(&[1.0, -1.0, 0.0, 0.0]),
        Calc::Rels(utility),
        Shape::Mean
    ),
    m!(
        "11pt_avg",
        Init::ParamDouble(RECALL_POINTS),
        Calc::Rels(eleven_pt_avg),
        Shape::Mean
    ),
    m!("binG", Init::Single, Calc::Rels(bin_g), Shape::Mean),
    m!("G", Init::ParamPair, Calc::Rels(g), Shape::Mean),
    m!("dcg", Init::ParamPair, Calc::Rels(dcg), Shape::Mean),
    m!(
        "ideal_dcg",
        Init::ParamPair,
        Calc::Rels(ideal_dcg),
        Shape::Mean
    ),
    m!("ndcg", Init::ParamPair, Calc::Rels(ndcg), Shape::Mean),
    m!(
        "ndcg_rel",
        Init::ParamPair,
        Calc::Rels(ndcg_rel),
        Shape::Mean
    ),
    m!("Rndcg", Init::ParamPair, Calc::Rels(rndcg), Shape::Mean),
    m!(
        "ndcg_cut",
        Init::CutLong(CUTS),
        Calc::Rels(ndcg_cut),
        Shape::Mean
    ),
    m!(
        "map_cut",
        Init::CutLong(CUTS),
        Calc::Rels(map_cut),
        Shape::Mean
    ),
    m!(
        "relative_P",
        Init::CutLong(CUTS),
        Calc::Rels(relative_p),
        Shape::Mean
    ),
    m!(
        "success",
        Init::CutLong(&[1, 5, 10]),
        Calc::Rels(success),
        Shape::Mean
    ),
    m!("set_P", Init::Single, Calc::Rels(set_p), Shape::Mean),
    m!(
        "set_relative_P",
        Init::Single,
        Calc::Rels(set_relative_p),
        Shape::Mean
    ),
    m!(
        "set_recall",
        Init::Single,
        Calc::Rels(set_recall),
        Shape::Mean
    ),
    m!("set_map", Init::Single, Calc::Rels(set_map), Shape::Mean),
    m!(
        "set_F",
        Init::ParamDouble(&[1.0]),
        Calc::Rels(set_f),
        Shape::Mean
    ),
    m!(
        "num_nonrel_judged_ret",
        Init::Single,
        Calc::Rels(num_nonrel_judged_ret),
        Shape::Count
    ),
    m!(
        "prefs_num_prefs_poss",
        Init::Single,
        Calc::Prefs(|rp| Some(prefs::num_possible(rp))),
        Shape::Count
    ),
    m!(
        "prefs_num_prefs_ful",
        Init::Single,
        Calc::Prefs(|rp| Some(prefs::num_fulfilled(rp, Scope::All))),
        Shape::Count
    ),
    m!(
        "prefs_num_prefs_ful_ret",
        Init::Single,
        Calc::Prefs(|rp| Some(prefs::num_fulfilled(rp, Scope::Ret))),
        Shape::Count
    ),
    m!(
        "prefs_simp",
        Init::Single,
        Calc::Prefs(|rp| prefs::simple(rp, Scope::All)),
        Shape::Mean
    ),
    m!(
        "prefs_pair",
        Init::Single,
        Calc::Prefs(|rp| prefs::pair(rp, Scope::All)),
        Shape::Mean
    ),
    m!(
        "prefs_avgjg",
        Init::Single,
        Calc::Prefs(|rp| prefs::avg_jg(rp, Scope::All)),
        Shape::Mean
    ),
    m!(
        "prefs_avgjg_Rnonrel",
        Init::Single,
        Calc::Prefs(|rp| prefs::avg_jg_rnonrel(rp, false)),
        Shape::Mean
    ),
    m!(
        "prefs_simp_ret",
        Init::Single,
        Calc::Prefs(|rp| prefs::simple(rp, Scope::Ret)),
        Shape::Mean
    ),
    m!(
        "prefs_pair_ret",
        Init::Single,
        Calc::Prefs(|rp| prefs::pair(rp, Scope::Ret)),
        Shape::Mean
    ),
    m!(
        "prefs_avgjg_ret",
        Init::Single,
        Calc::Prefs(|rp| prefs::avg_jg(rp, Scope::Ret)),
        Shape::Mean
    ),
    m!(
        "prefs_avgjg_Rnonrel_ret",
        Init::Single,
        Calc::Prefs(|rp| prefs::avg_jg_rnonrel(rp, true)),
        Shape::Mean
    ),
    m!(
        "prefs_simp_imp",
        Init::Single,
        Calc::Prefs(|rp| prefs::simple(rp, Scope::Imp)),
        Shape::Mean
    ),
    m!(
        "prefs_pair_imp",
        Init::Single,
        Calc::Prefs(|rp| prefs::pair(rp, Scope::Imp)),
        Shape::Mean
    ),
    m!(
        "prefs_avgjg_imp",
        Init::Single,
        Calc::Prefs(|rp| prefs::avg_jg(rp, Scope::Imp)),
        Shape::Mean
    ),
    m!("map_avgjg", Init::Single, Calc::Jg(map_avgjg), Shape::Mean),
    m!(
        "P_avgjg",
        Init::CutLong(CUTS),
        Calc::Jg(p_avgjg),
        Shape::Mean
    ),
    m!(
        "Rprec_mult_avgjg",
        Init::CutDouble(RPREC_MULTS),
        Calc::Jg(rprec_mult_avgjg),
        Shape::Mean
    ),
    m!("yaap", Init::Single, Calc::Rels(yaap), Shape::Mean),
    m!("rbp", Init::ParamPair, Calc::Rels(rbp), Shape::Mean),
    m!(
        "rbp_resid",
        Init::ParamPair,
        Calc::Rels(rbp_resid),
        Shape::Mean
    ),
    m!(
        "unj",
        Init::CutLong(&[5, 10, 20]),
        Calc::Rels(unj),
        Shape::Mean
    ),
];

/// `te_trec_measure_nicknames`.
pub static NICKNAMES: &[(&str, &[&str])] = &[
    (
        "official",
        &[
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "map",
            "gm_map",
            "Rprec",
            "bpref",
            "recip_rank",
            "iprec_at_recall",
            "P",
        ],
    ),
    (
        "set",
        &[
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "utility",
            "set_P",
            "set_recall",
            "set_relative_P",
            "set_map",
            "set_F",
        ],
    ),
    (
        "all_trec",
        &[
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "map",
            "gm_map",
            "Rprec",
            "bpref",
            "recip_rank",
            "iprec_at_recall",
            "P",
            "relstring",
            "recall",
            "unj",
            "rbp",
            "rbp_resid",
            "infAP",
            "gm_bpref",
            "utility",
            "11pt_avg",
            "ndcg",
            "relative_P",
            "Rprec_mult",
            "success",
            "map_cut",
            "ndcg_cut",
            "ndcg_rel",
            "Rndcg",
            "binG",
            "G",
            "set_P",
            "set_recall",
            "set_relative_P",
            "set_map",
            "set_F",
            "num_nonrel_judged_ret",
        ],
    ),
    (
        "all_prefs",
        &[
            "runid",
            "num_q",
            "prefs_num_prefs_poss",
            "prefs_num_prefs_ful",
            "prefs_num_prefs_ful_ret",
            "prefs_simp",
            "prefs_pair",
            "prefs_avgjg",
            "prefs_avgjg_Rnonrel",
            "prefs_simp_ret",
            "prefs_pair_ret",
            "prefs_avgjg_ret",
            "prefs_avgjg_Rnonrel_ret",
            "prefs_simp_imp",
            "prefs_pair_imp",
            "prefs_avgjg_imp",
        ],
    ),
    (
        "prefs",
        &[
            "runid",
            "num_q",
            "prefs_num_prefs_poss",
            "prefs_num_prefs_ful",
            "prefs_num_prefs_ful_ret",
            "prefs_simp",
            "prefs_pair",
            "prefs_avgjg",
        ],
    ),
    (
        "qrels_jg",
        &["runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"],
    ),
];

fn num_ret(_: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = rr.num_ret as f64;
    Ok(())
}

fn num_rel(_: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = rr.num_rel as f64;
    Ok(())
}

fn num_rel_ret(_: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = rr.num_rel_ret as f64;
    Ok(())
}

fn num_nonrel_judged_ret(_: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = rr.num_ret as f64
        - rr.num_nonpool as f64
        - rr.num_unjudged_in_pool as f64
        - rr.num_rel_ret as f64;
    Ok(())
}

/// Σ precision at each relevant retrieved document, and how many there were:
/// the core's AP sum ([`ap_running`], the same operations in m_map.c's
/// order) over this run's relevance list.
fn ap_sum(ctx: &Ctx, rr: &ResRels) -> (f64, i64) {
    let relevant = rr.rel_list.iter().map(|&r| r >= ctx.relevance_level);
    let (sum, rel_so_far) = ap_running(relevant, |_, _| {});
    (sum, rel_so_far as i64)
}

fn map(ctx: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    let (sum, rel_so_far) = ap_sum(ctx, rr);
    if rel_so_far != 0 {
        v[0] = sum / rr.num_rel as f64;
    }
    Ok(())
}

fn gm_map(ctx: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    let (mut sum, rel_so_far) = ap_sum(ctx, rr);
    if rel_so_far != 0 {
        sum /= rr.num_rel as f64;
    }
    v[0] = sum.max(MIN_GEO_MEAN).ln();
    Ok(())
}

fn yaap(ctx: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    let (sum, _) = ap_sum(ctx, rr);
    v[0] = ((1.0 + sum) / (1.0 + rr.num_rel as f64 - sum)).ln();
    Ok(())
}

fn rprec(ctx: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    let n = rr.num_ret.min(rr.num_rel);
    if n == 0 {
        return Ok(());
    }
    let rel_so_far = rr.rel_list[..n as usize]
        .iter()
        .filter(|&&r| r >= ctx.relevance_level)
        .count();
    v[0] = rel_so_far as f64 / rr.num_rel as f64;
    Ok(())
}

/// bpref's sum before dividing by R (shared by bpref and gm_bpref).
fn bpref_value(ctx: &Ctx, rr: &ResRels) -> f64 {
    // levels below the relevance level (none counted past the highest judged)
    let below = ctx.relevance_level.clamp(0, rr.rel_levels.len() as i64);
    let num_nonrel: i64 = (0..below).map(|j| rr.level(j)).sum();
    let mut nonrel_so_far = 0i64;
    let mut bpref = 0.0;
    for &r in &rr.rel_list {
        if r == NONPOOL || r == UNJUDGED {
            continue;
        }
        if r >= 0 && r < ctx.relevance_level {
            nonrel_so_far += 1;
        } else if nonrel_so_far > 0 {
            bpref +=
                1.0 - (nonrel_so_far.min(rr.num_rel) as f64 / num_nonrel.min(rr.num_rel) as f64);
        } else {
            bpref += 1.0;
        }
    }
    if rr.num_rel != 0 {
        bpref /= rr.num_rel as f64;
    }
    bpref
}

fn bpref(ctx: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = bpref_value(ctx, rr);
    Ok(())
}

fn gm_bpref(ctx: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = bpref_value(ctx, rr).max(MIN_GEO_MEAN).ln();
    Ok(())
}

fn recip_rank(ctx: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    if let Some(i) = rr.rel_list.iter().position(|&r| r >= ctx.relevance_level) {
        v[0] = 1.0 / (i + 1) as f64;
    }
    Ok(())
}

fn inf_ap(ctx: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    // m_infAP.c's classes: every other value, negative ones included, counts
    // as relevant
    let mut inf_ap = inferred_ap_sum(rr.rel_list.iter().map(|&r| match r {
        NONPOOL => Pooled::NotInPool,
        UNJUDGED => Pooled::Unjudged,
        r if r >= 0 && r < ctx.relevance_level => Pooled::NonRelevant,
        _ => Pooled::Relevant,
    }));
    if rr.num_rel != 0 {
        inf_ap /= rr.num_rel as f64;
    }
    v[0] = inf_ap;
    Ok(())
}

/// C's `lround`: halves away from zero.
fn lround(x: f64) -> i64 {
    c_long(x.round())
}

/// Interpolated precision at recall points (iprec_at_recall and 11pt_avg):
/// calls `hit(cut, int_precis)` for every cutoff, from the last down (the
/// core's walk, [`interpolated_walk`], at this run's cutoffs).
fn interpolated(ctx: &Ctx, rr: &ResRels, points: &[f64], hit: impl FnMut(usize, f64)) {
    let cutoffs: Vec<i64> = points
        .iter()
        .map(|p| {
            if ctx.truncated_recall_cutoffs {
                c_long(p * rr.num_rel as f64 + 0.9)
            } else {
                lround(p * rr.num_rel as f64)
            }
        })
        .collect();
    let rel = |i: usize| rr.rel_list[i] >= ctx.relevance_level;
    interpolated_walk(rel, rr.num_ret, rr.num_rel_ret, &cutoffs, hit);
}

fn iprec_at_recall(ctx: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    interpolated(ctx, rr, p.floats(), |cut, value| v[cut] = value);
    Ok(())
}

fn eleven_pt_avg(ctx: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let points = p.floats();
    let mut sum = 0.0;
    interpolated(ctx, rr, points, |_, value| sum += value);
    v[0] = sum / points.len() as f64;
    Ok(())
}

/// The cutoff scan shared by P, recall, relative_P, success, map_cut and
/// unj: `at(i, state)` is the value at cutoff i (documents 0..i seen),
/// `step(doc, state)` folds in the next document.
fn scan<S>(
    rr: &ResRels,
    cuts: &[i64],
    v: &mut [f64],
    mut state: S,
    step: impl Fn(usize, i64, &mut S),
    at: impl Fn(i64, &S) -> f64,
) {
    let mut ci = 0;
    for (i, &r) in rr.rel_list.iter().enumerate() {
        if ci < cuts.len() && i as i64 == cuts[ci] {
            v[ci] = at(i as i64, &state);
            ci += 1;
            if ci == cuts.len() {
                break;
            }
        }
        step(i, r, &mut state);
    }
    while ci < cuts.len() {
        v[ci] = at(cuts[ci], &state);
        ci += 1;
    }
}

fn precision(ctx: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let lvl = ctx.relevance_level;
    scan(
        rr,
        p.cuts(),
        v,
        0i64,
        |_, r, n| *n += i64::from(r >= lvl),
        |i, n| *n as f64 / i as f64,
    );
    Ok(())
}

fn recall(ctx: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    if rr.num_rel == 0 {
        return Ok(());
    }
    let lvl = ctx.relevance_level;
    let num_rel = rr.num_rel as f64;
    scan(
        rr,
        p.cuts(),
        v,
        0i64,
        |_, r, n| *n += i64::from(r >= lvl),
        |_, n| *n as f64 / num_rel,
    );
    Ok(())
}

/// Not the core's kernel (`QueryView::relative_precision`, nor `unj` and
/// `Rprec_mult` theirs): the core's read counts under its tie rule (an
/// expectation over tie groups), this reads trec_eval's order only, every
/// cutoff in one [`scan`]; both end in one count over one integer division.
fn relative_p(ctx: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    if rr.num_rel == 0 {
        return Ok(());
    }
    let lvl = ctx.relevance_level;
    let num_rel = rr.num_rel;
    scan(
        rr,
        p.cuts(),
        v,
        0i64,
        |_, r, n| *n += i64::from(r >= lvl),
        |i, n| *n as f64 / i.min(num_rel) as f64,
    );
    Ok(())
}

fn success(ctx: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let lvl = ctx.relevance_level;
    scan(
        rr,
        p.cuts(),
        v,
        0i64,
        |_, r, n| *n += i64::from(r >= lvl),
        |_, n| if *n != 0 { 1.0 } else { 0.0 },
    );
    Ok(())
}

fn map_cut(ctx: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    if rr.num_rel == 0 {
        return Ok(());
    }
    let lvl = ctx.relevance_level;
    let num_rel = rr.num_rel as f64;
    scan(
        rr,
        p.cuts(),
        v,
        ApRun::default(),
        |i, r, s| {
            s.step(i, r >= lvl);
        },
        |_, s| s.sum / num_rel,
    );
    Ok(())
}

fn unj(_: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    scan(
        rr,
        p.cuts(),
        v,
        0i64,
        |_, r, n| *n += i64::from(r == NONPOOL || r == UNJUDGED),
        |i, n| *n as f64 / i as f64,
    );
    Ok(())
}

fn relstring_len(p: &Params) -> f64 {
    p.floats().first().copied().unwrap_or(0.0)
}

/// relstring's text: one character per retrieved document.
pub fn relstring(rr: &ResRels, p: &Params) -> Vec<u8> {
    let len = c_long(relstring_len(p)).min(rr.num_ret).max(0) as usize;
    rr.rel_list[..len]
        .iter()
        .map(|&rel| match rel {
            r if r > 9 => b'>',
            r if r >= 0 => b'0' + r as u8,
            NONPOOL => b'-',
            UNJUDGED => b'.',
            _ => b'<',
        })
        .collect()
}

fn rprec_mult(ctx: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    rprec_mult_into(ctx, rr, p.floats(), |cut, value| v[cut] = value);
    Ok(())
}

fn rprec_mult_into(ctx: &Ctx, rr: &ResRels, points: &[f64], mut set: impl FnMut(usize, f64)) {
    let cutoffs: Vec<i64> = points
        .iter()
        .map(|p| c_long(p * rr.num_rel as f64 + 0.9))
        .collect();
    let mut int_precis = rr.num_rel_ret as f64 / rr.num_ret as f64;
    let mut current = cutoffs.len() as i64 - 1;
    while current >= 0 && cutoffs[current as usize] > rr.num_ret {
        set(
            current as usize,
            rr.num_rel_ret as f64 / cutoffs[current as usize] as f64,
        );
        current -= 1;
    }
    let mut rel_so_far = rr.num_rel_ret;
    let mut i = rr.num_ret;
    while i > 0 && rel_so_far > 0 {
        let precis = rel_so_far as f64 / i as f64;
        if int_precis < precis {
            int_precis = precis;
        }
        while current >= 0 && i == cutoffs[current as usize] {
            set(current as usize, precis);
            current -= 1;
        }
        if rr.rel_list[(i - 1) as usize] >= ctx.relevance_level {
            rel_so_far -= 1;
        }
        i -= 1;
    }
}

fn utility(ctx: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let c = p.floats();
    if c.len() != 4 {
        return Err("trec_eval.calc_utility: improper number of coefficients\n".into());
    }
    let c = [c[0], c[1], c[2], c[3]];
    v[0] = utility_of(
        c,
        rr.num_rel_ret,
        rr.num_ret,
        rr.num_rel,
        ctx.num_docs_in_coll,
    );
    Ok(())
}

fn set_p(_: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = set_p_of(rr.num_rel_ret, rr.num_ret);
    Ok(())
}

fn set_recall(_: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = set_recall_of(rr.num_rel_ret, rr.num_rel);
    Ok(())
}

fn set_relative_p(_: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = set_relative_p_of(rr.num_rel_ret, rr.num_ret, rr.num_rel);
    Ok(())
}

fn set_map(_: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = set_map_of(rr.num_rel_ret, rr.num_ret, rr.num_rel);
    Ok(())
}

fn set_f(_: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let beta = p.floats().first().copied().unwrap_or(0.0);
    v[0] = set_f_of(rr.num_rel_ret, rr.num_ret, rr.num_rel, beta);
    Ok(())
}

fn bin_g(ctx: &Ctx, rr: &ResRels, _: &Params, v: &mut [f64]) -> Result<(), String> {
    let (sum, rel_so_far) = bin_g_sum(rr.rel_list.iter().map(|&r| r >= ctx.relevance_level));
    if rel_so_far != 0 {
        v[0] = sum / rr.num_rel as f64;
    }
    Ok(())
}

/// A gain level of `gain_init.c`.
#[derive(Clone, Debug)]
struct RelGain {
    rel_level: i64,
    num_at_level: i64,
    gain: f64,
}

/// `setup_gains`: gains from `level=gain` parameters, every judged level
/// without one gaining its own value, sorted by gain (compared as C's
/// `(int)(a - b)`, which glibc's merge sort keeps stable).
fn setup_gains(rr: &ResRels, p: &Params) -> Vec<RelGain> {
    let mut gains: Vec<RelGain> = p
        .pairs()
        .iter()
        .filter(|(name, _)| valid_int(name))
        .map(|(name, gain)| RelGain {
            rel_level: atol(name.as_bytes()),
            num_at_level: 0,
            gain: *gain,
        })
        .collect();
    for i in 0..rr.num_rel_levels.max(0) {
        match gains.iter_mut().find(|g| g.rel_level == i) {
            Some(g) => g.num_at_level = rr.level(i),
            None => gains.push(RelGain {
                rel_level: i,
                num_at_level: rr.level(i),
                gain: i as f64,
            }),
        }
    }
    msort(&mut gains, &|a: &RelGain, b: &RelGain| {
        c_int(a.gain - b.gain)
    });
    gains
}

/// `(int) x` as x86-64 computes it.
fn c_int(x: f64) -> i32 {
    if x.is_nan() || x >= 2_147_483_648.0 || x <= -2_147_483_649.0 {
        i32::MIN
    } else {
        x as i32
    }
}

fn valid_int(s: &str) -> bool {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
}

fn get_gain(level: i64, gains: &[RelGain]) -> f64 {
    gains
        .iter()
        .find(|g| g.rel_level == level)
        .map_or(0.0, |g| g.gain)
}

/// The ideal ranking's gains, walked level by level from the highest
/// (`cur_level`, `num_at_level` of m_ndcg.c and its siblings).
struct Ideal<'a> {
    gains: &'a [RelGain],
    level: i64,
    at_level: i64,
    gain: f64,
}

impl<'a> Ideal<'a> {
    fn new(gains: &'a [RelGain]) -> Self {
        let level = gains.len() as i64 - 1;
        let gain = if level >= 0 {
            gains[level as usize].gain
        } else {
            0.0
        };
        Ideal {
            gains,
            level,
            at_level: 0,
            gain,
        }
    }
    /// The gain of the next ideal document.
    fn next(&mut self) -> f64 {
        self.at_level += 1;
        while self.level >= 0 && self.at_level > self.gains[self.level as usize].num_at_level {
            self.at_level = 1;
            self.level -= 1;
            self.gain = if self.level >= 0 {
                self.gains[self.level as usize].gain
            } else {
                0.0
            };
        }
        self.gain
    }
}

/// `log2(n)` for the first integers, computed once by the same libm call,
/// so every value is the bits a fresh call gives.
fn log2_int(n: i64) -> f64 {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| (0..4096).map(|k| (k as f64).log2()).collect());
    match usize::try_from(n).ok().and_then(|k| table.get(k)) {
        Some(&v) => v,
        None => (n as f64).log2(),
    }
}

/// The discount of rank `i + 1`: `log2(i + 2)`.
fn discount(i: usize) -> f64 {
    log2_int(i as i64 + 2)
}

/// m_ndcg.c's three values: (dcg, ideal dcg).
///
/// Not the core's DCG sum (`core::ranking_metrics::dcg_terms`): m_ndcg.c
/// divides each gain by log2(i + 2) where the core multiplies by the
/// discount 1/log2(i + 2), which rounds differently in the last bit, and its
/// gains come from the measure's parameters ([`setup_gains`]), not the
/// core's gain convention; trec_eval's printed bits need this division (the
/// same holds for `ndcg_cut`, `ndcg_rel`, `Rndcg` and `G`).
fn dcg_pair(rr: &ResRels, p: &Params) -> (f64, f64) {
    let gains = setup_gains(rr, p);
    let mut ideal = Ideal::new(&gains);
    let (mut results_dcg, mut ideal_dcg) = (0.0, 0.0);
    let n = rr.rel_list.len();
    let mut i = 0;
    while i < n && ideal.gain > 0.0 {
        let results_gain = get_gain(rr.rel_list[i], &gains);
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        let g = ideal.next();
        if g > 0.0 {
            ideal_dcg += g / discount(i);
        }
        i += 1;
    }
    while i < n {
        let results_gain = get_gain(rr.rel_list[i], &gains);
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        i += 1;
    }
    while ideal.gain > 0.0 {
        let g = ideal.next();
        if g > 0.0 {
            ideal_dcg += g / discount(i);
        }
        i += 1;
    }
    (results_dcg, ideal_dcg)
}

fn ndcg(_: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let (dcg, ideal) = dcg_pair(rr, p);
    if ideal > 0.0 {
        v[0] = dcg / ideal;
    }
    Ok(())
}

fn dcg(_: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = dcg_pair(rr, p).0;
    Ok(())
}

fn ideal_dcg(_: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    v[0] = dcg_pair(rr, p).1;
    Ok(())
}

/// Not the core's kernel (`QueryView::ndcg_rel`, nor `Rndcg` and `G`
/// theirs): here the gains and the ideal ranking come from the measure's
/// parameters ([`setup_gains`], walked level by level by `Ideal`), there
/// from the grades, and each loop follows m_*.c's walk over its own input;
/// both divide by the same `log2(i + 2)` in the same order.
fn ndcg_rel(_: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let gains = setup_gains(rr, p);
    let mut ideal = Ideal::new(&gains);
    let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
    let (mut num_rel_ret, mut num_rel) = (0i64, 0i64);
    let n = rr.rel_list.len();
    let mut i = 0;
    while i < n && ideal.gain > 0.0 {
        let results_gain = get_gain(rr.rel_list[i], &gains);
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        let g = ideal.next();
        if g > 0.0 {
            num_rel += 1;
            ideal_dcg += g / discount(i);
        }
        if results_gain > 0.0 {
            sum += results_dcg / ideal_dcg;
            num_rel_ret += 1;
        }
        i += 1;
    }
    while i < n {
        let results_gain = get_gain(rr.rel_list[i], &gains);
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        if results_gain > 0.0 {
            sum += results_dcg / ideal_dcg;
            num_rel_ret += 1;
        }
        i += 1;
    }
    while ideal.gain > 0.0 {
        let g = ideal.next();
        if g > 0.0 {
            num_rel += 1;
            ideal_dcg += g / discount(i);
        }
        i += 1;
    }
    sum += (num_rel - num_rel_ret) as f64 * results_dcg / ideal_dcg;
    if sum > 0.0 {
        v[0] = sum / num_rel as f64;
    }
    Ok(())
}

fn rndcg(_: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let gains = setup_gains(rr, p);
    if rr.num_rel == 0 {
        return Ok(());
    }
    let mut ideal = Ideal::new(&gains);
    let mut old_ideal_gain = ideal.gain;
    let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
    let mut changes = 0i64;
    let n = rr.rel_list.len();
    let mut i = 0;
    while i < n && ideal.gain > 0.0 {
        let results_gain = get_gain(rr.rel_list[i], &gains);
        let g = ideal.next();
        if old_ideal_gain != g {
            if ideal_dcg > 0.0 {
                sum += results_dcg / ideal_dcg;
                changes += 1;
            }
            old_ideal_gain = g;
        }
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        if g > 0.0 {
            ideal_dcg += g / discount(i);
        }
        i += 1;
    }
    if i < n {
        while i < n {
            let results_gain = get_gain(rr.rel_list[i], &gains);
            if results_gain != 0.0 {
                results_dcg += results_gain / discount(i);
            }
            i += 1;
        }
        if ideal_dcg > 0.0 {
            sum += results_dcg / ideal_dcg;
            changes += 1;
        }
    }
    while ideal.gain > 0.0 {
        let g = ideal.next();
        if old_ideal_gain != g {
            if ideal_dcg > 0.0 {
                sum += results_dcg / ideal_dcg;
                changes += 1;
            }
            old_ideal_gain = g;
        }
        if g > 0.0 {
            ideal_dcg += g / discount(i);
        }
        i += 1;
    }
    v[0] = sum / changes as f64;
    Ok(())
}

fn g(_: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let gains = setup_gains(rr, p);
    let mut ideal = Ideal::new(&gains);
    let (mut results_g, mut sum_results, mut sum_ideal, mut sum_cost) = (0.0, 0.0, 0.0, 0.0);
    let min_cost = 1.0;
    let n = rr.rel_list.len();
    let mut i = 0;
    while i < n && ideal.gain > 0.0 {
        let results_gain = get_gain(rr.rel_list[i], &gains);
        sum_results += results_gain;
        let g = ideal.next();
        if g > 0.0 {
            sum_ideal += g;
        }
        if g >= min_cost {
            sum_cost += g;
        } else {
            sum_cost += min_cost;
        }
        if results_gain != 0.0 {
            results_g += results_gain / (2.0 + sum_cost - sum_results).log2();
        }
        i += 1;
    }
    while i < n {
        let results_gain = get_gain(rr.rel_list[i], &gains);
        sum_results += results_gain;
        sum_cost += min_cost;
        if results_gain != 0.0 {
            results_g += results_gain / (2.0 + sum_cost - sum_results).log2();
        }
        i += 1;
    }
    while ideal.gain > 0.0 {
        let g = ideal.next();
        if g > 0.0 {
            sum_ideal += g;
        }
    }
    if sum_ideal > 0.0 {
        v[0] = results_g / sum_ideal;
    }
    Ok(())
}

fn ndcg_cut(_: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let cuts = p.cuts();
    scan(
        rr,
        cuts,
        v,
        0.0f64,
        |i, r, sum| {
            let gain = r as f64;
            if gain > 0.0 {
                *sum += gain / discount(i);
            }
        },
        |_, sum| *sum,
    );
    let mut ci = 0;
    let mut cur_lvl = rr.num_rel_levels - 1;
    let mut lvl_count = 0i64;
    let mut ideal_dcg = 0.0;
    // With no judged level (cur_lvl < 0) trec_eval walks on to the last
    // cutoff adding negative gains and never divides: the values stay dcg.
    if cur_lvl >= 0 {
        let mut i = 0usize;
        loop {
            lvl_count += 1;
            while cur_lvl > 0 && lvl_count > rr.level(cur_lvl) {
                cur_lvl -= 1;
                lvl_count = 1;
            }
            if cur_lvl == 0 {
                break;
            }
            if ci < cuts.len() && i as i64 == cuts[ci] {
                if ideal_dcg > 0.0 {
                    v[ci] /= ideal_dcg;
                }
                ci += 1;
                if ci == cuts.len() {
                    break;
                }
            }
            ideal_dcg += cur_lvl as f64 / discount(i);
            i += 1;
        }
    } else {
        ci = cuts.len();
    }
    while ci < cuts.len() {
        if ideal_dcg > 0.0 {
            v[ci] /= ideal_dcg;
        }
        ci += 1;
    }
    Ok(())
}

fn rbp_p(p: &Params) -> f64 {
    p.pairs()
        .iter()
        .rev()
        .find(|(name, _)| name == "p")
        .map_or(0.9, |(_, v)| *v)
}

fn rbp(_: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let persistence = rbp_p(p);
    let mut gains = setup_gains(rr, p);
    // trec_eval 10.0 leaves min and max uninitialised; their intent, the
    // extremes of the gains, is used
    let min = gains.iter().map(|g| g.gain).fold(f64::INFINITY, f64::min);
    let max = gains
        .iter()
        .map(|g| g.gain)
        .fold(f64::NEG_INFINITY, f64::max);
    if min < 0.0 || max > 1.0 {
        for g in &mut gains {
            g.gain = (g.gain - min) / (max - min);
        }
    }
    let sum = rbp_sum(
        rr.rel_list.iter().map(|&r| get_gain(r, &gains)),
        persistence,
    );
    v[0] = (1.0 - persistence) * sum;
    Ok(())
}

fn rbp_resid(_: &Ctx, rr: &ResRels, p: &Params, v: &mut [f64]) -> Result<(), String> {
    let persistence = rbp_p(p);
    if let Some(resid) = rbp_residual_of(rr.rel_list.iter().map(|&r| r < 0), persistence) {
        v[0] = resid;
    }
    Ok(())
}

fn map_avgjg(ctx: &Ctx, jgs: &[ResRels], _: &Params, v: &mut [f64]) {
    for rr in jgs {
        let (sum, rel_so_far) = ap_sum(ctx, rr);
        if rel_so_far != 0 {
            v[0] += sum / rr.num_rel as f64;
        }
    }
    if jgs.len() > 1 {
        v[0] /= jgs.len() as f64;
    }
}

fn p_avgjg(ctx: &Ctx, jgs: &[ResRels], p: &Params, v: &mut [f64]) {
    let cuts = p.cuts();
    for rr in jgs {
        let mut values = vec![0.0; cuts.len()];
        let lvl = ctx.relevance_level;
        scan(
            rr,
            cuts,
            &mut values,
            0i64,
            |_, r, n| *n += i64::from(r >= lvl),
            |i, n| *n as f64 / i as f64,
        );
        for (total, value) in v.iter_mut().zip(values) {
            *total += value;
        }
    }
    if jgs.len() > 1 {
        for value in v.iter_mut() {
            *value /= jgs.len() as f64;
        }
    }
}

fn rprec_mult_avgjg(ctx: &Ctx, jgs: &[ResRels], p: &Params, v: &mut [f64]) {
    for rr in jgs {
        rprec_mult_into(ctx, rr, p.floats(), |cut, value| v[cut] += value);
    }
    if jgs.len() > 1 {
        for value in v.iter_mut() {
            *value /= jgs.len() as f64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rels(list: &[i64], levels: &[i64]) -> ResRels {
        let num_rel = levels.iter().skip(1).sum();
        ResRels {
            num_rel_ret: list.iter().filter(|&&r| r >= 1).count() as i64,
            num_ret: list.len() as i64,
            num_rel,
            num_rel_levels: levels
                .iter()
                .rposition(|&n| n > 0)
                .map_or(0, |i| i as i64 + 1),
            rel_levels: levels.to_vec(),
            rel_list: list.to_vec(),
            ..ResRels::default()
        }
    }

    const CTX: Ctx = Ctx {
        relevance_level: 1,
        num_docs_in_coll: 0,
        truncated_recall_cutoffs: false,
    };

    #[test]
    fn recall_points_round_in_10_and_truncate_in_9() {
        // R = 7: 0.6 R = 4.2 is 4 documents in 10.0 (lround) and 5 in 9.0.x
        // ((long)(4.2 + 0.9))
        let rr = rels(&[1, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1], &[5, 7]);
        let points = Params::Floats(vec![0.6]);
        let mut v10 = [0.0];
        iprec_at_recall(&CTX, &rr, &points, &mut v10).expect("ok");
        let ctx9 = Ctx {
            truncated_recall_cutoffs: true,
            ..CTX
        };
        let mut v9 = [0.0];
        iprec_at_recall(&ctx9, &rr, &points, &mut v9).expect("ok");
        // the 4th relevant document is at rank 7 (4/7), the 5th at rank 9 (5/9)
        assert_eq!(v10[0], 4.0 / 7.0);
        assert_eq!(v9[0], 5.0 / 9.0);
    }

    #[test]
    fn map_and_precision_by_hand() {
        // relevant at ranks 1 and 3 of 4; 3 relevant in all
        let rr = rels(&[1, 0, 1, -1], &[2, 3]);
        let mut v = [0.0];
        map(&CTX, &rr, &Params::None, &mut v).expect("ok");
        assert!((v[0] - (1.0 + 2.0 / 3.0) / 3.0).abs() < 1e-15);
        let mut p = [0.0; 2];
        precision(&CTX, &rr, &Params::Cuts(vec![2, 10]), &mut p).expect("ok");
        assert_eq!(p, [0.5, 0.2]);
    }

    #[test]
    fn ndcg_with_and_without_a_gain_map() {
        // gains 2 and 1 at ranks 1 and 2 of an ideal 2,1
        let rr = rels(&[2, 1], &[0, 1, 1]);
        let mut v = [0.0];
        ndcg(&CTX, &rr, &Params::Pairs(vec![]), &mut v).expect("ok");
        assert_eq!(v[0], 1.0);
        let reversed = rels(&[1, 2], &[0, 1, 1]);
        ndcg(&CTX, &reversed, &Params::Pairs(vec![]), &mut v).expect("ok");
        let expected = (1.0 + 2.0 / 3f64.log2()) / (2.0 + 1.0 / 3f64.log2());
        assert!((v[0] - expected).abs() < 1e-15);
        // level 1 worth 5 now outranks level 2 (worth 2)
        ndcg(
            &CTX,
            &reversed,
            &Params::Pairs(vec![("1".into(), 5.0)]),
            &mut v,
        )
        .expect("ok");
        assert_eq!(v[0], 1.0);
    }

    #[test]
    fn rbp_by_hand() {
        // relevant at ranks 1 and 3: (1 - p)(p^0 + p^2)
        let rr = rels(&[1, 0, 1], &[1, 2]);
        let mut v = [0.0];
        rbp(&CTX, &rr, &Params::Pairs(vec![]), &mut v).expect("ok");
        assert!((v[0] - 0.1 * (1.0 + 0.81)).abs() < 1e-15);
        rbp(&CTX, &rr, &Params::Pairs(vec![("p".into(), 0.5)]), &mut v).expect("ok");
        assert!((v[0] - 0.5 * (1.0 + 0.25)).abs() < 1e-15);
        // gains beyond 1 are scaled to [0, 1] by the extremes (level 2 -> 1, level 1 -> 0.5)
        let graded = rels(&[2, 1], &[0, 1, 1]);
        rbp(&CTX, &graded, &Params::Pairs(vec![]), &mut v).expect("ok");
        assert!((v[0] - 0.1 * (1.0 + 0.5 * 0.9)).abs() < 1e-15);
    }

    #[test]
    fn gains_sort_like_c_int_comparison() {
        let rr = rels(&[], &[1, 1, 1, 1, 1]);
        let p = Params::Pairs(vec![
            ("1".into(), 3.0),
            ("2".into(), 9.0),
            ("4".into(), 4.5),
        ]);
        let order: Vec<i64> = setup_gains(&rr, &p).iter().map(|g| g.rel_level).collect();
        // 0:0, 1:3, 3:3, 4:4.5, 2:9 with 3 and 4.5 "equal" to 3's and 4's neighbours
        assert_eq!(order.first(), Some(&0));
        assert_eq!(order.last(), Some(&2));
    }
}
