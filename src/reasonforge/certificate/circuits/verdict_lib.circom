pragma circom 2.1.0;

// The verdict certificate circuit (DESIGN §2 certificate/). Parameters are template arguments so
// the same template serves the full instance (verdict.circom) and reduced test instances; the
// Python side (certificate/params.py) is the one place that names their values.

include "poseidon.circom";
include "eddsaposeidon.circom";
include "comparators.circom";
include "bitify.circom";

// Root of a Poseidon Merkle tree from a leaf and its path; pathBits[i] = 1 when the node at level i
// is a right child. The bits also spell the leaf index, which the caller uses for distinctness.
template MerkleRoot(depth) {
    signal input leaf;
    signal input siblings[depth];
    signal input pathBits[depth];
    signal output root;
    signal output index;

    component hashers[depth];
    signal level[depth + 1];
    signal left[depth];
    signal right[depth];
    var acc = 0;
    level[0] <== leaf;
    for (var i = 0; i < depth; i++) {
        pathBits[i] * (pathBits[i] - 1) === 0;
        // left = bit ? sibling : node;  right = bit ? node : sibling
        left[i] <== level[i] + pathBits[i] * (siblings[i] - level[i]);
        right[i] <== siblings[i] + level[i] - left[i];
        hashers[i] = Poseidon(2);
        hashers[i].inputs[0] <== left[i];
        hashers[i].inputs[1] <== right[i];
        level[i + 1] <== hashers[i].out;
        acc += pathBits[i] * (1 << i);
    }
    root <== level[depth];
    index <== acc;
}

// Public inputs (4, so the on-chain verifier stays cheap):
//   taskHash      sha256 of the task truncated to 248 bits (or a sequence link, see sequence.py)
//   commitment    Poseidon(stepsPacked, totalSteps, taskHash, salt): what validators sign
//   validatorRoot Poseidon Merkle root of Poseidon(Ax, Ay, stake) leaves
//   packed        verified | total << 8 | count << 16 | threshold << 24 | timestamp << 32
//                 | stakeThreshold << 96   (layout mirrored by params.py PACK_LAYOUT)
template VerdictCertificate(MAX_STEPS, MAX_VALIDATORS, MERKLE_DEPTH) {
    signal input taskHash;
    signal input commitment;
    signal input validatorRoot;
    signal input packed;

    signal input stepBits[MAX_STEPS];
    signal input salt;
    signal input verifiedSteps;
    signal input totalSteps;
    signal input validatorCount;
    signal input threshold;
    signal input timestamp;
    signal input stakeThreshold;

    signal input enabled[MAX_VALIDATORS];
    signal input Ax[MAX_VALIDATORS];
    signal input Ay[MAX_VALIDATORS];
    signal input stake[MAX_VALIDATORS];
    signal input S[MAX_VALIDATORS];
    signal input R8x[MAX_VALIDATORS];
    signal input R8y[MAX_VALIDATORS];
    signal input siblings[MAX_VALIDATORS][MERKLE_DEPTH];
    signal input pathBits[MAX_VALIDATORS][MERKLE_DEPTH];

    // --- the packed public integers: each range-checked so the packing is injective
    component rVerified = Num2Bits(8);   rVerified.in <== verifiedSteps;
    component rTotal = Num2Bits(8);      rTotal.in <== totalSteps;
    component rCount = Num2Bits(8);      rCount.in <== validatorCount;
    component rThreshold = Num2Bits(8);  rThreshold.in <== threshold;
    component rTime = Num2Bits(64);      rTime.in <== timestamp;
    component rStakeT = Num2Bits(64);    rStakeT.in <== stakeThreshold;
    packed === verifiedSteps + totalSteps * (1 << 8) + validatorCount * (1 << 16)
        + threshold * (1 << 24) + timestamp * (1 << 32) + stakeThreshold * (1 << 96);

    // --- steps: boolean, zero beyond totalSteps, counted
    component totalOk = LessEqThan(8);
    totalOk.in[0] <== totalSteps;
    totalOk.in[1] <== MAX_STEPS;
    totalOk.out === 1;
    component active[MAX_STEPS];
    var count = 0;
    var packedBits = 0;
    for (var i = 0; i < MAX_STEPS; i++) {
        stepBits[i] * (stepBits[i] - 1) === 0;
        active[i] = LessThan(8);
        active[i].in[0] <== i;
        active[i].in[1] <== totalSteps;
        stepBits[i] * (1 - active[i].out) === 0;
        count += stepBits[i];
        packedBits += stepBits[i] * (1 << i);
    }
    verifiedSteps === count;

    // --- the verdict commitment binds the bits, the step count, the task and a hiding salt
    component commit = Poseidon(4);
    commit.inputs[0] <== packedBits;
    commit.inputs[1] <== totalSteps;
    commit.inputs[2] <== taskHash;
    commit.inputs[3] <== salt;
    commit.out === commitment;

    // --- validators: enabled slots form a prefix, signatures verify, keys are tree members,
    //     leaf indices strictly increase (so no leaf counts twice)
    component sig[MAX_VALIDATORS];
    component leaf[MAX_VALIDATORS];
    component path[MAX_VALIDATORS];
    component rStake[MAX_VALIDATORS];
    component ordered[MAX_VALIDATORS];
    signal weighted[MAX_VALIDATORS];
    var signers = 0;
    var stakeSum = 0;
    for (var v = 0; v < MAX_VALIDATORS; v++) {
        enabled[v] * (enabled[v] - 1) === 0;
        if (v > 0) {
            enabled[v] * (1 - enabled[v - 1]) === 0;
        }
        sig[v] = EdDSAPoseidonVerifier();
        sig[v].enabled <== enabled[v];
        sig[v].Ax <== Ax[v];
        sig[v].Ay <== Ay[v];
        sig[v].S <== S[v];
        sig[v].R8x <== R8x[v];
        sig[v].R8y <== R8y[v];
        sig[v].M <== commitment;

        rStake[v] = Num2Bits(64);
        rStake[v].in <== stake[v];
        leaf[v] = Poseidon(3);
        leaf[v].inputs[0] <== Ax[v];
        leaf[v].inputs[1] <== Ay[v];
        leaf[v].inputs[2] <== stake[v];
        path[v] = MerkleRoot(MERKLE_DEPTH);
        path[v].leaf <== leaf[v].out;
        for (var d = 0; d < MERKLE_DEPTH; d++) {
            path[v].siblings[d] <== siblings[v][d];
            path[v].pathBits[d] <== pathBits[v][d];
        }
        (path[v].root - validatorRoot) * enabled[v] === 0;

        if (v > 0) {
            ordered[v] = LessThan(MERKLE_DEPTH + 1);
            ordered[v].in[0] <== path[v - 1].index;
            ordered[v].in[1] <== path[v].index;
            (1 - ordered[v].out) * enabled[v] === 0;
        }
        weighted[v] <== enabled[v] * stake[v];
        signers += enabled[v];
        stakeSum += weighted[v];
    }
    validatorCount === signers;

    component thresholdPositive = IsZero();
    thresholdPositive.in <== threshold;
    thresholdPositive.out === 0;
    component enough = GreaterEqThan(8);
    enough.in[0] <== signers;
    enough.in[1] <== threshold;
    enough.out === 1;
    component enoughStake = GreaterEqThan(72);
    enoughStake.in[0] <== stakeSum;
    enoughStake.in[1] <== stakeThreshold;
    enoughStake.out === 1;
}
