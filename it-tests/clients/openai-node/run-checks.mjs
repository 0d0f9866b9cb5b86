// Runs named async checks in order, one line each ("ok" with what the check returns, or "FAIL" with its message),
// and exits 1 at the first that fails. Shared by check.mjs and frameworks.mjs.
export async function runChecks(checks, label) {
  for (const [name, check] of Object.entries(checks)) {
    try {
      console.log(`ok    ${name}: ${await check()}`);
    } catch (e) {
      console.log(`FAIL  ${name}: ${e.message}`);
      process.exit(1);
    }
  }
  console.log(`all ${Object.keys(checks).length} checks passed (${label})`);
}
