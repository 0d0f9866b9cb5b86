// Derives token-id vectors for the demo model with Hugging Face's own JavaScript tokenizer (npm
// @huggingface/tokenizers, a separate implementation from the Rust library DJL binds), independently of Caravan's
// code. Run: npm install @huggingface/tokenizers@0.2.0 in a scratch directory, then
//   node derive_demo_tokens.mjs <repo root>
// It reads app/src/main/resources/demo-model and the rendered demo chats of sim/src/test/resources/vectors/
// chat-templates.json, and rewrites app/src/test/resources/vectors/demo-model-tokens.json.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.argv[2];
const { Tokenizer } = await import(pathToFileURL(join(process.cwd(),
    "node_modules/@huggingface/tokenizers/dist/tokenizers.mjs")).href);
const model = join(root, "app/src/main/resources/demo-model");
const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(model, "tokenizer.json"), "utf8")),
    JSON.parse(readFileSync(join(model, "tokenizer_config.json"), "utf8")));
const chats = JSON.parse(readFileSync(join(root, "sim/src/test/resources/vectors/chat-templates.json"), "utf8"));

const texts = [
  "Tell me about caravans",
  "The caravan crosses the desert at night, guided by stars.",
  "kv_aware routes to the engine holding the prefix: 16-token blocks, sha256_cbor, PYTHONHASHSEED=0.",
  "Unicode: naïve café, 東京, emoji 🐪 and tabs\tand\nnewlines  with  spaces.",
  "<|user|>\nhello<|assistant|>\n",
];
const cases = texts.map((text) => ({ source: "text", text, add_special_tokens: true,
  ids: tokenizer.encode(text, { add_special_tokens: true }).ids }));
for (const c of chats.cases.filter((c) => c.template === "demo")) {
  cases.push({ source: "chat:" + c.conversation + (c.tools ? "+tools" : ""), text: c.rendered,
    add_special_tokens: false, ids: tokenizer.encode(c.rendered, { add_special_tokens: false }).ids });
}
writeFileSync(join(root, "app/src/test/resources/vectors/demo-model-tokens.json"), JSON.stringify({
  generator: "sim/src/test/python/derive_demo_tokens.mjs", tokenizer: "@huggingface/tokenizers 0.2.0", cases,
}, null, 1) + "\n");
console.log("wrote " + cases.length + " cases");
