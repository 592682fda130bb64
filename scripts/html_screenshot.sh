#!/usr/bin/env bash
# Renders an HTML report of anonbox in headless Chromium and saves a PNG, to check by eye that the
# page (summary, tables, inline SVG charts) draws with nothing fetched.
#
#   scripts/html_screenshot.sh REPORT.html [OUT.png] [WIDTHxHEIGHT]
#   scripts/html_screenshot.sh --demo [OUT_DIR]    # ADULT Flash, and census Datafly and Mondrian
#   scripts/html_screenshot.sh --readme            # docs/report.png, the picture in README.md
#
# Needs the Debian package chromium (apt-get install chromium). The demo builds anonbox (release)
# and writes its reports and screenshots to OUT_DIR (default target/html-report). Chromium runs
# headless with a new empty profile (removed afterwards) and nothing fetched; as root it needs
# --no-sandbox.
set -euo pipefail
cd "$(dirname "$0")/.."

shot() {
    local html out size
    html=$(realpath "$1")
    out=${2:-${1%.*}.png}
    size=${3:-1280x3000}
    command -v chromium >/dev/null || { echo "html_screenshot.sh: chromium is not installed (apt-get install chromium)" >&2; exit 2; }
    local profile
    profile=$(mktemp -d)
    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --hide-scrollbars \
        --window-size="${size/x/,}" --screenshot="$(realpath -m "$out")" "file://$html" 2>/dev/null
    rm -rf "$profile"
    echo "$out"
}

if [[ "${1:-}" == --demo ]]; then
    dir=${2:-target/html-report}
    mkdir -p "$dir"
    cargo build --release --quiet
    bin=target/release/anonbox
    "$bin" -config configs/adult.xml -method Flash -quiet \
        -output "$dir/adult-flash.csv" -report "$dir/adult-flash.html"
    "$bin" -config configs/census-income-1k.xml -method Datafly -k 10 -quiet \
        -output "$dir/census-datafly.data" -report "$dir/census-datafly.html"
    "$bin" -config configs/census-income-1k.xml -method Mondrian -k 10 -quiet \
        -output "$dir/census-mondrian.data" -report "$dir/census-mondrian.html"
    for r in adult-flash census-datafly census-mondrian; do
        shot "$dir/$r.html" "$dir/$r.png"
    done
    exit 0
fi

if [[ "${1:-}" == --readme ]]; then
    # ADULT with occupation sensitive (Flash, 5-anonymity, distinct 2-diversity, 5 %
    # suppression): the verdict, the parameters and the figures on the first screen.
    dir=target/readme-report
    mkdir -p "$dir" docs
    cargo build --release --quiet
    target/release/anonbox -config configs/adult-occupation.xml -suppression 0.05 -quiet \
        -output "$dir/adult-occupation.csv" -report "$dir/report.html"
    shot "$dir/report.html" docs/report.png 1100x1400
    exit 0
fi

[[ $# -ge 1 ]] || { sed -n '2,12p' "$0"; exit 2; }
shot "$@"
