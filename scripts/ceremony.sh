#!/bin/sh
# Multi-party Groth16 ceremony for production certificate keys (snarkjs 0.7.6 from `npm ci`).
#
# The keys `reasonforge cert issue` creates on first use come from a single-party setup: whoever
# ran it can forge proofs. Production keys must come from a ceremony in which at least one
# participant destroys their randomness. Every participant runs one `contribute-*` step on their
# own machine and passes the file on; anyone can run `verify` on the transcript.
#
#   phase 1 (powers of tau, circuit-independent; power 17 covers the full 90k-constraint circuit)
#     scripts/ceremony.sh ptau-new 17 pot_0000.ptau
#     scripts/ceremony.sh ptau-contribute pot_0000.ptau pot_0001.ptau "alice"     # each participant
#     scripts/ceremony.sh ptau-finish pot_0001.ptau "<public beacon hex>" pot_final.ptau
#   phase 2 (circuit-specific; main.r1cs is under $REASONFORGE_HOME/certificate/keys/<circuit>/)
#     scripts/ceremony.sh zkey-new main.r1cs pot_final.ptau verdict_0000.zkey
#     scripts/ceremony.sh zkey-contribute verdict_0000.zkey verdict_0001.zkey "bob"   # each participant
#     scripts/ceremony.sh zkey-finish verdict_0001.zkey "<public beacon hex>" verdict_final.zkey
#     scripts/ceremony.sh verify main.r1cs pot_final.ptau verdict_final.zkey
#   install: reasonforge.certificate.prover.import_ceremony_keys(verdict_final.zkey, FULL, keys_dir)
#
# Measured on 2 cores: preparing phase 2 took 82 s at power 12 and grows ~2x per power, so budget
# about an hour for power 17. Public beacons: a future block hash announced before the ceremony.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
snarkjs="node --max-old-space-size=8192 $root/node_modules/snarkjs/build/cli.cjs"
[ -f "$root/node_modules/snarkjs/build/cli.cjs" ] || { echo "snarkjs missing: run 'make install'" >&2; exit 2; }
entropy() { head -c 64 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

cmd=${1:-help}
[ $# -gt 0 ] && shift
case $cmd in
    ptau-new)        $snarkjs powersoftau new bn128 "$1" "$2" -v ;;
    ptau-contribute) $snarkjs powersoftau contribute "$1" "$2" --name="$3" -e="$(entropy)" -v ;;
    ptau-finish)
        tmp="$3.beacon"
        $snarkjs powersoftau beacon "$1" "$tmp" "$2" 10 -n="final beacon" -v
        $snarkjs powersoftau prepare phase2 "$tmp" "$3" -v
        rm -f "$tmp" ;;
    zkey-new)        $snarkjs groth16 setup "$1" "$2" "$3" ;;
    zkey-contribute) $snarkjs zkey contribute "$1" "$2" --name="$3" -e="$(entropy)" -v ;;
    zkey-finish)     $snarkjs zkey beacon "$1" "$3" "$2" 10 -n="final beacon" ;;
    verify)          $snarkjs zkey verify "$1" "$2" "$3" ;;
    *) sed -n '2,24p' "$0"; [ "$cmd" = help ] || exit 2 ;;
esac
