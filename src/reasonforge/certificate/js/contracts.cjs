// Render the Groth16 verifier from a snarkjs-shaped verification key with an ejs template
// (ours, contracts/Verifier.sol.ejs, or snarkjs's for cross-checks) and compile it with the
// registry using solc-js (EVM cancun, via-IR, optimised for many runs: calls matter, not deploys).
// Usage:
//   node contracts.cjs NODE_MODULES VK.json VERIFIER.sol.ejs REGISTRY.sol OUT_DIR
// Writes OUT_DIR/Verifier.sol and OUT_DIR/contracts.json ({Name: {abi, bytecode}}).
"use strict";
const fs = require("fs");
const path = require("path");

const [modules, vkPath, templatePath, registryPath, outDir] = process.argv.slice(2);
const ejs = require(path.join(modules, "ejs"));
const solc = require(path.join(modules, "solc"));
const vk = JSON.parse(fs.readFileSync(vkPath, "utf8"));
const template = fs.readFileSync(templatePath, "utf8");
const verifier = ejs.render(template, vk);
fs.writeFileSync(path.join(outDir, "Verifier.sol"), verifier);

const input = {
  language: "Solidity",
  sources: {
    "Verifier.sol": { content: verifier },
    "CertificateRegistry.sol": { content: fs.readFileSync(registryPath, "utf8") },
  },
  settings: {
    evmVersion: "cancun",
    viaIR: true,
    optimizer: { enabled: true, runs: 1000000 },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors || []).filter((e) => e.severity === "error");
if (errors.length) {
  console.error(errors.map((e) => e.formattedMessage).join("\n"));
  process.exit(1);
}
const result = {};
for (const file of Object.keys(output.contracts)) {
  for (const [name, c] of Object.entries(output.contracts[file])) {
    result[name] = { abi: c.abi, bytecode: "0x" + c.evm.bytecode.object };
  }
}
result.solcVersion = solc.version();
fs.writeFileSync(path.join(outDir, "contracts.json"), JSON.stringify(result));
