# A worked --translator (README, 'Bring your own translator'): for each setting
# tiefuzz asks about, tiefuzz's own exact lowering of it, which agrees with the
# host model on any conformant device.  Use: --translator 'sh translator_exact.sh TIEFUZZ'
# (TIEFUZZ: the tiefuzz binary; default: the one on PATH).
exec "${1:-tiefuzz}" shader "$TIEFUZZ_OP" --lowering exact --ctrl "$TIEFUZZ_CTRL" --param "$TIEFUZZ_PARAM" \
    --device "$TIEFUZZ_DEVICE" -o "$TIEFUZZ_OUT"
