// Compile Solidity sources with solc-js (EVM cancun, via-IR, optimised for many runs: calls matter, not deploys).
// Usage:
//   node compile.cjs NODE_MODULES OUT.json SOURCE.sol [SOURCE.sol ...]
// Writes OUT.json ({Name: {abi, bytecode}, solcVersion}). contracts.cjs compiles the certificate contracts with
// the same settings through compileFiles.
"use strict";
const fs = require("fs");
const path = require("path");

// {Name: {abi, bytecode}, solcVersion} of the files, each named by its base name; exits 1 on a compile error.
function compileFiles(solc, files) {
  const sources = {};
  for (const file of files) sources[path.basename(file)] = { content: fs.readFileSync(file, "utf8") };
  const input = {
    language: "Solidity",
    sources,
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
  return result;
}

module.exports = { compileFiles };

if (require.main === module) {
  const [modules, outPath, ...files] = process.argv.slice(2);
  const solc = require(path.join(modules, "solc"));
  fs.writeFileSync(outPath, JSON.stringify(compileFiles(solc, files)));
}
