#!/usr/bin/env bash
# ARX 3.9.2's local recoding on ADULT (issue 33, part 2), as committed in
# tests/data/reference/arx-adult-local-recoding.jsonl: the optimum of Flash with Loss, then
# ARX's optimizeIterativeFast(handle, 1/100, 0.05) (the GUI's iterative mode, 100 iterations),
# one runner row per line reduced to the fields the tests read. Needs ARX built by
# ../shared/arx/build.sh (ARX_BUILD, default /tmp/arx-build).
#
#   scripts/arx_local_recoding_reference.sh > tests/data/reference/arx-adult-local-recoding.jsonl
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ARX_BUILD:-/tmp/arx-build}
cp="$(cat "$build/classpath.txt")"
data=tests/data/adult/adult.csv
q8=sex,age,race,marital-status,education,native-country,workclass,salary-class
export KEEP='["arx_version","rows","model","quasi_identifiers","sensitive","k","suppression_limit",
"metric","transformation","information_loss","suppressed_records","equivalence_classes","local_recoding"]'
# run EXTRA ARGS...: EXTRA (JSON) names the model's parameters in the row (the runner prints
# only some of them).
run() {
  export EXTRA=$1; shift
  java -cp "$cp" ArxRun --data "$data" --reps "${REPS:-1}" --local-recoding 100 "$@" 2> /dev/null | tail -n 1 |
    python3 -c '
import json, os, sys
d = json.loads(sys.stdin.read())
o = {k: d[k] for k in json.loads(os.environ["KEEP"]) if k in d}
o["data"] = "adult.csv"
o.update(json.loads(os.environ["EXTRA"]))
print(json.dumps(o))'
}
for k in 2 5 10; do
  for s in 0.02 0.04; do
    run '{}' --k $k --supp $s --metric loss
  done
done
run '{"l": 2}' --qi $q8 --sensitive occupation --model distinct --l 2 --k 5 --supp 0.04 --metric loss
run '{"t": 0.2, "distance": "equal"}' --qi $q8 --sensitive occupation --model t --t 0.2 \
  --distance equal --supp 0.04 --metric loss
