#!/usr/bin/env bash
# The fuzz targets: the replay builds (any compiler) over the seed corpora,
# and, where clang is installed, a libFuzzer build under AddressSanitizer and
# UndefinedBehaviorSanitizer: fuzz_formats runs for 20 seconds, fuzz_diff
# over its seeds; and the clang build must make the cases this one makes.
# Usage: fuzz.sh SOURCE_DIR BUILD_DIR
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)

"$BUILD/fuzz/fuzz_formats_replay" "$SRC/corpus/fuzz/formats" && ok || bad "fuzz_formats replay over its seeds"
"$BUILD/fuzz/fuzz_diff_replay" "$SRC/corpus/fuzz/diff" && ok || bad "fuzz_diff replay over its seeds"
# Without the known rules, lavapipe's unfused Fma is a disagreement: the target aborts.
if "$BUILD/fuzz/fuzz_diff_replay" -h >/dev/null 2>&1; then :; fi
default=$("$BUILD/src/tiefuzz" devices --json | python3 -c 'import json,sys; print([d["name"] for d in json.load(sys.stdin)["devices"] if d["default"]][0])')
case "$default" in
llvmpipe*)
    TIEFUZZ_KNOWN="$tmp/none" "$BUILD/fuzz/fuzz_diff_replay" "$SRC/corpus/fuzz/diff/record-fma-direct" >/dev/null 2>&1
    [ $? -ne 0 ] && ok || bad "fuzz_diff did not abort on lavapipe's unfused Fma without the known rules"
    ;;
*) echo "skipped: the unfused-Fma expectation is lavapipe's (default device: $default)" ;;
esac

