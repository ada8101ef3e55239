// The TypeScript driver of ctxgen-instances: node driver.mjs <package> <cases> <start>.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [pkg, file, startArg] = process.argv.slice(2);
const api = await import(pathToFileURL(pkg + "/dist/index.js").href);
const lines = readFileSync(file, "utf8").split("\n");
const start = Number(startArg || 0);

function kind(e) {
  if (api.ValidationError && e instanceof api.ValidationError) return "rejected";
  return (e && e.constructor && e.constructor.name) || typeof e;
}

function message(e) {
  return String(e && e.message !== undefined ? e.message : e).slice(0, 500);
}

for (let i = start; i < lines.length; i++) {
  if (lines[i] === "") continue;
  const out = { i };
  try {
    const c = JSON.parse(lines[i]);
    const validate = api["validate" + c.typescript];
    const parse = api["parse" + c.typescript];
    if (typeof validate !== "function") {
      out.e = "no function validate" + c.typescript;
    } else {
      const vs = validate(c.data);
      out.v = vs.map((v) => [v.pointer, v.keyword]);
      if (vs.length === 0) {
        try {
          if (typeof parse !== "function") throw new Error("no function parse" + c.typescript);
          out.rt = JSON.parse(JSON.stringify(parse(c.data)));
        } catch (e) {
          out.rte = [kind(e), message(e)];
        }
      }
    }
  } catch (e) {
    out.e = kind(e) + ": " + message(e);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
