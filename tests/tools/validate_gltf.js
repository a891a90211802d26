// Validates a .glb with the Khronos glTF-Validator (npm package gltf-validator): prints its
// counts and first messages, exits 0 when it reports nothing (no error, warning or info).
// Usage: NODE_PATH=DIR/node_modules node validate_gltf.js FILE.glb
const validator = require('gltf-validator');
const fs = require('fs');
const bytes = new Uint8Array(fs.readFileSync(process.argv[2]));
validator.validateBytes(bytes).then((report) => {
  const issues = report.issues;
  console.log(`glTF-Validator ${report.validatorVersion}: ${issues.numErrors} errors, ` +
              `${issues.numWarnings} warnings, ${issues.numInfos} infos`);
  for (const message of issues.messages.slice(0, 10)) {
    console.log(`  ${message.code} ${message.pointer || ''}: ${message.message}`);
  }
  process.exit(issues.numErrors + issues.numWarnings + issues.numInfos === 0 ? 0 : 1);
}).catch((error) => {
  console.error(error);
  process.exit(2);
});
