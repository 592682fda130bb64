#!/usr/bin/env bash
# ARX 3.9.2's optimum on ADULT for the risk-based privacy models (issue 32), as committed in
# tests/data/reference/arx-adult-risk-models.jsonl: one runner row per line, reduced to the fields
# the tests read. Needs ARX built by ../shared/arx/build.sh (ARX_BUILD, default /tmp/arx-build).
#
#   scripts/arx_risk_reference.sh > tests/data/reference/arx-adult-risk-models.jsonl
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ARX_BUILD:-/tmp/arx-build}
cp="$(cat "$build/classpath.txt")"
data=tests/data/adult/adult.csv
q8=sex,age,race,marital-status,education,native-country,workclass,salary-class
keep='["arx_version","rows","model","pop_model","quasi_identifiers","sensitive","k","suppression_limit","metric",
"risk_threshold","delta","beta","population_model","population_size","kmap_derived_k","privacy_models_arx",
"lattice_size","transformation","information_loss","suppressed_records","equivalence_classes",
"transformations_checked","anonymize_cpu_ms_median"]'
run() {
  java -cp "$cp" ArxRun --data "$data" --reps 1 "$@" 2> /dev/null | tail -n 1 |
    python3 -c "import json,sys; d=json.loads(sys.stdin.read()); o={k: d[k] for k in json.loads('''$keep''') if k in d}; o['data']='adult.csv'; print(json.dumps(o))"
}
run --model kmap --k 5 --population-model usa --supp 0.02 --metric loss
run --model kmap --k 10 --population-model 60000 --supp 0.02 --metric loss
run --model kmap --k 3 --population-model 40000 --supp 0 --metric dmstar
run --model average-risk --risk 0.05 --supp 0.02 --metric loss
run --model average-risk --risk 0.1 --supp 0.02 --metric dmstar
run --model average-risk --risk 0.05 --supp 1 --metric loss
run --model sample-uniqueness --risk 0.01 --supp 0.02 --metric loss
run --model sample-uniqueness --risk 0.005 --supp 0 --metric loss
run --model delta-disclosure --qi $q8 --sensitive occupation --delta 1.2 --supp 0.02 --metric loss
run --model basic-beta-likeness --qi $q8 --sensitive occupation --beta 1.0 --supp 0.02 --metric loss
run --model enhanced-beta-likeness --qi $q8 --sensitive occupation --beta 1.0 --supp 0.02 --metric loss
run --model average-risk --risk 0.05 --k 5 --supp 0.02 --metric loss
run --model delta-disclosure --qi $q8 --sensitive occupation --delta 2.5 --supp 0.02 --metric loss
run --model delta-disclosure --qi $q8 --sensitive occupation --delta 4 --supp 0.02 --metric loss
run --model basic-beta-likeness --qi $q8 --sensitive occupation --beta 3 --supp 0.02 --metric loss
run --model enhanced-beta-likeness --qi $q8 --sensitive occupation --beta 3 --supp 0.02 --metric loss
run --model basic-beta-likeness --qi $q8 --sensitive occupation --beta 5 --supp 0.02 --metric dmstar
run --model kmap --k 10 --population-model 1000000 --supp 0.02 --metric loss
run --model sample-uniqueness --risk 0.02 --supp 1 --metric loss
for m in pitman zayatz snb dankar; do
  run --model population-uniqueness --risk 0.01 --pop-model $m --population-model usa --supp 0.02 --metric loss
done
run --model population-uniqueness --risk 0.05 --pop-model dankar --population-model 60000 --supp 0.02 --metric loss
run --model population-uniqueness --risk 0.002 --pop-model zayatz --population-model uk --supp 0.02 --metric dmstar
