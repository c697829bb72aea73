// Render the Groth16 verifier from a snarkjs-shaped verification key with an ejs template
// (ours, contracts/Verifier.sol.ejs, or snarkjs's for cross-checks) and compile it with the
// registry using solc-js (compile.cjs: EVM cancun, via-IR, optimised for many runs).
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
const verifierPath = path.join(outDir, "Verifier.sol");
fs.writeFileSync(verifierPath, verifier);
const { compileFiles } = require("./compile.cjs");
fs.writeFileSync(path.join(outDir, "contracts.json"), JSON.stringify(compileFiles(solc, [verifierPath, registryPath])));
