# translator_exact.sh with a planted control-dependent mistake, the kind a
# translator makes when it handles a modifier on some sources only: when neg
# negates the addend (bit 2), it translates the setting without that bit, so
# S0*S1 + S2 is computed for S0*S1 - S2.  Every other setting is right, so only
# fuzzed controls can find it.  Use: --translator 'sh translator_planted.sh TIEFUZZ'
ctrl=$TIEFUZZ_CTRL
neg=$(printf '%s\n' "$ctrl" | sed -n 's/.*\bneg=\([0-9a-fx]*\).*/\1/p')
if [ -n "$neg" ] && [ $((neg & 4)) != 0 ]; then
    ctrl=$(printf '%s\n' "$ctrl" | sed "s/\bneg=[0-9a-fx]*/neg=$((neg & 3))/")
fi
exec "${1:-tiefuzz}" shader "$TIEFUZZ_OP" --lowering exact --ctrl "$ctrl" --param "$TIEFUZZ_PARAM" \
    --device "$TIEFUZZ_DEVICE" -o "$TIEFUZZ_OUT"
