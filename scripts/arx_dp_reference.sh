#!/usr/bin/env bash
# ARX 3.9.2's (e,d)-differential privacy (SafePub) on ADULT, as committed in tests/data/reference/ (issue 32):
#   arx-dp-parameters.jsonl   k and beta ARX derives for a grid of epsilon, delta and search budgets;
#   arx-adult-dp-degrees.jsonl  the data-independent transformation of each generalization degree (9 columns);
#   arx-adult-dp-search.json  the data-dependent search's choice in each of 400 calls (ARX samples with
#                             SecureRandom, so the calls are independent draws), 4 columns.
# Needs ARX built by ../shared/arx/build.sh (ARX_BUILD, default /tmp/arx-build).
#
#   scripts/arx_dp_reference.sh tests/data/reference
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?the folder to write into}
build=${ARX_BUILD:-/tmp/arx-build}
cp="$(cat "$build/classpath.txt")"
data=tests/data/adult/adult.csv
keep='["arx_version","rows","model","quasi_identifiers","suppression_limit","metric","epsilon","delta",
"dp_data_dependent","dp_generalization","dp_search_steps_expansions","dp_search_budget","dp_k","dp_beta",
"lattice_size","transformation","information_loss","suppressed_records","equivalence_classes","per_rep"]'
run() {
  java -cp "$cp" ArxRun --data "$data" --model ed-dp --supp 1 --metric loss "$@" 2> /dev/null | tail -n 1 |
    python3 -c "
import json, sys
d = json.loads(sys.stdin.read())
o = {k: d[k] for k in json.loads('''$keep''') if k in d}
if 'per_rep' in o:
    o['per_rep'] = [{'transformation': r['transformation']} for r in o['per_rep']]
o['data'] = 'adult.csv'
print(json.dumps(o))"
}
# Parameters: one column, one call each (the sample does not matter for k and beta).
{
  for e in 0.1 0.5 1 1.5 2 3; do
    for d in 1e-3 1e-4 1e-5 1e-6; do
      run --qi sex --reps 1 --warmup 0 --epsilon $e --delta $d --dp-generalization medium | python3 -c "
import json, sys; d = json.loads(sys.stdin.read()); d.pop('per_rep', None); print(json.dumps(d))"
    done
  done
  for e in 1 2 3; do
    for b in 0.1 0.5; do
      run --qi sex --reps 1 --warmup 0 --epsilon $e --delta 1e-5 --dp-search-steps 1 --dp-search-budget $b |
        python3 -c "import json, sys; d = json.loads(sys.stdin.read()); d.pop('per_rep', None); print(json.dumps(d))"
    done
  done
} > "$out/arx-dp-parameters.jsonl"
# Degrees on the nine columns.
for g in none low low-medium medium medium-high high complete; do
  run --reps 1 --warmup 0 --epsilon 2 --delta 1e-5 --dp-generalization $g | python3 -c "
import json, sys; d = json.loads(sys.stdin.read()); d.pop('per_rep', None); print(json.dumps(d))"
done > "$out/arx-adult-dp-degrees.jsonl"
# The data-dependent search, 400 calls.
run --qi sex,age,race,education --reps 400 --warmup 0 --epsilon 2 --delta 1e-5 --dp-search-steps 8 \
  > "$out/arx-adult-dp-search.json"
