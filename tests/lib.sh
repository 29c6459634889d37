# What every shell test shares; each sources it first:
#     . "$(dirname "$0")/lib.sh"
# and then has
#   set -u
#   $tmp          a scratch directory of its own (removed on exit), so two suites at once never
#                 share a path; a test adds its own clean-up with on_exit 'COMMAND'
#   ok, bad WHAT  count a check that passed, or one that failed (saying what, on stderr)
#   expect_status WANT DESCRIPTION CMD...   run CMD (stdout $tmp/cli.out, stderr $tmp/cli.err)
#                 and check its exit status
#   expect_in FILE TEXT DESCRIPTION         check that FILE matches TEXT (grep pattern)
#   finish [LABEL]  print "LABEL: N passed, M failed" and return the verdict: the test's last line
set -u
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
finish() { echo "${1:+$1: }$pass passed, $fail failed"; [ "$fail" = 0 ]; }

tmp=$(mktemp -d)
exit_commands=()
on_exit() { exit_commands+=("$1"); }
# The test's own clean-up first (it may stop a process still writing in $tmp), then $tmp.
run_exit_commands() {
    local c
    for c in "${exit_commands[@]}"; do eval "$c"; done
    rm -rf "$tmp"
}
trap run_exit_commands EXIT

expect_status() {  # expect_status WANT DESCRIPTION CMD...
    local want=$1 what=$2; shift 2
    "$@" >"$tmp/cli.out" 2>"$tmp/cli.err"
    local got=$?
    if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, want $want; stderr: $(head -c 300 "$tmp/cli.err")"; fi
}
expect_in() {  # expect_in FILE TEXT DESCRIPTION
    if grep -q -- "$2" "$1"; then ok; else bad "$3: '$2' not in $(head -c 300 "$1")"; fi
}
long_dir() {  # long_dir LENGTH: a path under $tmp of exactly LENGTH bytes (components of at most 240)
    local d=$tmp
    while (( ${#d} + 241 < $1 )); do d=$d/$(printf 'd%.0s' {1..240}); done
    echo "$d/$(printf 'h%.0s' $(seq $(( $1 - ${#d} - 1 ))))"
}
