pragma circom 2.1.0;

// The verdict certificate circuit (DESIGN §2 certificate/). Parameters are template arguments so
// the same template serves the full instance (verdict.circom) and reduced test instances; the
// Python side (certificate/params.py) is the one place that names their values.

include "poseidon.circom";
include "eddsaposeidon.circom";
include "comparators.circom";
include "bitify.circom";

// One level of the quaternary validator tree: `node` must be children[bits[0] + 2 * bits[1]]
// (a two-level multiplexer: 3 constraints), and the parent is Poseidon(children). The caller
// constrains the bits to be boolean; they are also the node's index bits.
template QuadLevel() {
    signal input node;
    signal input children[4];
    signal input bits[2];
    signal output parent;

    signal low <== children[0] + bits[0] * (children[1] - children[0]);
    signal high <== children[2] + bits[0] * (children[3] - children[2]);
    bits[1] * (high - low) === node - low;
    component hash = Poseidon(4);
    hash.inputs <== children;
    parent <== hash.out;
}

// in[Σ bits[i]·2^i] by a binary multiplexer tree (2^BITS - 1 constraints); bits must be boolean.
template Select(BITS) {
    signal input in[1 << BITS];
    signal input bits[BITS];
    signal output out;

    var N = 1 << BITS;
    signal layer[N - 1];  // level k's outputs follow level k-1's; the last one is the selection
    var read = 0;
    var write = 0;
    for (var k = 0; k < BITS; k++) {
        var width = N >> (k + 1);
        for (var j = 0; j < width; j++) {
            if (k == 0) {
                layer[write + j] <== in[2 * j] + bits[0] * (in[2 * j + 1] - in[2 * j]);
            } else {
                layer[write + j] <== layer[read + 2 * j] + bits[k] * (layer[read + 2 * j + 1] - layer[read + 2 * j]);
            }
        }
        if (k > 0) {
            read += N >> k;
        }
        write += width;
    }
    out <== layer[N - 2];
}

// Root of a quaternary Poseidon tree over 4^LEVELS nodes.
template QuadRoot(LEVELS) {
    signal input nodes[1 << (2 * LEVELS)];
    signal output root;

    var total = 0;
    for (var l = 0; l < LEVELS; l++) {
        total += 1 << (2 * l);
    }
    component hash[total];
    signal level[total];  // level l's parents follow level l-1's, the root is last
    var read = 0;
    var write = 0;
    for (var l = 0; l < LEVELS; l++) {
        var width = 1 << (2 * (LEVELS - l - 1));
        for (var j = 0; j < width; j++) {
            hash[write + j] = Poseidon(4);
            for (var c = 0; c < 4; c++) {
                if (l == 0) {
                    hash[write + j].inputs[c] <== nodes[4 * j + c];
                } else {
                    hash[write + j].inputs[c] <== level[read + 4 * j + c];
                }
            }
            level[write + j] <== hash[write + j].out;
        }
        if (l > 0) {
            read += 1 << (2 * (LEVELS - l));
        }
        write += width;
    }
    root <== level[total - 1];
}

