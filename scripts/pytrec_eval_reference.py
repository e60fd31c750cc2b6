#!/usr/bin/env python3
"""Record tests/trec_eval/pytrec_eval.json: pytrec_eval's per-query values of
every measure it exposes, on the reference TREC files and on a generated
tie-heavy run (written to tests/trec_eval/ties.qrels and ties.run).

Usage: python3 scripts/pytrec_eval_reference.py   (needs pytrec-eval-terrier)

pytrec_eval bundles trec_eval 9.0.x, so tests/trec_eval.rs compares these
values with `rankscope trec_eval` in 9.0.x mode, per query, within 1e-9.
"""
import json, os, random
import pytrec_eval

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests')


def ties(seed=7):
    """Judgments on four levels and a run whose scores are mostly tied."""
    r = random.Random(seed)
    qrels, run = [], []
    for q in range(1, 31):
        docs = ['doc%03d' % i for i in range(r.randint(5, 80))]
        for d in r.sample(docs, r.randint(1, len(docs))):
            qrels.append('%d 0 %s %d' % (q, d, r.choice([0, 0, 0, 1, 1, 2, 3])))
        for d in r.sample(docs + ['new%d' % i for i in range(10)], r.randint(1, len(docs))):
            run.append('%d Q0 %s 0 %s tie' % (q, d, r.choice([1, 1, 1, 2, 2, 0.5])))
    return '\n'.join(qrels) + '\n', '\n'.join(run) + '\n'


def read(qrels_path, run_path):
    qrels, run = {}, {}
    for line in open(qrels_path):
        q, _, d, rel = line.split()
        qrels.setdefault(q, {})[d] = int(rel)
    for line in open(run_path):
        q, _, d, _, score, _ = line.split()[:6]
        run.setdefault(q, {})[d] = float(score)
    return qrels, run


q_text, r_text = ties()
open(os.path.join(HERE, 'trec_eval', 'ties.qrels'), 'w').write(q_text)
open(os.path.join(HERE, 'trec_eval', 'ties.run'), 'w').write(r_text)

out = []
for qrels_file, run_file in [('reference/ranking.qrels', 'reference/ranking.run'),
                             ('trec_eval/ties.qrels', 'trec_eval/ties.run'),
                             ('trec_eval/qrels.test', 'trec_eval/results.test')]:
    qrels, run = read(os.path.join(HERE, qrels_file), os.path.join(HERE, run_file))
    measures = set(pytrec_eval.supported_measures) - {'runid', 'relstring'}
    values = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    out.append({'qrels': qrels_file, 'run': run_file, 'values': values})
json.dump(out, open(os.path.join(HERE, 'trec_eval', 'pytrec_eval.json'), 'w'), indent=0, sort_keys=True)
print('measures:', sorted(set(k for d in out for q in d['values'].values() for k in q)))
