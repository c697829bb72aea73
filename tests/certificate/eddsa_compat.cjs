// Cross-check helper for test_primitives.py: circomlibjs signs and verifies EdDSA-Poseidon and
// hashes with Poseidon. Usage: node eddsa_compat.cjs NODE_MODULES < request.json
"use strict";
const path = require("path");
const circomlibjs = require(path.join(process.argv[2], "circomlibjs"));

let raw = "";
process.stdin.on("data", (d) => (raw += d));
process.stdin.on("end", async () => {
  const req = JSON.parse(raw);
  const eddsa = await circomlibjs.buildEddsa();
  const poseidon = await circomlibjs.buildPoseidon();
  const F = eddsa.babyJub.F;
  const prv = Buffer.from(req.prv, "hex");
  const msg = F.e(BigInt(req.msg));
  const pub = eddsa.prv2pub(prv);
  const sig = eddsa.signPoseidon(prv, msg);
  const pySig = {
    R8: [F.e(BigInt(req.py_sig.r8x)), F.e(BigInt(req.py_sig.r8y))],
    S: BigInt(req.py_sig.s),
  };
  const pyPub = [F.e(BigInt(req.py_pub[0])), F.e(BigInt(req.py_pub[1]))];
  const out = {
    pub: pub.map((x) => F.toObject(x).toString()),
    sig: { r8x: F.toObject(sig.R8[0]).toString(), r8y: F.toObject(sig.R8[1]).toString(), s: sig.S.toString() },
    py_sig_valid: eddsa.verifyPoseidon(msg, pySig, pyPub),
    py_sig_wrong_msg_valid: eddsa.verifyPoseidon(F.e(BigInt(req.msg) + 1n), pySig, pyPub),
    poseidon: req.poseidon_inputs.map((xs) => poseidon.F.toObject(poseidon(xs.map(BigInt))).toString()),
  };
  console.log(JSON.stringify(out));
});
