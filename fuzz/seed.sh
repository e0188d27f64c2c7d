#!/bin/sh
# Copies the project's own inputs into fuzz/corpus/<target>/ as seeds (the corpus is
# git-ignored: it grows while fuzzing and is not committed). Run from anywhere.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
fx="$root/fixtures"
seed() { # seed TARGET FILE...
    t=$1; shift
    mkdir -p "$here/corpus/$t"
    for f in "$@"; do
        [ -f "$f" ] || continue
        case "$f" in *.md|*.py) continue ;; esac
        cp "$f" "$here/corpus/$t/"
    done
}
seed perfmon "$fx"/captures/perfmon-csv/*
seed iostat_text "$fx"/captures/iostat-text/*
seed iostat_json "$fx"/captures/iostat-json/*
seed diskspd_xml "$fx"/captures/diskspd-xml/*
seed diskspd_text "$fx"/captures/diskspd-text/*
seed fio_json "$fx"/captures/fio-json/* "$fx"/invalid/*.json
seed sar_text "$fx"/captures/sar-text/* "$fx"/invalid/sar-*
seed sadf "$fx"/captures/sadf-csv/* "$fx"/captures/sadf-json/* "$fx"/captures/sadf-xml/* "$fx"/invalid/sadf-*
seed azure_monitor_json "$fx"/captures/azure-monitor-json/* "$fx"/invalid/azure-monitor-error.json
seed sql_file_stats "$fx"/captures/sql-file-stats/* "$fx"/invalid/sql-file-stats-*
seed topology "$fx"/topologies/*.* "$fx"/topologies/invalid/* "$fx"/topologies/warnings/*
seed topology_documents $(find "$fx/topologies/documents" -type f ! -name '*.md' ! -name '*.py')
seed topology_kubernetes "$fx"/topologies/documents/aks-*/* "$fx"/topologies/documents/invalid/aks-*
seed bundle "$fx"/bundles/*.zip "$fx"/bundles/*.tar.gz "$fx"/invalid/bundle-*
seed rules $(find "$root/rules" "$root/crates/rules/tests" -name '*.rule')
for t in "$here"/corpus/*; do
    echo "$(basename "$t"): $(ls "$t" | wc -l) seeds"
done
