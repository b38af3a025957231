"""Experiment (issue 34, 2026-12-06), kept in git history only: coverage verdicts on the reference
facts of REALSumm and RoSE dev with other fact wordings, and counted or averaged, chosen on half the
documents (bench.calibrate.split_documents) and reported on the other half. Pre-registered: choose
by the mean over the two sets of per-document Pearson on the fit half; adopt only if, held out, it
beats today's rule on average and loses no set by more than 0.05.

    localsumm bench quality --data benchmarks/data/realsumm.dev.jsonl --data benchmarks/data/rose.dev.jsonl \
        --questions reference --out bq-ref
    python ask.py fact1 bq-ref/realsumm.*reference-questions.jsonl bq-ref/rose.*reference-questions.jsonl  # to /work/exp, as run
    python ask.py fact2 (the same files)
    python analyze.py fact1 fact2

Found: averaging led on the fit half for every wording; held out, the chosen candidate (fact2,
averaged) was +0.020 over today's rule (REALSumm +0.079, RoSE -0.041); today's wording averaged was
level with counting (0.624 against 0.626). Not adopted.
"""
import json, sys, time
from localsumm.backends import open_judge
from localsumm.protocol import yes_probabilities
import json, sys, time
from localsumm.backends import open_judge
from localsumm.protocol import yes_probabilities
from localsumm.summarization.prompts import SUMMARY_SYSTEM, fence

from localsumm.summarization.prompts import COVERAGE_TASK, fact_question
VARIANTS = {
    "v0": (COVERAGE_TASK, fact_question),
    "fact2": ("Is the following fact supported by the summary, that is, stated in it or directly implied by it? Answer with one word: yes or no.\n\nFact:", lambda f: f.strip()),
    "fact1": ("Does the summary state the following fact, in these or other words? If the summary does not say it, answer no. Answer with one word: yes or no.\n\nFact:", lambda f: f.strip()),
}
variant = sys.argv[1]; task, wrap = VARIANTS[variant]
judge = open_judge()
print(judge.info.engine, file=sys.stderr)
out = open(f"/work/exp/{variant}.jsonl", "a")
done = {json.loads(l)["id"] for l in open(f"/work/exp/{variant}.jsonl")}
for path in sys.argv[2:]:
    for line in open(path):
        r = json.loads(line)
        if r["id"] in done: continue
        facts = r["localsumm"]["result"]["preprocess_step_result"]["key_facts"]
        t = time.time()
        batch = [[{"role": "system", "content": SUMMARY_SYSTEM},
                  {"role": "user", "content": [fence("summary", r["summary"]) + "\n\n", task, " " + wrap(f)]}] for f in facts]
        probs = [p for p, _ in yes_probabilities(judge, "coverage", batch)]
        out.write(json.dumps({"id": r["id"], "doc": r["meta"]["doc_id"], "facts": facts, "p": probs}) + "\n"); out.flush()
        print(r["id"], len(facts), round(time.time() - t, 1), file=sys.stderr)