if command -v clang >/dev/null 2>&1; then
    FB="$BUILD/fuzz-clang"
    "$SRC/scripts/sanitizer-build" "$FB" >"$tmp/setup.log" 2>&1 || { cat "$tmp/setup.log"; bad "clang fuzz build setup"; }
    if ninja -C "$FB" fuzz/fuzz_formats fuzz/fuzz_diff >"$tmp/build.log" 2>&1; then
        ok
        cp -r "$SRC/corpus/fuzz/formats" "$tmp/corpus"
        # A fixed seed: the same mutations each run, so a failure here is a regression that replays,
        # not the luck of the draw (one clean CI run once hit a heap over-read that thousands of
        # seconds of fuzzing since have not reproduced).  Exploration with fresh seeds is
        # scripts/nightly's job (fuzz_formats gets 5 minutes a night).
        ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 "$FB/fuzz/fuzz_formats" -max_total_time=20 -seed=1 \
            -dict="$SRC/fuzz/tiefuzz.dict" -artifact_prefix="$tmp/" "$tmp/corpus" >"$tmp/formats.log" 2>&1 \
            && ok || {
                # The report's head (what was read, where) and the input, kept in the build directory
                # so that a failure seen once can be replayed: fuzz_formats_replay FILE.
                grep -m1 -A24 -E "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error" "$tmp/formats.log"
                mkdir -p "$BUILD/fuzz-crashes" && cp "$tmp"/crash-* "$tmp"/leak-* "$BUILD/fuzz-crashes/" 2>/dev/null
                echo "crash inputs: $(ls "$BUILD/fuzz-crashes" 2>/dev/null | tr '\n' ' ')"
                bad "fuzz_formats crashed under ASan/UBSan"; }
        grep -E "^#[0-9]+.*(DONE|pulse)" "$tmp/formats.log" | tail -1
        # One seed makes one set of cases whatever the compiler: no expression holds two draws whose
        # order C leaves to the compiler (arguments of one call, operands of | or of =); GCC and clang
        # once made different cases.  The cases of every op, this build's against the clang one's
        # (tiles: 256 each, a few seconds under the sanitizers, every class many times over).
        if ninja -C "$FB" tests/gen_count >"$tmp/gen_count.log" 2>&1; then
            ops=$("$BUILD/src/tiefuzz" ops | awk '/^(rdna2|maxwell)\./ {print $1}')
            tiles=$("$BUILD/src/tiefuzz" ops | awk '/^mma\./ {print $1}')
            mine="$("$BUILD/tests/gen_count" 16384 $ops) $("$BUILD/tests/gen_count" 256 $tiles)"
            clangs="$("$FB/tests/gen_count" 16384 $ops) $("$FB/tests/gen_count" 256 $tiles)"
            [ ${#mine} = 17 ] && [ "$mine" = "$clangs" ] && ok || bad "the clang build made other cases ($clangs, not $mine)"
        else
            tail -20 "$tmp/gen_count.log"; bad "gen_count in the clang build"
        fi
        # The Vulkan driver's own allocations outlive the target: leak checks there are the driver's business.
        ASAN_OPTIONS=detect_leaks=0 "$FB/fuzz/fuzz_diff" -runs=0 -artifact_prefix="$tmp/" "$SRC/corpus/fuzz/diff" >"$tmp/diff.log" 2>&1 \
            && ok || { tail -20 "$tmp/diff.log"; bad "fuzz_diff over its seeds under ASan/UBSan"; }
        # Regression (found by scripts/nightly): the mutator handed a decoded model parameter past its
        # value table to an evaluator (UBSan: index 256 out of bounds in maxwell_eval.c).  From that
        # seed alone it failed within 20 seconds; it must now run clean.
        mkdir -p "$tmp/xmad" && cp "$SRC/corpus/fuzz/diff/xmad-param-out-of-range" "$tmp/xmad/"
        ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$FB/fuzz/fuzz_diff" \
            -max_total_time=20 -seed=1 -artifact_prefix="$tmp/xmad-" "$tmp/xmad" >"$tmp/xmad.log" 2>&1 \
            && ok || { grep -A5 "runtime error" "$tmp/xmad.log" | head; bad "fuzz_diff's mutator from an out-of-range parameter"; }
        # The custom mutator and semantic counters reach more rounding cells than plain libFuzzer.
        line=$(TIEFUZZ_FUZZ_BUILD="$FB" "$SRC/scripts/fuzz-cells" 8 2>/dev/null | tail -1)
        echo "$line"
        with=$(echo "$line" | sed -n 's/.*counters \([0-9]*\),.*/\1/p')
        without=$(echo "$line" | sed -n 's/.*without them \([0-9]*\).*/\1/p')
        [ -n "$with" ] && [ -n "$without" ] && [ "$with" -gt "$without" ] && ok || bad "semantic fuzzing reached no more cells ($line)"
        case "$default" in
        llvmpipe*)
            # With the known list emptied, fuzz_diff stops on lavapipe's unfused Fma; its crash file
            # reproduces with tiefuzz repro and with the replay build.
            mkdir -p "$tmp/diffcorpus" && cp "$SRC/corpus/fuzz/diff/"* "$tmp/diffcorpus/"
            ASAN_OPTIONS=detect_leaks=0 TIEFUZZ_KNOWN="$tmp/none" "$FB/fuzz/fuzz_diff" -max_total_time=60 \
                -artifact_prefix="$tmp/art-" "$tmp/diffcorpus" >"$tmp/diff2.log" 2>&1
            crash=$(ls "$tmp"/art-crash-* 2>/dev/null | head -1)
            if [ -n "$crash" ] && grep -q "disagreement_" "$tmp/diff2.log"; then
                ok
                grep -m1 -o "in disagreement_[a-z_]*" "$tmp/diff2.log"
                "$BUILD/src/tiefuzz" repro "$crash" >/dev/null 2>&1
                [ $? = 1 ] && ok || bad "tiefuzz repro of the crash file did not report the disagreement"
                TIEFUZZ_KNOWN="$tmp/none" "$BUILD/fuzz/fuzz_diff_replay" "$crash" >/dev/null 2>&1
                [ $? -ne 0 ] && ok || bad "the replay build did not reproduce the crash"
            else
                tail -20 "$tmp/diff2.log"
                bad "fuzz_diff found no disagreement within 60 s without the known list"
            fi
            ;;
        esac
    else
        tail -20 "$tmp/build.log"
        bad "clang fuzz build"
    fi
    # The ClusterFuzzLite build script, run by hand as its builder would (ASan here): it builds
    # both targets into $OUT with what a runner without the source tree or a GPU needs, and
    # the targets it built run from there.
    # The builder's layout (ci/clusterfuzzlite/Dockerfile): the checkout in $SRC/tiefuzz, the script as $SRC/build.sh.
    mkdir -p "$tmp/cfl/out" "$tmp/cfl/work" "$tmp/cfl/seeds" "$tmp/cfl/src"
    ln -s "$SRC" "$tmp/cfl/src/tiefuzz" && cp "$SRC/ci/clusterfuzzlite/build.sh" "$tmp/cfl/src/build.sh"
    if (cd "$tmp/cfl/src/tiefuzz" && CC=clang CFLAGS="-fsanitize=address -fsanitize-address-use-after-scope" \
        LIB_FUZZING_ENGINE=-fsanitize=fuzzer SRC="$tmp/cfl/src" WORK="$tmp/cfl/work" OUT="$tmp/cfl/out" \
        bash "$tmp/cfl/src/build.sh") >"$tmp/cfl.log" 2>&1; then
        ok
        for f in fuzz_formats fuzz_diff fuzz_diff.options fuzz_diff_seed_corpus.zip fuzz_formats.dict \
            lib/lvp_icd.json lib/libvulkan.so.1 tiefuzz-known/lavapipe.txt; do
            [ -s "$tmp/cfl/out/$f" ] && ok || bad "ClusterFuzzLite build: no $f in \$OUT"
        done
        ldd "$tmp/cfl/out/fuzz_diff" | grep -q "libvulkan.so.1 => $tmp/cfl/out/lib/" && ok \
            || bad "ClusterFuzzLite build: fuzz_diff does not load the Vulkan loader shipped in \$OUT/lib"
        (cd "$tmp/cfl/seeds" && unzip -q ../out/fuzz_diff_seed_corpus.zip)
        (cd / && ASAN_OPTIONS=detect_leaks=0 "$tmp/cfl/out/fuzz_diff" -max_total_time=5 \
            -dict="$tmp/cfl/out/fuzz_diff.dict" -artifact_prefix="$tmp/cfl-" "$tmp/cfl/seeds") >"$tmp/cfl-run.log" 2>&1 \
            && grep -q "DONE" "$tmp/cfl-run.log" && ok || { tail -20 "$tmp/cfl-run.log"; bad "fuzz_diff from the ClusterFuzzLite \$OUT"; }
        grep -E "^#[0-9]+.*DONE" "$tmp/cfl-run.log" | tail -1
    else
        tail -20 "$tmp/cfl.log"
        bad "the ClusterFuzzLite build script failed"
    fi
else
    echo "skipped: clang is not installed, so no libFuzzer build (the replay builds ran)"
fi
finish
