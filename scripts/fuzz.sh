#!/usr/bin/env bash
# Fuzz every cargo-fuzz target for a while each (default 60 s). Not part of CI.
#
#   scripts/fuzz.sh [seconds-per-target]
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# Targets (fuzz/fuzz_targets/): open_verify, read_unverified, view_state,
# open_secret, request_canonical.
# FUZZ_TARGETS="open_verify" limits the run; extra libFuzzer flags go in
# FUZZ_FLAGS. New corpus entries land in fuzz/corpus/<target>/ (only the
# seed-* files are committed; `node fuzz/make-seeds.mjs` rewrites them), a
# crash in fuzz/artifacts/<target>/ (replay: cargo +nightly fuzz run <target>
# <file>), the logs in fuzz/target/logs/. Exits non-zero if a target crashed.
set -uo pipefail

secs="${1:-60}"
targets="${FUZZ_TARGETS:-open_verify read_unverified view_state open_secret request_canonical}"
cd "$(dirname "$0")/../fuzz" || exit 2

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: needs cargo-fuzz on the nightly toolchain: cargo install cargo-fuzz" >&2
  exit 2
fi
cargo +nightly fuzz build || exit 2
mkdir -p target/logs

failed=0
summary=""
for t in $targets; do
  mkdir -p "corpus/$t"
  log="target/logs/$t.log"
  echo "== $t: ${secs}s (log: fuzz/$log)"
  # shellcheck disable=SC2086
  cargo +nightly fuzz run "$t" "corpus/$t" -- \
    -max_total_time="$secs" -max_len=4096 -timeout=10 -print_final_stats=1 ${FUZZ_FLAGS:-} \
    >"$log" 2>&1
  rc=$?
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
  if [ "$rc" -ne 0 ]; then
    failed=1
    result="CRASH (rc $rc; see fuzz/$log and fuzz/artifacts/$t/)"
  else
    result="ok"
  fi
  summary+=$(printf '%-16s execs %-10s exec/s %-7s cov %-6s ft %-6s %s' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$result")$'\n'
done
echo
printf '%s' "$summary"
exit "$failed"