// Public inputs (4, so the on-chain verifier stays cheap):
//   taskHash      sha256 of the task truncated to 248 bits (or a sequence link, see witness.py)
//   commitment    Poseidon(stepsPacked, totalSteps, taskHash, salt): what validators sign
//   validatorRoot root of the quaternary Poseidon tree of Poseidon(Ax, Ay, stake) leaves
//   packed        verified | total << 8 | count << 16 | threshold << 24 | timestamp << 32
//                 | stakeThreshold << 96   (layout mirrored by params.py PACK_LAYOUT)
// MERKLE_DEPTH counts index bits (2^MERKLE_DEPTH validators); OPEN_BITS of them address the
// shared opening (the tree level hashed once to the root), the rest each slot's own path.
template VerdictCertificate(MAX_STEPS, MAX_VALIDATORS, MERKLE_DEPTH, OPEN_BITS) {
    var PATH_LEVELS = (MERKLE_DEPTH - OPEN_BITS) \ 2;
    var PATH_BITS = 2 * PATH_LEVELS;
    assert(MERKLE_DEPTH % 2 == 0 && OPEN_BITS % 2 == 0 && PATH_LEVELS >= 1);

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
    signal input children[MAX_VALIDATORS][PATH_LEVELS][4];
    signal input indexBits[MAX_VALIDATORS][MERKLE_DEPTH];
    signal input opening[1 << OPEN_BITS];

    // --- the packed public integers: each range-checked so the packing is injective
    component rVerified = Num2Bits(8);   rVerified.in <== verifiedSteps;
    component rTotal = Num2Bits(8);      rTotal.in <== totalSteps;
    component rCount = Num2Bits(8);      rCount.in <== validatorCount;
    component rThreshold = Num2Bits(8);  rThreshold.in <== threshold;
    component rTime = Num2Bits(64);      rTime.in <== timestamp;
    component rStakeT = Num2Bits(64);    rStakeT.in <== stakeThreshold;
    packed === verifiedSteps + totalSteps * (1 << 8) + validatorCount * (1 << 16)
        + threshold * (1 << 24) + timestamp * (1 << 32) + stakeThreshold * (1 << 96);

    // --- steps: boolean, zero beyond totalSteps, counted. `active` is 1 on exactly the first
    //     totalSteps steps: boolean, never rising again once it falls, summing to totalSteps.
    signal active[MAX_STEPS];
    var count = 0;
    var activeSum = 0;
    var packedBits = 0;
    for (var i = 0; i < MAX_STEPS; i++) {
        active[i] <-- i < totalSteps ? 1 : 0;  // a hint; the constraints below pin it down
        active[i] * (active[i] - 1) === 0;
        if (i > 0) {
            active[i] * (1 - active[i - 1]) === 0;
        }
        stepBits[i] * (stepBits[i] - 1) === 0;
        stepBits[i] * (1 - active[i]) === 0;
        activeSum += active[i];
        count += stepBits[i];
        packedBits += stepBits[i] * (1 << i);
    }
    activeSum === totalSteps;
    verifiedSteps === count;

    // --- the verdict commitment binds the bits, the step count, the task and a hiding salt
    component commit = Poseidon(4);
    commit.inputs[0] <== packedBits;
    commit.inputs[1] <== totalSteps;
    commit.inputs[2] <== taskHash;
    commit.inputs[3] <== salt;
    commit.out === commitment;

    // --- the shared tree opening hashes to the public validator root
    component top = QuadRoot(OPEN_BITS \ 2);
    top.nodes <== opening;
    top.root === validatorRoot;

    // --- validators: enabled slots form a prefix, signatures verify, keys are tree members,
    //     leaf indices strictly increase (so no leaf counts twice)
    component sig[MAX_VALIDATORS];
    component leaf[MAX_VALIDATORS];
    component path[MAX_VALIDATORS][PATH_LEVELS];
    component joint[MAX_VALIDATORS];
    component rStake[MAX_VALIDATORS];
    component ordered[MAX_VALIDATORS];
    signal index[MAX_VALIDATORS];
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

        var acc = 0;
        for (var b = 0; b < MERKLE_DEPTH; b++) {
            indexBits[v][b] * (indexBits[v][b] - 1) === 0;
            acc += indexBits[v][b] * (1 << b);
        }
        index[v] <== acc;
        for (var l = 0; l < PATH_LEVELS; l++) {
            path[v][l] = QuadLevel();
            if (l == 0) {
                path[v][l].node <== leaf[v].out;
            } else {
                path[v][l].node <== path[v][l - 1].parent;
            }
            path[v][l].children <== children[v][l];
            path[v][l].bits[0] <== indexBits[v][2 * l];
            path[v][l].bits[1] <== indexBits[v][2 * l + 1];
        }
        // the slot's subtree root is the opening node its high index bits address
        joint[v] = Select(OPEN_BITS);
        joint[v].in <== opening;
        for (var b = 0; b < OPEN_BITS; b++) {
            joint[v].bits[b] <== indexBits[v][PATH_BITS + b];
        }
        (joint[v].out - path[v][PATH_LEVELS - 1].parent) * enabled[v] === 0;

        if (v > 0) {
            ordered[v] = LessThan(MERKLE_DEPTH + 1);
            ordered[v].in[0] <== index[v - 1];
            ordered[v].in[1] <== index[v];
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
