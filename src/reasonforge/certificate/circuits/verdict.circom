pragma circom 2.1.0;

// Full-size instance: MAX_STEPS = 32, MAX_VALIDATORS = 16, MERKLE_DEPTH = 10 (1024 validators in a
// quaternary tree), OPEN_BITS = 4 (must equal reasonforge.certificate.params.FULL; a test checks).
include "verdict_lib.circom";

component main {public [taskHash, commitment, validatorRoot, packed]} = VerdictCertificate(32, 16, 10, 4);
