#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script.  The builder provides CC, CFLAGS
# (sanitizer flags), LIB_FUZZING_ENGINE, SRC, WORK and OUT; this builds the
# libFuzzer targets with meson and puts in $OUT, beside them, what a runner
# without the source tree or a GPU needs:
#   fuzz_*_seed_corpus.zip, fuzz_*.dict   seeds and dictionary (corpus/, fuzz/)
#   fuzz_*.options                        libFuzzer and sanitizer options
#   tiefuzz-known/                        the known-divergence rules (corpus/known)
#   lib/                                  shared libraries and lavapipe with its ICD file
# fuzz_diff finds tiefuzz-known/ and lib/lvp_icd.json through argv[0].
# By hand: CC=clang CFLAGS= LIB_FUZZING_ENGINE=-fsanitize=fuzzer SRC=.. WORK=/tmp/w OUT=/tmp/o ci/clusterfuzzlite/build.sh
# Run in place (ci/clusterfuzzlite/build.sh) or as the builder's $SRC/build.sh
# with the checkout in $SRC/tiefuzz (the Dockerfile's layout).
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/../../meson.build" ]; then SOURCE=$(cd "$here/../.." && pwd); else SOURCE="$SRC/tiefuzz"; fi
BUILD="$WORK/tiefuzz-build"
TARGETS="fuzz_formats fuzz_diff"

rm -rf "$BUILD"
# RPATH (not RUNPATH) so that lavapipe's own dependencies, loaded by the
# Vulkan loader with dlopen, are found in $OUT/lib too.
meson setup "$BUILD" "$SOURCE" --buildtype=plain -Dfuzzing=enabled -Db_lundef=false \
    -Dfuzzer_ldflags="$LIB_FUZZING_ENGINE -Wl,--disable-new-dtags -Wl,-rpath,\$ORIGIN/lib"
ninja -C "$BUILD" $(for t in $TARGETS; do echo "fuzz/$t"; done)

mkdir -p "$OUT/lib" "$OUT/tiefuzz-known"
cp "$SOURCE"/corpus/known/*.txt "$OUT/tiefuzz-known/"
for t in $TARGETS; do
    cp "$BUILD/fuzz/$t" "$OUT/"
    cp "$SOURCE/fuzz/tiefuzz.dict" "$OUT/$t.dict"
done
(cd "$SOURCE/corpus/fuzz/formats" && zip -q -j "$OUT/fuzz_formats_seed_corpus.zip" ./*)
(cd "$SOURCE/corpus/fuzz/diff" && zip -q -j "$OUT/fuzz_diff_seed_corpus.zip" ./*)
printf '[libfuzzer]\ndict = fuzz_formats.dict\n' >"$OUT/fuzz_formats.options"
# The Vulkan driver's allocations outlive the target: its leaks are not ours.
printf '[libfuzzer]\ndict = fuzz_diff.dict\n[asan]\ndetect_leaks = 0\n' >"$OUT/fuzz_diff.options"

# lavapipe and every shared library the targets or it need, except the C
# library itself (the runner has its own, and mixing them breaks).
icd=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json | head -1)
lvp=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ICD"]["library_path"])' "$icd")
cp "$lvp" "$OUT/lib/"
python3 - "$icd" "$OUT/lib/lvp_icd.json" "$(basename "$lvp")" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["ICD"]["library_path"] = "./" + sys.argv[3]   # relative to the ICD file
open(sys.argv[2], "w").write(json.dumps(m, indent=2) + "\n")
PY
for bin in "$OUT/fuzz_diff" "$OUT/fuzz_formats" "$lvp"; do
    ldd "$bin" | awk '/=> \// { print $3 }'
done | sort -u | while read -r lib; do
    case "$(basename "$lib")" in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libgcc_s.so.*) ;;
    *) cp -L "$lib" "$OUT/lib/" ;;
    esac
done
